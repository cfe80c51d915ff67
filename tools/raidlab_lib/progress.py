# SPDX-License-Identifier: GPL-2.0
"""A progress bar on stderr: raidlab bench's points, and the long array
operations (check, repair, rebuild)."""
import sys
import time


class Progress:
    """points done / estimated total, elapsed, ETA, on one stderr line
    (rewritten in place on a terminal, one line per update otherwise)."""

    def __init__(self, total, stream=sys.stderr, width=28, now=time.monotonic, unit="points"):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream
        self.width = width
        self.now = now
        self.t0 = now()
        self.t_first = None
        self.tty = getattr(stream, "isatty", lambda: False)()
        self.last = ""
        self.unit = unit

    @staticmethod
    def hms(s):
        s = int(max(s, 0))
        return f"{s // 60}:{s % 60:02d}"

    def line(self, note=""):
        el = self.now() - self.t0
        frac = min(self.done / self.total, 1.0)
        fill = int(round(frac * self.width))
        bar = "#" * fill + "-" * (self.width - fill)
        if self.done and self.t_first is not None:
            per = (self.now() - self.t_first) / self.done
            eta = self.hms(per * (self.total - self.done))
        else:
            eta = "?"
        return (f"[{bar}] {self.done}/{self.total} {self.unit}  {self.hms(el)} elapsed  "
                f"ETA {eta}  {note}")

    def update(self, done=None, total=None, note=""):
        if self.t_first is None:
            self.t_first = self.now()   # the boot is not a point
        if done is not None:
            self.done = done
        if total is not None:
            self.total = max(total, self.done, 1)
        text = self.line(note)[:150]
        if self.tty:
            self.stream.write("\r" + text.ljust(len(self.last)))
        else:
            self.stream.write(text + "\n")
        self.last = text
        self.stream.flush()

    def finish(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
