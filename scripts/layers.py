#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layers: a dependency and size ratchet for the kernel sources (issue 14).

    scripts/layers.py [--src DIR] [--baseline FILE] [--update] [--edges]

Reads every *.c and *.h under DIR (default dm-raidlab/, subfolders too).
The production files are the *.c files other than *_test.c and *.mod.c;
paths are reported relative to DIR. Three checks:

  cycles     The file call graph has an edge A.c -> B.c when A.c uses a
             non-static function or global object defined in B.c: its
             name called, or used as a value (`&rl_plog_ops`), anywhere
             outside a member access (`x.name`, `x->name`) or a struct,
             union or enum tag. Comments, string and character literals
             are stripped first; macro bodies in the .c file count as
             uses. The strongly connected components with more than one
             file are the cycles (Tarjan, iterative).
  functions  Every function defined in a production .c file, static or
             not, counted from its opening brace line to its closing
             brace line inclusive (the convention of the architecture
             review, §1); those over 80 lines.
  files      Production .c files over 900 lines.
  layers     The folders are layers, highest first: target/, schemes/,
             engines/, svc/ (LAYERS). An edge may not go up (svc/ ->
             engines/, say), and an edge between two files of schemes/
             must stay within one scheme's folder (schemes/plog/): a
             scheme calls no other scheme. A file outside these folders
             has no layer and is not checked. This check has no baseline:
             the tree has no such edge.

Kept simple on purpose: the graph is file-level call edges between .c
files only. There are no #include edges, and a header is no node: a use
inside a header's static inline function or macro is not attributed to
the files that include it (type-only cycles through headers, such as
journal <-> stripe, are not seen). A local variable that shadows another
file's global name would make a false edge; --edges lists every edge with
the symbols behind it, to check.

The baseline (scripts/layers-baseline.txt) records today's debt, one item
a line: `cycle A.c B.c ...`, `function NAME FILE LINES`, `file PATH
LINES`. The check fails on a cycle that is not within one baseline cycle
(a new cycle, or a baseline cycle that gained a file; one that shrinks or
splits is fine; a failing cycle comes with the edges whose removal alone
would undo it), on a function over 80 lines that is not in the baseline
or is longer than recorded (matched by name, so a function that moves to
another file is not new), and on a file over 900 lines that is not in the
baseline or grew beyond its recorded length (matched by path). What got
better is reported but does not fail; --update rewrites the baseline from
the current tree. The last line is `layers: N passed, M failed` (checks).
"""
import argparse
import os
import pathlib
import re
import sys

FUNC_MAX = 80
# the folders of dm-raidlab/, highest layer first (Documentation/architecture.rst)
LAYERS = ("target", "schemes", "engines", "svc")
FILE_MAX = 900
ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_SRC = ROOT / "dm-raidlab"
DEFAULT_BASELINE = ROOT / "scripts" / "layers-baseline.txt"

# annotations written as NAME(...) before or after a declarator
ANNOTATIONS = {
    "__attribute__", "__printf", "__scanf", "__aligned", "__section",
    "__acquires", "__releases", "__must_hold", "__cond_acquires",
    "__cond_releases", "__alloc_size", "__malloc", "__diagnose_as",
}
KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "typeof",
    "__typeof__", "do", "else", "case", "goto", "default",
}
IDENT = re.compile(r"[A-Za-z_]\w*")

HEADER = """\
# scripts/layers-baseline.txt: the dependency and size debt of issue 14,
# recorded by scripts/layers.py --update. scripts/static-check.sh fails on
# anything new or worse than this; the reshape empties it.
#   cycle FILE...                a call cycle between production .c files
#   function NAME FILE LINES     a function over 80 lines (matched by name)
#   file PATH LINES              a production .c file over 900 lines
"""


# ---------------------------------------------------------------- parsing

def strip_c(text):
    """Blank comments, string and character literals (newlines kept).

    Returns (code, pre): `code` also has preprocessor lines blanked (for
    the definitions and brace counting); `pre` keeps them (for uses).
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = _literal_end(text, i)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    pre = "".join(out)
    return _blank_directives(pre), pre


def _literal_end(text, i):
    """Index just past the string or character literal opening at i."""
    quote, j, n = text[i], i + 1, len(text)
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def _blank_directives(text):
    """Blank preprocessor lines (with their continuations), keep newlines."""
    lines = text.split("\n")
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def _top_groups(stmt):
    """(ident, index) of every NAME( at paren depth 0 in stmt."""
    found, depth = [], 0
    for m in re.finditer(r"([A-Za-z_]\w*)?\s*\(|\)", stmt):
        if m.group(0) == ")":
            depth -= 1
            continue
        if depth == 0 and m.group(1):
            found.append((m.group(1), m.start()))
        depth += 1
    return found


def _flat(stmt):
    """stmt with everything inside parentheses blanked."""
    flat, depth = [], 0
    for c in stmt:
        depth += c == "("
        flat.append(c if depth == 0 else " ")
        depth -= c == ")"
    return "".join(flat)


def _words(stmt):
    """The identifiers of stmt outside parentheses."""
    return IDENT.findall(_flat(stmt))


def func_name(stmt):
    """The name a function definition's head declares, or None."""
    for name, _ in _top_groups(stmt):
        if name not in ANNOTATIONS and name not in KEYWORDS:
            return name
    return None


def object_name(stmt):
    """The global object a top-level declaration defines, or None.

    None for typedefs, extern declarations, prototypes and macro
    invocations (`MODULE_LICENSE(...)`, `DEFINE_MUTEX(x)`).
    """
    words = _words(stmt)
    if not words or {"typedef", "extern"} & set(words):
        return None
    m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(", stmt)
    if m:                        # a function pointer: void (*name)(...)
        return m.group(1)
    head = re.split(r"[=;,\[]", stmt.replace("{}", " {} "), maxsplit=1)[0]
    if "(" in head:              # a prototype or a macro invocation
        return None
    if "{}" in head:             # struct tag {...} name
        head = head.rsplit("{}", 1)[1]
    names = [w for w in IDENT.findall(head) if not w.startswith("__")]
    return names[-1] if names and len(IDENT.findall(stmt)) > 1 else None


def parse_defs(code):
    """Top-level definitions of stripped code.

    Returns (functions, objects): functions as [(name, static, first line,
    last line)] with the brace lines, objects as [(name, static)].
    """
    funcs, objs = [], []
    stmt, depth, line = [], 0, 1
    cur = None                   # (name, static, brace line) of a function body
    for c in code:
        if c == "\n":
            line += 1
        if depth == 0 and c == ";":
            _add_object("".join(stmt), objs)
            stmt = []
        elif c == "{":
            if depth == 0:
                cur = _open_body("".join(stmt), line)
                if cur:
                    stmt = []
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and cur:
                funcs.append((cur[0], cur[1], cur[2], line))
                cur = None
            elif depth == 0:
                stmt.append("{}")
        elif depth == 0:
            stmt.append(c)
    return funcs, objs


def _open_body(stmt, line):
    """(name, static, line) if a `{` after stmt opens a function body."""
    s = stmt.strip()
    if not s.endswith(")") or "=" in _flat(s):
        return None
    name = func_name(s)
    return (name, "static" in _words(s), line) if name else None


def _add_object(stmt, objs):
    """Append (name, static) to objs if stmt defines a global object."""
    name = object_name(stmt)
    if name:
        objs.append((name, "static" in _words(stmt)))


def uses(pre):
    """Identifiers of stripped text that can refer to a global symbol.

    Skips member names (`x.name`, `x->name`) and struct/union/enum tags.
    """
    found, prev = set(), ""
    for tok in re.findall(r"->|\.|\d\w*|[A-Za-z_]\w*", pre):
        if IDENT.match(tok) and prev not in (".", "->", "struct", "union", "enum"):
            found.add(tok)
        prev = tok
    return found


# ------------------------------------------------------------------ tree

class Tree:
    """The production files of a source directory and what they define."""

    def __init__(self, src):
        self.src = pathlib.Path(src)
        self.lines = {}          # rel path -> number of lines
        self.funcs = {}          # rel path -> [(name, static, first, last)]
        self.symbols = {}        # global name -> rel path defining it
        self.used = {}           # rel path -> set of identifiers used
        self.inline = header_bodies(self.src)
        for path in production_files(self.src):
            self._read(path)

    def _read(self, path):
        """Parse one production .c file."""
        rel = path.relative_to(self.src).as_posix()
        text = path.read_text(errors="replace")
        code, pre = strip_c(text)
        funcs, objs = parse_defs(code)
        self.lines[rel] = text.count("\n") + (not text.endswith("\n") and text != "")
        self.funcs[rel] = funcs
        self.used[rel] = expand(uses(pre), self.inline)
        for name, static, *_ in funcs + objs:
            if not static:
                self.symbols.setdefault(name, rel)

    def edges(self):
        """{(A, B): sorted symbols} for A.c using a symbol defined in B.c."""
        out = {}
        for a, names in self.used.items():
            for name in names:
                b = self.symbols.get(name)
                if b and b != a:
                    out.setdefault((a, b), []).append(name)
        return {k: sorted(v) for k, v in sorted(out.items())}

    def cycles(self):
        """The strongly connected components of more than one file."""
        graph = {f: set() for f in self.lines}
        for a, b in self.edges():
            graph[a].add(b)
        return sorted(sorted(c) for c in tarjan(graph) if len(c) > 1)

    def long_functions(self):
        """[(name, file, lines)] of functions over FUNC_MAX lines."""
        out = [(name, f, last - first + 1)
               for f, funcs in self.funcs.items()
               for name, _, first, last in funcs if last - first + 1 > FUNC_MAX]
        return sorted(out, key=lambda t: (-t[2], t[0]))

    def long_files(self):
        """[(file, lines)] of production .c files over FILE_MAX lines."""
        return sorted((f, n) for f, n in self.lines.items() if n > FILE_MAX)


def production_files(src):
    """The production .c files under src, sorted."""
    return sorted(p for p in src.rglob("*.c")
                  if not p.name.endswith(("_test.c", ".mod.c")) and p.is_file())


def header_bodies(src):
    """{name: identifiers its body uses} of the headers' macros and functions."""
    out = {}
    for path in sorted(src.rglob("*.h")):
        code, pre = strip_c(path.read_text(errors="replace"))
        lines = pre.split("\n")
        for name, _, first, last in parse_defs(code)[0]:
            body = "\n".join(lines[first - 1:last])
            out.setdefault(name, set()).update(uses(body))
        for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:.*\\\n)*.*)",
                             pre, re.M):
            out.setdefault(m.group(1), set()).update(uses(m.group(2)))
    return out


def expand(names, inline):
    """names plus what the header macros and functions among them use."""
    todo, seen = list(names), set(names)
    while todo:
        for name in inline.get(todo.pop(), ()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def tarjan(graph):
    """Strongly connected components of {node: successors}, iteratively."""
    index, low, onstack, stack, comps = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        onstack.add(root)
        while work:
            _tarjan_step(graph, work, index, low, onstack, stack, comps)
    return comps


def _tarjan_step(graph, work, index, low, onstack, stack, comps):
    """Advance the top of Tarjan's explicit DFS stack by one edge or return."""
    v, it = work[-1]
    for w in it:
        if w not in index:
            index[w] = low[w] = len(index)
            stack.append(w)
            onstack.add(w)
            work.append((w, iter(sorted(graph[w]))))
            return
        if w in onstack:
            low[v] = min(low[v], index[w])
    work.pop()
    if work:
        u = work[-1][0]
        low[u] = min(low[u], low[v])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            onstack.discard(w)
            comp.append(w)
            if w == v:
                break
        comps.append(comp)


# -------------------------------------------------------------- baseline

def read_baseline(path):
    """(cycles, functions, files) of a baseline file.

    cycles: [frozenset]; functions: {name: [lines...]}; files: {path: lines}.
    """
    cycles, funcs, files = [], {}, {}
    for raw in pathlib.Path(path).read_text().splitlines():
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        kind, rest = words[0], words[1:]
        if kind == "cycle" and len(rest) > 1:
            cycles.append(frozenset(rest))
        elif kind == "function" and len(rest) == 3:
            funcs.setdefault(rest[0], []).append(int(rest[2]))
        elif kind == "file" and len(rest) == 2:
            files[rest[0]] = int(rest[1])
        else:
            raise ValueError(f"{path}: bad line: {raw}")
    return cycles, funcs, files


def format_baseline(tree):
    """The baseline text for the current tree."""
    out = [HEADER]
    out += [f"cycle {' '.join(c)}" for c in tree.cycles()]
    out += [f"function {n} {f} {k}" for n, f, k in tree.long_functions()]
    out += [f"file {f} {k}" for f, k in tree.long_files()]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- checks

def check_cycles(tree, base):
    """(failures, improvements) of the cycles against the baseline."""
    fails, better = [], []
    edges = tree.edges()
    cur = [frozenset(c) for c in tree.cycles()]
    for c in cur:
        if not _allowed(c, base):
            fails.append(_cycle_failure(c, base, edges))
    for b in base:
        inside = [c for c in cur if c <= b]
        spilled = any(c & b and not c <= b for c in cur)
        if inside != [b] and not spilled:
            now = " and ".join(_set(c) for c in inside) or "gone"
            better.append(f"cycle {_set(b)}: now {now}")
    return fails, better


def _allowed(comp, base):
    """Whether a cycle lies within one baseline cycle."""
    return any(comp <= b for b in base)


def _cycle_failure(comp, base, edges):
    """The message for a cycle that is new or grew, with the edges to look at.

    Shows the edges whose removal alone would bring the cycle back within
    the baseline, or failing that every edge of it that is not inside one
    baseline cycle.
    """
    grown = [b for b in base if b & comp]
    what = "grew: baseline " + " | ".join(map(_set, grown)) if grown else "new"
    inner = [e for e in edges if e[0] in comp and e[1] in comp]
    loose = [e for e in inner if not any(set(e) <= b for b in base)]
    cuts = [e for e in loose if _fixed_without(e, inner, base)]
    head = ("breaking one of these edges would undo it:" if cuts else
            "its edges that are not inside one baseline cycle:")
    lines = [f"cycle {_set(comp)} {what}", f"      {head}"]
    for a, b in cuts or loose:
        names = edges[(a, b)]
        more = f" (+{len(names) - 4})" if len(names) > 4 else ""
        lines.append(f"        {a} -> {b}: {', '.join(names[:4])}{more}")
    return "\n".join(lines)


def _fixed_without(edge, inner, base):
    """Whether the edges inner without edge leave only baseline cycles."""
    graph = {}
    for a, b in inner:
        graph.setdefault(b, set())
        if (a, b) != edge:
            graph.setdefault(a, set()).add(b)
        else:
            graph.setdefault(a, set())
    return all(len(c) < 2 or _allowed(frozenset(c), base) for c in tarjan(graph))


def _set(files):
    """A cycle written as {a.c b.c}."""
    return "{" + " ".join(sorted(files)) + "}"


def check_functions(tree, base):
    """(failures, improvements) of the long functions against the baseline."""
    fails, better = [], []
    cur = {}
    for name, f, n in tree.long_functions():
        cur.setdefault(name, []).append((n, f))
    for name, found in sorted(cur.items()):
        old = sorted(base.get(name, []), reverse=True)
        for k, (n, f) in enumerate(sorted(found, reverse=True)):
            if k >= len(old):
                fails.append(f"function {name} ({f}) is {n} lines: new over {FUNC_MAX}")
            elif n > old[k]:
                fails.append(f"function {name} ({f}) grew: {old[k]} -> {n} lines")
            elif n < old[k]:
                better.append(f"function {name} ({f}): {old[k]} -> {n} lines")
    for name, old in sorted(base.items()):
        for n in sorted(old, reverse=True)[len(cur.get(name, [])):]:
            better.append(f"function {name}: {n} -> {FUNC_MAX} lines or fewer")
    return fails, better


def check_files(tree, base):
    """(failures, improvements) of the long files against the baseline."""
    fails, better = [], []
    for f, n in tree.long_files():
        if f not in base:
            fails.append(f"file {f} is {n} lines: new over {FILE_MAX}")
        elif n > base[f]:
            fails.append(f"file {f} grew: {base[f]} -> {n} lines")
        elif n < base[f]:
            better.append(f"file {f}: {base[f]} -> {n} lines")
    now = dict(tree.long_files())
    for f, n in sorted(base.items()):
        if f not in now:
            better.append(f"file {f}: {n} -> {tree.lines.get(f, 'no file')} lines")
    return fails, better


def _layer(path):
    """(rank, folder) of a file: its layer's index in LAYERS and, under
    schemes/, the scheme it belongs to (its subfolder, or the file)."""
    parts = path.split("/")
    if len(parts) < 2 or parts[0] not in LAYERS:
        return None, None
    return LAYERS.index(parts[0]), "/".join(parts[:2])


def check_layers(tree):
    """(failures, []) for edges that go up a layer or from scheme to scheme."""
    fails = []
    for (a, b), names in tree.edges().items():
        (ra, fa), (rb, fb) = _layer(a), _layer(b)
        if ra is None or rb is None:
            continue
        if ra > rb:
            why = f"goes up from {LAYERS[ra]}/ to {LAYERS[rb]}/"
        elif ra == rb and LAYERS[ra] == "schemes" and fa != fb:
            why = "goes from one scheme to another"
        else:
            continue
        fails.append(f"edge {a} -> {b} {why}: {', '.join(names[:4])}")
    return fails, []


# ------------------------------------------------------------------ main

def run(tree, baseline):
    """Print the report; return the number of failed checks."""
    bc, bf, bl = read_baseline(baseline)
    print(f"layers: {_rel(tree.src)}: {len(tree.lines)} production .c files;"
          f" baseline {_rel(baseline)}")
    checks = [
        ("cycles", check_cycles(tree, bc),
         f"{len(tree.cycles())} cycle(s) "
         + " ".join(_set(c) for c in tree.cycles())),
        ("functions", check_functions(tree, bf),
         f"{len(tree.long_functions())} function(s) over {FUNC_MAX} lines"),
        ("files", check_files(tree, bl),
         f"{len(tree.long_files())} file(s) over {FILE_MAX} lines"),
        ("layers", check_layers(tree),
         "calls go down " + " > ".join(f"{x}/" for x in LAYERS)),
    ]
    failed = 0
    for name, (fails, better), summary in checks:
        state = "FAIL" if fails else "ok"
        print(f"layers: [{name}] {state}: {summary.strip()}")
        for msg in fails:
            print(f"    FAIL {msg}")
        for msg in better:
            print(f"    improved {msg}")
        failed += bool(fails)
    if any(b for _, (_, b), _ in checks):
        print("layers: improved, update the baseline with --update")
    print(f"layers: {len(checks) - failed} passed, {failed} failed")
    return failed


def _rel(path):
    """path relative to the repository when it is inside it."""
    p = pathlib.Path(path).resolve()
    return os.path.relpath(p, ROOT) if ROOT in p.parents else str(p)


def print_edges(tree):
    """Every edge of the file call graph, with the symbols behind it."""
    for (a, b), names in tree.edges().items():
        print(f"{a} -> {b}: {' '.join(names)}")
    for c in tree.cycles():
        print(f"cycle {' '.join(c)}")


def main(argv=None):
    """Command line: check, --update or --edges."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=DEFAULT_SRC, help="source directory (default dm-raidlab/)")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="baseline file")
    ap.add_argument("--update", action="store_true", help="rewrite the baseline from the tree")
    ap.add_argument("--edges", action="store_true", help="list the file call graph and exit")
    args = ap.parse_args(argv)
    tree = Tree(args.src)
    if not tree.lines:
        print(f"layers: no production .c file under {args.src}")
        print("layers: 0 passed, 1 failed")
        return 1
    if args.edges:
        print_edges(tree)
        return 0
    if args.update:
        pathlib.Path(args.baseline).write_text(format_baseline(tree))
        print(f"layers: wrote {_rel(args.baseline)}")
    try:
        return 1 if run(tree, args.baseline) else 0
    except (OSError, ValueError) as e:
        print(f"layers: cannot read the baseline: {e} (write one with --update)")
        print("layers: 0 passed, 4 failed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
