# SPDX-License-Identifier: GPL-2.0
"""KTAP: every result a process printed, parsed once into documents, and the
host's own results printed the same way.

The guest's suites run on the kernel's kselftest harness, which prints
TAP 13 ("TAP version 13", "ok N global.NAME # SKIP why", "# Totals: pass:N
fail:N xfail:N xpass:N skip:N error:N"); the host's own documents (Writer)
are KTAP 1 with "# Totals: pass:N fail:N skip:N total:N". parse() reads both,
with any console noise between their lines, into Documents: each one's plan,
diagnostics and results in order, its known attributes ("# pvmap-guest: k=v",
run-guest's row of the kernel matrix) and the totals it reported. A Document
counts itself from its results (counts()), folds the host halves' verdicts into
them (merge_host()) and prints itself back (render()): no caller matches a
result line again. A result's name is the test's own: the harness's
"FIXTURE[.VARIANT]." prefix is dropped (the part after the last '.').
"""

import dataclasses
import os
import re
import unittest
from dataclasses import dataclass, field

_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(not ok|ok) (\d+) (\S+)(?:\s+#\s*(SKIP|XFAIL|XPASS)\b\s*(.*))?")
_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")
_HARNESS_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) xpass:(\d+) "
                             r"skip:(\d+) error:(\d+)")
_SUBTEST = re.compile(r"^# Subtest: (\S+)")
_VERSIONS = ("KTAP version 1", "TAP version 13")
# diagnostics that are data: "# pvmap-guest: k=v ..." is run-guest's row of the kernel
# matrix; "# pvmap-suite: features=N", what a suite of feature programs printed after
# them all (tests/guest/run_features.h): how many documents make it whole
ATTRIBUTES = ("pvmap-guest", "pvmap-suite")
_ATTRIBUTE = re.compile(r"^# (%s): (.*)" % "|".join(ATTRIBUTES))


def test_name(name):
    """The test's own name: 'global.module_loaded' -> 'module_loaded'."""
    return name.rsplit(".", 1)[-1]


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def __add__(self, other):
        return Counts(self.passed + other.passed, self.failed + other.failed,
                      self.skipped + other.skipped)

    @property
    def total(self):
        return self.passed + self.failed + self.skipped


@dataclass
class Result:
    """One result line: "ok|not ok NUMBER NAME [# SKIP|XFAIL|XPASS reason]"."""
    ok: bool
    number: int
    word: str  # the name as printed: FIXTURE.NAME for the harness
    directive: str = ""
    reason: str = ""
    diag: list = field(default_factory=list)  # the diagnostic lines just before it

    @property
    def name(self):
        return test_name(self.word)

    @property
    def status(self):
        """pass, fail, skip or xfail (a known failure that happened: a pass); the
        harness's XPASS (passed where a failure was expected) is a failure."""
        if not self.ok or self.directive == "XPASS":
            return "fail"
        return {"SKIP": "skip", "XFAIL": "xfail"}.get(self.directive, "pass")

    def line(self):
        directive = f" # {self.directive}{' ' + self.reason if self.reason else ''}" \
            if self.directive else ""
        return f"{'ok' if self.ok else 'not ok'} {self.number} {self.name}{directive}"


class Document:
    """One KTAP (or harness TAP) document, from its version line to the next one."""

    def __init__(self, name=""):
        self.name = name  # its "# Subtest:" line's
        self.plan = None
        self.items = []  # in order: ("diag", text), ("plan", n) and Results
        self.attrs = {}  # a known attribute's name: {k: v}
        self.reported = None  # what its "# Totals:" line said: checked, never summed
        self.extra = 0  # failures the totals count beyond the results (set by parse)
        self.parts = []  # join()'s: the documents it was made of

    @property
    def results(self):
        return [r for r in self.items if isinstance(r, Result)]

    def complete(self):
        """A plan, and every planned result in order (the totals may be missing:
        counts() charges that); joined, each part so, and as many parts as a
        suite's "pvmap-suite" attribute says it has."""
        suite = self.attrs.get("pvmap-suite")
        return (self._numbered() and all(p._numbered() for p in self.parts) and
                (suite is None or suite.get("features") == str(max(1, len(self.parts)))))

    def _numbered(self):
        return (self.plan is not None and
                [r.number for r in self.results] == list(range(1, self.plan + 1)))

    def counts(self):
        """Its results counted (xfail a pass, xpass a failure), plus the failures
        its totals said beyond them; a document that stopped before its totals
        counts one failure more."""
        c = Counts()
        for r in self.results:
            st = r.status
            c += Counts(st in ("pass", "xfail"), st == "fail", st == "skip")
        return c + Counts(failed=self.extra)

    def merge_host(self, verdicts):
        """Folds each test's host verdict into its result: @verdicts {name: ('pass'
        |'fail'|'none', diagnostics)}. A passed (or expected-failed) result whose
        host half failed, or checked nothing, fails; a skip that the host could not
        check stays a skip. Returns the names merged."""
        merged = set()
        for r in self.results:
            if r.name not in verdicts:
                continue
            merged.add(r.name)
            status, diags = verdicts[r.name]
            skip = r.status == "skip"
            if not (skip and status == "none"):
                r.diag += [f"# {d}" for d in diags]
            if r.status in ("pass", "xfail", "skip") and \
                    (status == "fail" or (status == "none" and not skip)):
                r.ok, r.directive, r.reason = False, "", ""
        return merged

    def render(self, name=None):
        """KTAP 1, named @name (default its own), its totals counted (counts())."""
        out = ["KTAP version 1", f"# Subtest: {name or self.name}"]
        out += [f"# {k}: {' '.join(f'{a}={b}' for a, b in v.items())}"
                for k, v in self.attrs.items()]
        c = self.counts()
        totals = f"# Totals: pass:{c.passed} fail:{c.failed} skip:{c.skipped} total:{c.total}"
        for item in self.items:
            if isinstance(item, Result):
                out += item.diag + [item.line()]
            elif item[0] == "plan":
                out.append(f"1..{item[1]}")
            elif item[0] == "totals":
                out.append(totals)
            else:
                out.append(item[1])
        if self.reported is None:
            out += [totals, "# (guest stopped before its totals: counted as one failure)"]
        return out


def join(docs):
    """One document of the harness documents @docs, in order (a suite of several
    programs, one per feature): their results renumbered one after another,
    their plans and totals summed; one document is itself."""
    if len(docs) == 1:
        return docs[0]
    out = Document(docs[0].name if docs else "")
    out.parts = list(docs)
    out.plan = sum(d.plan or 0 for d in docs)
    out.items.append(("plan", out.plan))
    n = 0
    for d in docs:
        out.attrs.update(d.attrs)
        for item in d.items:
            if isinstance(item, Result):  # a copy: each part keeps its own numbers
                n += 1
                out.items.append(dataclasses.replace(item, number=n, diag=list(item.diag)))
            elif item[0] == "diag":
                out.items.append(item)
        out.extra += d.extra
    if all(d.reported is not None for d in docs):  # else one was cut short: its extra
        out.reported = sum((d.reported for d in docs), Counts())
        out.items.append(("totals", None))
    return out


def _totals(line):
    """A "# Totals:" line of either grammar as Counts (xfail a pass, xpass and error
    failures), or None."""
    m = _TOTALS.match(line)
    if m:
        return Counts(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _HARNESS_TOTALS.match(line)
    if m:
        ok, bad, xfail, xpass, skip, err = map(int, m.groups())
        return Counts(ok + xfail, bad + xpass + err, skip)
    return None


def result(line):
    """The Result that @line is, or None: the one result grammar, for a reader that
    must act on a result as it is printed (the host halves' Dispatcher)."""
    m = _RESULT.match(line)
    return m and Result(m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or "",
                        (m.group(5) or "").strip())


def parse(lines):
    """Every document in @lines, in order: a version line starts one; lines
    before the first, and lines in a document that are neither KTAP nor a
    diagnostic (a kernel's messages), are left out."""
    docs, doc, pending = [], None, []

    def flush():
        if doc is not None:
            doc.items += [("diag", d) for d in pending]
        return []

    for raw in lines:
        line = raw.rstrip("\r\n")
        if line in _VERSIONS:
            pending = flush()
            doc = Document()
            docs.append(doc)
            continue
        if doc is None:
            continue
        r = result(line)
        if r:
            r.diag, pending = pending, []
            doc.items.append(r)
            continue
        m = _PLAN.match(line)
        if m and doc.plan is None:
            pending = flush()
            doc.plan = int(m.group(1))
            doc.items.append(("plan", doc.plan))
            continue
        reported = _totals(line)
        if reported is not None:  # the first counts; another (a document run together
            if doc.reported is None:  # with the next, its version line lost) is dropped
                pending = flush()
                doc.reported = reported
                doc.items.append(("totals", None))
            continue
        m = _SUBTEST.match(line)
        if m and not doc.name and not doc.items and not pending:
            doc.name = m.group(1)
            continue
        m = _ATTRIBUTE.match(line)
        if m:
            doc.attrs[m.group(1)] = dict(w.split("=", 1) for w in m.group(2).split() if "=" in w)
            continue
        if line.startswith("# "):
            pending.append(line)
    flush()
    for d in docs:
        failed = sum(r.status == "fail" for r in d.results)
        d.extra = 1 if d.reported is None else max(0, d.reported.failed - failed)
    return docs


def counts(lines):
    """The Counts of every document in @lines, and how many there were."""
    docs = parse(lines)
    return sum((d.counts() for d in docs), Counts()), len(docs)


class Writer:
    """Collects host-side results and prints them as a KTAP document."""

    def __init__(self, name):
        self.name = name
        self.results = []  # (ok, name, diagnostics)
        self.skips = {}  # name: reason, for results that are skips
        self.attrs = {}

    def add(self, name, ok, *diagnostics):
        self.results.append((bool(ok), name, [d for d in diagnostics if d]))

    def skip(self, name, reason):
        """A check this guest cannot make (say, a debug facility its kernel lacks)."""
        self.results.append((True, name, []))
        self.skips[len(self.results)] = reason

    def attr(self, attribute, /, **values):
        """A known attribute (ATTRIBUTES) of the document: "# ATTRIBUTE: k=v ...",
        which parse() reads into Document.attrs."""
        assert attribute in ATTRIBUTES, attribute
        self.attrs[attribute] = {k: str(v) for k, v in values.items()}

    def lines(self):
        out = ["KTAP version 1", f"# Subtest: {self.name}"]
        out += [f"# {k}: {' '.join(f'{a}={b}' for a, b in v.items())}" for k, v in self.attrs.items()]
        out.append(f"1..{len(self.results)}")
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
