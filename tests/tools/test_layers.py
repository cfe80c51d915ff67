# SPDX-License-Identifier: GPL-2.0
"""scripts/layers.py: the dependency and size ratchet of issue 14, on little
C trees written to tmp_path, and on the real tree with the committed
baseline."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import layers  # noqa: E402

# a.c and b.c call each other: one cycle
CYCLE = {
    "a.c": "int a_fn(void)\n{\n\treturn b_fn();\n}\n",
    "b.c": "int b_fn(void)\n{\n\treturn a_fn();\n}\n",
}


def write(tmp_path, files, baseline=None):
    """Write files under tmp_path/src and the baseline; return their paths."""
    src = tmp_path / "src"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    base = tmp_path / "baseline.txt"
    base.write_text(baseline if baseline is not None else "# empty\n")
    return src, base


def check(tmp_path, files, baseline=None, capsys=None):
    """Run the check; return (exit code, output)."""
    src, base = write(tmp_path, files, baseline)
    rc = layers.main(["--src", str(src), "--baseline", str(base)])
    return rc, capsys.readouterr().out if capsys else ""


def long_func(name, body_lines, static=False):
    """A function whose braces span body_lines + 2 lines."""
    body = "".join(f"\tx += {k};\n" for k in range(body_lines))
    head = "static " if static else ""
    return f"{head}int {name}(int x)\n{{\n{body}\treturn x;\n}}\n"


def test_cycle_found(tmp_path):
    src, _ = write(tmp_path, {**CYCLE, "c.c": "int c_fn(void)\n{\n\treturn a_fn();\n}\n"})
    tree = layers.Tree(src)
    assert tree.cycles() == [["a.c", "b.c"]]
    assert tree.edges() == {("a.c", "b.c"): ["b_fn"], ("b.c", "a.c"): ["a_fn"],
                            ("c.c", "a.c"): ["a_fn"]}


def test_subfolders_and_tests_excluded(tmp_path):
    files = {"x/a.c": CYCLE["a.c"], "y/b.c": CYCLE["b.c"],
             "a_test.c": "int t(void)\n{\n\treturn a_fn() + b_fn();\n}\n",
             "a.mod.c": "int m(void)\n{\n\treturn a_fn();\n}\n"}
    src, _ = write(tmp_path, files)
    tree = layers.Tree(src)
    assert sorted(tree.lines) == ["x/a.c", "y/b.c"]
    assert tree.cycles() == [["x/a.c", "y/b.c"]]


def test_new_cycle_fails(tmp_path, capsys):
    rc, out = check(tmp_path, CYCLE, capsys=capsys)
    assert rc == 1
    assert "FAIL cycle {a.c b.c} new" in out
    assert "a.c -> b.c: b_fn" in out
    assert out.splitlines()[-1] == "layers: 3 passed, 1 failed"


def test_grown_cycle_fails(tmp_path, capsys):
    files = {**CYCLE, "b.c": "int b_fn(void)\n{\n\treturn c_fn();\n}\n",
             "c.c": "int c_fn(void)\n{\n\treturn a_fn();\n}\n"}
    rc, out = check(tmp_path, files, "cycle a.c b.c\n", capsys)
    assert rc == 1
    assert "FAIL cycle {a.c b.c c.c} grew: baseline {a.c b.c}" in out
    assert "breaking one of these edges would undo it:" in out
    assert "b.c -> c.c: c_fn" in out and "c.c -> a.c: a_fn" in out


def test_merged_cycles_fail_on_the_new_edge(tmp_path, capsys):
    fn = "int {0}_fn(void)\n{{\n\treturn {1};\n}}\n"
    files = {"a.c": fn.format("a", "b_fn()"), "b.c": fn.format("b", "a_fn() + c_fn()"),
             "c.c": fn.format("c", "d_fn()"), "d.c": fn.format("d", "c_fn()")}
    rc, out = check(tmp_path, files, "cycle a.c b.c\ncycle c.c d.c\n", capsys)
    assert rc == 0 and "improved" not in out
    files["d.c"] = fn.format("d", "c_fn() + a_fn()")
    rc, out = check(tmp_path, files, "cycle a.c b.c\ncycle c.c d.c\n", capsys)
    assert rc == 1 and "improved" not in out
    assert "grew: baseline {a.c b.c} | {c.c d.c}" in out
    cut = out.split("would undo it:\n")[1].split("\nlayers:")[0].split("\n")
    assert [x.strip() for x in cut] == ["b.c -> c.c: c_fn", "d.c -> a.c: a_fn"]


def test_shrunk_cycle_passes_improved(tmp_path, capsys):
    rc, out = check(tmp_path, CYCLE, "cycle a.c b.c c.c\n", capsys)
    assert rc == 0
    assert "improved cycle {a.c b.c c.c}: now {a.c b.c}" in out
    assert "update the baseline with --update" in out
    assert out.splitlines()[-1] == "layers: 4 passed, 0 failed"


def test_static_functions_make_no_edge(tmp_path):
    files = {"a.c": "static int b_fn(void)\n{\n\treturn 1;\n}\n"
                    "int a_fn(void)\n{\n\treturn b_fn();\n}\n",
             "b.c": "static int b_fn(void)\n{\n\treturn a_fn();\n}\n"}
    src, _ = write(tmp_path, files)
    tree = layers.Tree(src)
    assert tree.edges() == {("b.c", "a.c"): ["a_fn"]}
    assert tree.cycles() == []


def test_comments_strings_members_make_no_edge(tmp_path):
    files = {"a.c": "/* b_fn() */\n// b_fn();\nint a_fn(struct s *p)\n{\n"
                    "\tpr_info(\"b_fn() %c\", 'b');\n\treturn p->b_fn(p.b_fn);\n}\n",
             "b.c": CYCLE["b.c"]}
    src, _ = write(tmp_path, files)
    assert layers.Tree(src).edges() == {("b.c", "a.c"): ["a_fn"]}


def test_objects_and_header_macros_make_edges(tmp_path):
    files = {"ops.c": "const struct ops b_ops = {\n\t.map = b_map,\n};\n",
             "map.c": "int b_map(void)\n{\n\treturn 0;\n}\n",
             "use.c": "const struct ops *pick(void)\n{\n\treturn &b_ops;\n}\n",
             "h.h": "#define B_OPS_INIT \\\n\t.map = b_map\n",
             "x.c": "const struct ops x_ops = {\n\tB_OPS_INIT,\n};\n"}
    src, _ = write(tmp_path, files)
    assert layers.Tree(src).edges() == {("ops.c", "map.c"): ["b_map"],
                                        ("use.c", "ops.c"): ["b_ops"],
                                        ("x.c", "map.c"): ["b_map"]}


def test_long_function_line_count(tmp_path):
    files = {"a.c": "#include <x.h>\n\n" + long_func("big", 90, static=True)
                    + long_func("small", 77)}
    src, _ = write(tmp_path, files)
    tree = layers.Tree(src)
    # `{`, 90 statements, `return x;`, `}`; small is 80 lines, not over
    assert tree.long_functions() == [("big", "a.c", 93)]
    assert tree.funcs["a.c"] == [("big", True, 4, 96), ("small", False, 98, 177)]


def test_new_long_function_fails(tmp_path, capsys):
    rc, out = check(tmp_path, {"a.c": long_func("big", 90)}, capsys=capsys)
    assert rc == 1
    assert "FAIL function big (a.c) is 93 lines: new over 80" in out


def test_baseline_function_grew_fails(tmp_path, capsys):
    rc, out = check(tmp_path, {"a.c": long_func("big", 90)}, "function big a.c 92\n", capsys)
    assert rc == 1
    assert "FAIL function big (a.c) grew: 92 -> 93 lines" in out


def test_moved_function_passes(tmp_path, capsys):
    rc, out = check(tmp_path, {"b.c": long_func("big", 90)}, "function big a.c 93\n", capsys)
    assert rc == 0
    assert "FAIL" not in out


def test_shortened_function_improved(tmp_path, capsys):
    rc, out = check(tmp_path, {"a.c": long_func("big", 10)}, "function big a.c 93\n", capsys)
    assert rc == 0
    assert "improved function big: 93 -> 80 lines or fewer" in out


def test_files(tmp_path, capsys):
    body = "int x;\n" * 950
    rc, out = check(tmp_path, {"a.c": body}, "file a.c 949\n", capsys)
    assert rc == 1 and "FAIL file a.c grew: 949 -> 950 lines" in out
    rc, out = check(tmp_path, {"a.c": body}, "", capsys)
    assert rc == 1 and "FAIL file a.c is 950 lines: new over 900" in out
    rc, out = check(tmp_path, {"a.c": body}, "file a.c 1000\n", capsys)
    assert rc == 0 and "improved file a.c: 1000 -> 950 lines" in out


def test_update_writes_passing_baseline(tmp_path, capsys):
    files = {**CYCLE, "c.c": long_func("big", 90) + "int y;\n" * 900}
    src, base = write(tmp_path, files)
    assert layers.main(["--src", str(src), "--baseline", str(base)]) == 1
    assert layers.main(["--src", str(src), "--baseline", str(base), "--update"]) == 0
    text = base.read_text()
    assert text.startswith("# ") and "issue 14" in text
    assert "cycle a.c b.c\n" in text and "function big c.c 93\n" in text
    assert "file c.c 994\n" in text
    capsys.readouterr()
    assert layers.main(["--src", str(src), "--baseline", str(base)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "layers: 4 passed, 0 failed"


def test_layers_downward_passes(tmp_path, capsys):
    files = {"target/core.c": "int t(void)\n{\n\treturn s_fn() + m_fn();\n}\n",
             "schemes/x.c": "int s_fn(void)\n{\n\treturn e_fn();\n}\n",
             "engines/e.c": "int e_fn(void)\n{\n\treturn m_fn();\n}\n",
             "svc/m.c": "int m_fn(void)\n{\n\treturn 0;\n}\n",
             "schemes/p/a.c": "int pa(void)\n{\n\treturn pb() + m_fn();\n}\n",
             "schemes/p/b.c": "int pb(void)\n{\n\treturn 1;\n}\n"}
    rc, out = check(tmp_path, files, capsys=capsys)
    assert rc == 0, out
    assert "layers: [layers] ok" in out


def test_layers_upward_edge_fails(tmp_path, capsys):
    files = {"engines/e.c": "int e_fn(void)\n{\n\treturn 0;\n}\n",
             "svc/m.c": "int m_fn(void)\n{\n\treturn e_fn();\n}\n"}
    rc, out = check(tmp_path, files, capsys=capsys)
    assert rc == 1
    assert "FAIL edge svc/m.c -> engines/e.c goes up from svc/ to engines/: e_fn" in out
    assert out.splitlines()[-1] == "layers: 3 passed, 1 failed"


def test_layers_scheme_to_scheme_fails(tmp_path, capsys):
    files = {"schemes/a.c": "int a_fn(void)\n{\n\treturn b_fn();\n}\n",
             "schemes/b/b.c": "int b_fn(void)\n{\n\treturn 0;\n}\n"}
    rc, out = check(tmp_path, files, capsys=capsys)
    assert rc == 1
    assert "edge schemes/a.c -> schemes/b/b.c goes from one scheme to another" in out


def test_tarjan_deep_chain():
    n = 5000                      # deeper than Python's recursion limit
    graph = {k: {k + 1} for k in range(n)}
    graph[n] = {0}
    comps = layers.tarjan(graph)
    assert len(comps) == 1 and len(comps[0]) == n + 1
    graph[n] = set()
    assert len(layers.tarjan(graph)) == n + 1


def test_real_tree_passes_with_committed_baseline(capsys):
    assert layers.main([]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "layers: 4 passed, 0 failed"
