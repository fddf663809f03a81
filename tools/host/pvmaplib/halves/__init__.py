# SPDX-License-Identifier: GPL-2.0
"""The host halves of the guest tests, each under the guest test's own name.

A guest test that needs the host (QMP, the aperture's backing file, pvmap-audit,
pvmap-hv) prints "# pvmap-host: KIND k=v ..." lines and waits in handshakes
("pvmap-sync: TAG", answered "pvmap-ack TAG"). Its host half is a HostHalf
subclass registered under the test's name (@host_half("memtype_wc")):
`line_KIND(text)` reads a KIND line (dashes become underscores), `sync_TAG()`
answers a handshake, `finish()` runs once the guest has stopped, and `check()`
records what the host found. The runner (tools/host/run-guest) knows no test:
a Dispatcher hands the lines and handshakes to the half of the test in
progress, and finish() gives each test's verdict, which ktap.Document.merge_host()
folds into that test's one KTAP result: ok only when the guest's result is ok
and every host check passed.

This package is the machinery, the actions halves share (actions.py), the
halves a test and a program share (bases.py) and the programs' own halves
(programs.py: make demo, make bench). The tests' halves are tests: they live in
tests/host_halves/, which load() imports (and so registers) from the checkout.
"""

import os
import re
import sys

from .. import ktap

REGISTRY = {}  # guest test name: its HostHalf subclass
REGISTERED_IN = {}  # guest test name: the module that registered its half

HOST_LINE = re.compile(r"# pvmap-host: (\S+) ?(.*)")  # anywhere: a kernel message may precede it
SYNC_LINE = re.compile(r"^pvmap-sync: (\S+)")
# the kselftest harness: "#  RUN           FIXTURE.NAME ..."; the name is after the last '.'
RUN_LINE = re.compile(r"^#\s+RUN\s+(\S+)")


def kv(text):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'}."""
    return dict(w.split("=", 1) for w in text.split() if "=" in w)


def host_half(*names):
    """Class decorator: the host half of the guest tests @names."""
    where = sys._getframe(1).f_globals.get("__name__", "?")  # the registering module

    def register(cls):
        for name in names:
            if name in REGISTRY:
                raise ValueError(f"two host halves for {name}")
            REGISTRY[name] = cls
            REGISTERED_IN[name] = where.rsplit(".", 1)[-1]
        return cls
    return register


class HostHalf:
    """The host half of one guest test, for one run of it."""

    def __init__(self, env, name):
        self.env = env  # the runner: args, shm, qmp, qmp_path, log, hv
        self.name = name
        self.checks = []  # (label, ok, diagnostics)

    @classmethod
    def tags(cls):
        return {m[5:].replace("_", "-") for m in dir(cls) if m.startswith("sync_")}

    @classmethod
    def kinds(cls):
        return {m[5:].replace("_", "-") for m in dir(cls) if m.startswith("line_")}

    def check(self, label, ok, *diagnostics):
        self.checks.append((label, bool(ok), [d for d in diagnostics if d]))

    def line(self, kind, text):
        fn = getattr(self, "line_" + kind.replace("-", "_"), None)
        if not fn:
            return
        try:
            fn(text)
        except Exception as e:  # noqa: BLE001: a line a kernel message cut must fail the
            # test it belongs to, not end the run and every other verdict with it
            self.check(f"line_{kind}", False, f"{type(e).__name__}: {e}: {text!r}")

    def sync(self, tag):
        fn = getattr(self, "sync_" + tag.replace("-", "_"), None)
        if fn is None:
            self.check(f"sync_{tag}", False, f"the host half of {self.name} does not "
                       f"answer the handshake {tag!r}")
            return
        try:
            fn()
        except Exception as e:  # noqa: BLE001: one broken half must not end the run
            self.check(f"sync_{tag}", False, f"{type(e).__name__}: {e}")

    def finish(self):
        """The guest has stopped (pvmap-hv, when there is one, still runs)."""

    def verdict(self):
        """'pass', 'fail' or 'none' (nothing checked), and the diagnostic lines."""
        diags, i = [], 0
        while i < len(self.checks):
            label, ok, ds = self.checks[i]
            n = 1  # passes in a row under one label (a pattern per PWRITE): one line
            while ok and i + n < len(self.checks) and self.checks[i + n][:2] == (label, True):
                n += 1
            diags.append(f"host: {label}: {'ok' if ok else 'FAILED'}" +
                         (f" ({n} checks, the first)" if n > 1 else "") +
                         (f": {ds[0]}" if ds else ""))
            diags += [f"host:   {d}" for d in ds[1:]]
            i += n
        if not self.checks:
            return "none", [f"host: could not check: the host half of {self.name} saw "
                            "no line and no handshake of its test"]
        return ("pass" if all(ok for _, ok, _ in self.checks) else "fail"), diags


class Dispatcher:
    """Routes a run's host lines and handshakes to the host half of the test in
    progress: the NAME of the last harness "RUN ... FIXTURE.NAME" line, or before
    any, the program's name (@first: pvmap-demo, pvmap-bench)."""

    def __init__(self, env, first=None):
        self.env = env
        self.run_seen = False
        self.halves = {}  # test name: [HostHalf], in the order they ran
        self.current = None
        self.half = None
        # Fallback, used only while no RUN line has been seen and the program has
        # no host half of its own (a guest without the harness, which names its
        # test only in the result line after it): each line and handshake goes
        # to the half that declares its KIND or TAG, created for the test in
        # progress, whose name the next result line tells.
        self.segment = []
        self.segment_lines = []
        if first in REGISTRY:
            self.start(first)

    def start(self, name):
        self.current = name
        self.half = REGISTRY[name](self.env, name) if name in REGISTRY else None
        if self.half:
            self.halves.setdefault(name, []).append(self.half)

    def fallback(self):
        return not self.run_seen and self.half is None

    def feed(self, line):
        """One console line (handshakes: call sync() too, then acknowledge)."""
        m = RUN_LINE.match(line)
        if m:
            self.run_seen = True
            self.start(ktap.test_name(m.group(1)))
            return
        m = HOST_LINE.search(line)
        if m:
            if not self.fallback():
                if self.half:
                    self.half.line(m.group(1), m.group(2))
                return
            self.segment_lines.append(m.groups())
            for h in self.segment:
                h.line(*m.groups())
            return
        r = ktap.result(line)
        if r and self.fallback():
            name = r.name
            if name in REGISTRY and not any(isinstance(h, REGISTRY[name]) for h in self.segment):
                self.segment.append(REGISTRY[name](self.env, name))
            for h in self.segment:
                h.name = name
                self.halves.setdefault(name, []).append(h)
            self.segment, self.segment_lines = [], []

    def sync(self, tag):
        """Performs the host half's action for handshake @tag."""
        if not self.fallback():
            if self.half is None:
                self.half = HostHalf(self.env, self.current or "?")
                self.halves.setdefault(self.half.name, []).append(self.half)
            self.half.sync(tag)
            return
        half = next((h for h in self.segment if tag in h.tags()), None)
        if half is None:
            half = fallback_class(tag)(self.env, "?")
            self.segment.append(half)
            for kind, text in self.segment_lines:
                half.line(kind, text)
        half.sync(tag)

    def finish(self):
        """At the end of the run: every half's finish(); {name: (verdict, diags)}."""
        if self.segment:  # host lines after the last result line: no test to own them
            self.halves.setdefault("host_lines_after_last_result", []).extend(self.segment)
            self.segment = []
        out = {}
        for name, halves in self.halves.items():
            for h in halves:
                try:
                    h.finish()
                except Exception as e:  # noqa: BLE001
                    h.check("finish", False, f"{type(e).__name__}: {e}")
            one = HostHalf(self.env, name)
            one.checks = [c for h in halves for c in h.checks]
            out[name] = one.verdict()
        return out


def fallback_class(tag):
    """The half answering handshake @tag when the test is not known: of those that
    answer it, the one that answers the fewest (the plainest); HostHalf if none."""
    owners = [cls for cls in dict.fromkeys(REGISTRY.values()) if tag in cls.tags()]
    return min(owners, key=lambda c: len(c.tags()), default=HostHalf)


TESTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      *[os.pardir] * 4, "tests"))


def load():
    """Registers the programs' halves and the tests' (tests/host_halves/)."""
    from . import programs  # noqa: F401: it registers
    if TESTS not in sys.path:
        sys.path.insert(0, TESTS)
    import host_halves  # noqa: F401: each of its modules registers


load()
