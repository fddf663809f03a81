# SPDX-License-Identifier: GPL-2.0
"""KTAP: parse what a guest printed, and print host-side results the same way."""

import re

_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(not ok|ok) (\d+) (\S+)(?:\s+#\s*(SKIP\b.*))?")
_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")


class Suite:
    """One KTAP document: its plan and its results, in order."""

    def __init__(self):
        self.version_seen = False
        self.plan = None
        self.results = []  # (ok: bool, number, name, skip: bool)

    @property
    def passed(self):
        return sum(1 for ok, _, _, skip in self.results if ok and not skip)

    @property
    def failed(self):
        return sum(1 for ok, _, _, _ in self.results if not ok)

    @property
    def skipped(self):
        return sum(1 for ok, _, _, skip in self.results if ok and skip)

    def complete(self):
        """True when a plan was seen and every planned result arrived, in order."""
        if not self.version_seen or self.plan is None:
            return False
        numbers = [n for _, n, _, _ in self.results]
        return numbers == list(range(1, self.plan + 1))


def parse(lines):
    """Parse the first top-level KTAP document found in @lines."""
    suite = Suite()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "KTAP version 1" or line == "TAP version 13":
            if suite.version_seen:
                break  # a second document: stop at the first
            suite.version_seen = True
            continue
        if not suite.version_seen:
            continue
        m = _PLAN.match(line)
        if m and suite.plan is None:
            suite.plan = int(m.group(1))
            continue
        m = _RESULT.match(line)
        if m:
            suite.results.append((m.group(1) == "ok", int(m.group(2)), m.group(3),
                                  bool(m.group(4))))
    return suite


def totals(lines):
    """Sum every '# Totals:' line in @lines: (pass, fail, skip, total, count)."""
    p = f = s = t = n = 0
    for line in lines:
        m = _TOTALS.match(line.strip())
        if m:
            p += int(m.group(1))
            f += int(m.group(2))
            s += int(m.group(3))
            t += int(m.group(4))
            n += 1
    return p, f, s, t, n


class Writer:
    """Collects host-side results and prints them as a KTAP document."""

    def __init__(self, name):
        self.name = name
        self.results = []  # (ok, name, diagnostics)
        self.skips = {}  # name: reason, for results that are skips

    def add(self, name, ok, *diagnostics):
        self.results.append((bool(ok), name, [d for d in diagnostics if d]))

    def skip(self, name, reason):
        """A check this guest cannot make (say, a debug facility its kernel lacks)."""
        self.results.append((True, name, []))
        self.skips[len(self.results)] = reason

    def lines(self):
        out = ["KTAP version 1", f"# Subtest: {self.name}", f"1..{len(self.results)}"]
        for i, (ok, name, diags) in enumerate(self.results, 1):
            out.extend(f"# {d}" for d in diags)
            skip = f" # SKIP {self.skips[i]}" if i in self.skips else ""
            out.append(f"{'ok' if ok else 'not ok'} {i} {name}{skip}")
        s = len(self.skips)
        p = sum(1 for ok, _, _ in self.results if ok) - s
        f = len(self.results) - p - s
        out.append(f"# Totals: pass:{p} fail:{f} skip:{s} total:{len(self.results)}")
        return out
