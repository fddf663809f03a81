# SPDX-License-Identifier: GPL-2.0
"""KTAP: parse what a guest printed, and print host-side results the same way.

The guest's suites run on the kernel's kselftest harness, which prints
TAP 13 ("TAP version 13", "ok N global.NAME # SKIP why", "# Totals: pass:N
fail:N xfail:N xpass:N skip:N error:N"); the host's own documents (Writer)
are KTAP 1 with "# Totals: pass:N fail:N skip:N total:N". Both parse here.
A result's name is the test's own: the harness's "FIXTURE[.VARIANT]." prefix
is dropped (the part after the last '.').
"""

import os
import re
import unittest

_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(not ok|ok) (\d+) (\S+)(?:\s+#\s*(SKIP|XFAIL|XPASS)\b\s*(.*))?")
_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")
_HARNESS_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) xpass:(\d+) "
                             r"skip:(\d+) error:(\d+)")
_VERSIONS = ("KTAP version 1", "TAP version 13")


def test_name(name):
    """The test's own name: 'global.module_loaded' -> 'module_loaded'."""
    return name.rsplit(".", 1)[-1]


class Suite:
    """One KTAP document: its plan and its results, in order."""

    def __init__(self):
        self.version_seen = False
        self.plan = None
        self.results = []  # (ok: bool, number, name, skip: bool)
        self.directives = {}  # number: (SKIP|XFAIL|XPASS, reason)

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
    """Parse the first top-level KTAP (or the harness's TAP 13) document in @lines."""
    suite = Suite()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line in _VERSIONS:
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
            number, directive = int(m.group(2)), m.group(4)
            # XPASS: passed, but a known failure was expected; the harness counts a failure
            ok = m.group(1) == "ok" and directive != "XPASS"
            suite.results.append((ok, number, test_name(m.group(3)), directive == "SKIP"))
            if directive:
                suite.directives[number] = (directive, m.group(5).strip())
    return suite


def totals(lines):
    """Sum every '# Totals:' line in @lines: (pass, fail, skip, total, count).

    The harness's xfail counts as a pass (a known failure that happened, as
    expected), its xpass and error as failures.
    """
    p = f = s = t = n = 0
    for line in lines:
        line = line.strip()
        m = _TOTALS.match(line)
        if m:
            p += int(m.group(1))
            f += int(m.group(2))
            s += int(m.group(3))
            t += int(m.group(4))
            n += 1
            continue
        m = _HARNESS_TOTALS.match(line)
        if m:
            ok, bad, xfail, xpass, skip, err = map(int, m.groups())
            p += ok + xfail
            f += bad + xpass + err
            s += skip
            t += ok + bad + xfail + xpass + skip + err
            n += 1
    return p, f, s, t, n


def guest_document(lines, name):
    """The guest's suite as one KTAP document named @name, kernel messages left out.

    Results carry the plain test names; a guest that stopped before its
    totals counts one failure more; a guest that printed no document at all
    is one failure, guest_ktap.
    """
    suite = parse(lines)
    if not suite.version_seen:  # crashed before its plan: one failure
        return ["KTAP version 1", f"# Subtest: {name}", "1..1",
                "# no KTAP from the guest", "not ok 1 guest_ktap",
                "# Totals: pass:0 fail:1 skip:0 total:1"]
    out = ["KTAP version 1", f"# Subtest: {name}"]
    in_doc = seen_totals = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line in _VERSIONS:
            if in_doc:
                break
            in_doc = True
            continue
        if not in_doc:
            continue
        m = _RESULT.match(line)
        if m:
            number = int(m.group(2))
            directive, reason = suite.directives.get(number, (None, ""))
            suffix = f" # {directive}{' ' + reason if reason else ''}" if directive else ""
            out.append(f"{m.group(1)} {number} {test_name(m.group(3))}{suffix}")
        elif _PLAN.match(line):
            out.append(line)
        elif line.startswith("# Totals:"):
            p, f, s, t, _ = totals([line])
            out.append(f"# Totals: pass:{p} fail:{f} skip:{s} total:{t}")
            seen_totals = True
        elif line.startswith("# "):
            out.append(line)
    if not seen_totals:
        out.append(f"# Totals: pass:{suite.passed} fail:{suite.failed + 1} "
                   f"skip:{suite.skipped} total:{len(suite.results) + 1}")
        out.append("# (guest stopped before its totals: counted as one failure)")
    return out


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

    def report(self):
        """Print the document: a program's whole output. Its exit status: 1 when a
        result failed, else 0."""
        print("\n".join(self.lines()), flush=True)
        return 0 if all(ok for ok, _, _ in self.results) else 1


class UnittestResult(unittest.TextTestResult):
    """Prints one KTAP line per test as it ends."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.n = 0

    def _line(self, test, ok, why=None):
        self.n += 1
        if why:
            for ln in why.splitlines():
                print(f"# {ln}")
        print(f"{'ok' if ok else 'not ok'} {self.n} {test.id().split('.', 1)[1]}", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False, self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False, self._exc_info_to_string(err, test))


def run_unittests(module, name):
    """Run @module's unittest cases as the KTAP subtest @name: 0 when all passed, else 1."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    print(f"KTAP version 1\n# Subtest: {name}\n1..{suite.countTestCases()}")
    with open(os.devnull, "w") as devnull:
        result = unittest.TextTestRunner(stream=devnull, resultclass=UnittestResult).run(suite)
    fail = len(result.failures) + len(result.errors)
    print(f"# Totals: pass:{result.testsRun - fail} fail:{fail} skip:0 "
          f"total:{result.testsRun}")
    return 1 if fail else 0
