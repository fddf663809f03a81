#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the host-side helpers (tools/pvmaplib), printed as KTAP.

These decide whether a guest run passed, so each test feeds them what a
broken guest would print and asserts they notice.
"""

import importlib.machinery
import importlib.util
import os
import socket
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from pvmaplib import console, ktap  # noqa: E402
from pvmaplib.qmp import QMP, QMPError, pci_memory_bars  # noqa: E402

GOOD = ["[    1.0] boot", "KTAP version 1", "1..2", "ok 1 a", "# note", "not ok 2 b",
        "# Totals: pass:1 fail:1 skip:0 total:2"]


class KTAPParse(unittest.TestCase):
    def test_complete_document(self):
        s = ktap.parse(GOOD)
        self.assertTrue(s.complete())
        self.assertEqual((s.passed, s.failed), (1, 1))

    def test_missing_result_is_incomplete(self):
        self.assertFalse(ktap.parse(GOOD[:4]).complete())

    def test_missing_plan_is_incomplete(self):
        self.assertFalse(ktap.parse([ln for ln in GOOD if ln != "1..2"]).complete())

    def test_no_version_line_is_incomplete(self):
        self.assertFalse(ktap.parse(GOOD[2:]).complete())

    def test_totals_sum_every_document(self):
        lines = GOOD + ["# Totals: pass:3 fail:0 skip:1 total:4"]
        self.assertEqual(ktap.totals(lines), (4, 1, 1, 6, 2))

    def test_writer_counts_failures(self):
        w = ktap.Writer("host")
        w.add("a", True)
        w.add("b", False, "why")
        self.assertIn("not ok 2 b", w.lines())
        self.assertEqual(ktap.totals(w.lines())[:2], (1, 1))


class ConsoleSplats(unittest.TestCase):
    def test_finds_kernel_reports(self):
        reports = [
            "[    2.1] WARNING: CPU: 0 PID: 1 at guest/pvmap_pci.c:10 pvmap_probe+0x1",
            "[    2.1] BUG: kernel NULL pointer dereference, address: 00000000",
            "[    2.1] Oops: 0002 [#1] PREEMPT SMP",
            "[    2.1] Kernel panic - not syncing: Fatal exception",
            "[    2.1] BUG: sleeping function called from invalid context at mm/x.c:1",
            "[    2.1] WARNING: possible recursive locking detected",
            "[    2.1] inconsistent lock state",
            "[    2.1] Call Trace:",
        ]
        for line in reports:
            self.assertTrue(console.splats([line]), line)

    def test_quiet_boot_is_clean(self):
        boot = ["[    0.26] rcu: \tRCU lockdep checking is enabled.",
                "[    0.29] ... MAX_LOCKDEP_SUBCLASSES:  8",
                "[    1.39] vmap allocation for size 1073745920 failed: use vmalloc=<size>",
                "ok 3 warning_free"]
        self.assertEqual(console.splats(boot), [])


class EmulatorFault(unittest.TestCase):
    """The known QEMU fault is told apart from a guest's own double fault."""
    HEAD = ["[    8.466953] traps: PANIC: double fault, error_code: 0x0",
            "[    8.467502] EIP: kmem_cache_alloc+0xcb/0x3e0"]

    def test_impossible_eflags_is_the_emulator(self):
        lines = self.HEAD + ["[    8.467587] DS: 007b ES: 007b FS: 00d8 GS: 0000 SS: 0068 "
                             "EFLAGS: c1225242"]
        self.assertIn("c1225242", console.emulator_fault(lines))

    def test_possible_eflags_is_the_guest(self):
        lines = self.HEAD + ["[    8.467587] DS: 007b ES: 007b FS: 00d8 GS: 0000 SS: 0068 "
                             "EFLAGS: 00210286"]
        self.assertIsNone(console.emulator_fault(lines))

    def test_eflags_before_a_double_fault_do_not_count(self):
        lines = ["[    1.0] EFLAGS: c1225242"] + self.HEAD[1:]
        self.assertIsNone(console.emulator_fault(lines))


class FakeQMP:
    """A QMP server on a Unix socket that answers from a script."""

    def __init__(self, replies):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "qmp.sock")
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(self.path)
        self.srv.listen(1)
        self.replies = replies
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        conn, _ = self.srv.accept()
        with conn:
            conn.sendall(b'{"QMP": {"version": {}, "capabilities": []}}\n')
            f = conn.makefile("rb")
            for reply in self.replies:
                if not f.readline():
                    return
                conn.sendall(reply)

    def close(self):
        self.srv.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


class QMPClient(unittest.TestCase):
    def run_qmp(self, replies, command="query-pci"):
        fake = FakeQMP([b'{"return": {}}\n'] + replies)
        try:
            with QMP(fake.path, timeout=5).connect(wait=2) as q:
                return q.execute(command)
        finally:
            fake.close()

    def test_skips_events(self):
        got = self.run_qmp([b'{"event": "RESET"}\n{"return": [1]}\n'])
        self.assertEqual(got, [1])

    def test_error_raises(self):
        with self.assertRaises(QMPError):
            self.run_qmp([b'{"error": {"class": "GenericError", "desc": "no"}}\n'])

    def test_malformed_reply_raises(self):
        for bad in (b"{not json\n", b"[1, 2]\n", b"\n"):
            with self.assertRaises(QMPError):
                self.run_qmp([bad])

    def test_closed_connection_raises(self):
        with self.assertRaises(QMPError):
            self.run_qmp([])

    def test_dead_socket_raises(self):
        with self.assertRaises(QMPError):
            QMP("/nonexistent/qmp.sock").connect(wait=0.1)

    def test_pci_memory_bars(self):
        reply = [{"bus": 0, "devices": [{
            "bus": 0, "slot": 2, "function": 0,
            "regions": [{"bar": 0, "type": "io", "address": 0xc000, "size": 256},
                        {"bar": 2, "type": "memory", "address": 0x80000000,
                         "size": 1 << 30, "prefetch": True, "mem_type_64": True}]}]}]
        self.assertEqual(pci_memory_bars(reply),
                         {("0000:00:02.0", 2): (0x80000000, 1 << 30)})


def load_bench_report():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                        "bench-report")
    loader = importlib.machinery.SourceFileLoader("bench_report", path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(mod)
    return mod


def bench_result(**medians):
    """A production deb-686-pae result with these cells: "workload/engine/cpus": (metric, v)."""
    cells = {k: {m: {"median": v, "min": v, "max": v, "n": 1}} for k, (m, v) in medians.items()}
    return {"meta": {"production": True, "clears_on_unmap": True, "vcpus": 4},
            "incorrect": [], "stub": None,
            "verified": {e: {"passes": 1, "pages": 64, "misdirected": 0, "unchecked": 0}
                         for e in ("pvmap", "pvmap_range", "mainline_local")},
            "stale": {"pvmap": {"probes": 200, "usable": 0, "fraction": 0.0},
                      "pvmap_range": {"probes": 200, "usable": 0, "fraction": 0.0}},
            "cells": cells}


class BenchTargets(unittest.TestCase):
    """results.json's targets: the seven the issue names, computed from a production run."""

    NAMES = ["overhead_vs_mainline_i386", "range16_vs_mainline_i386", "seq_vs_limit_i386",
             "overhead_vs_ioremap_i386", "stale_pvmap", "misdirected_pvmap",
             "tlb_ipis_pvmap_4cpu"]

    def setUp(self):
        self.br = load_bench_report()
        self.res = bench_result(**{
            "overhead/pvmap/1": ("overhead_us", 0.4), "overhead/mainline_local/1":
            ("overhead_us", 1.0), "overhead/pte_floor/1": ("overhead_us", 0.2),
            "overhead/ioremap/1": ("overhead_us", 6.0),
            "range16/pvmap_range/1": ("us_per_op", 7.0),
            "range16/mainline_local/1": ("us_per_op", 10.0),
            "range16/permanent/1": ("us_per_op", 6.0),
            "seq1m/pvmap_range/1": ("mb_s", 95.0), "seq1m/permanent/1": ("mb_s", 100.0),
            "page/pvmap/4": ("tlb_per_1000", 0.0)})

    def test_seven_targets_computed(self):
        t = {x["name"]: x for x in self.br.targets({"deb-686-pae": self.res})}
        self.assertEqual(list(t), self.NAMES)
        want = {"overhead_vs_mainline_i386": 0.4, "range16_vs_mainline_i386": 0.7,
                "seq_vs_limit_i386": 0.95, "overhead_vs_ioremap_i386": 15.0,
                "stale_pvmap": 0, "misdirected_pvmap": 0, "tlb_ipis_pvmap_4cpu": 0.0}
        for name, v in want.items():
            self.assertAlmostEqual(t[name]["value"], v, msg=name)
            self.assertTrue(t[name]["met"], name)
        self.assertAlmostEqual(t["overhead_vs_mainline_i386"]["pvmap_vs_floor"], 2.0)

    def test_missed_and_incorrect(self):
        self.res["cells"]["overhead/pvmap/1"]["overhead_us"]["median"] = 0.9
        self.res["stale"]["pvmap"]["usable"] = 3
        t = {x["name"]: x for x in self.br.targets({"deb-686-pae": self.res})}
        self.assertFalse(t["overhead_vs_mainline_i386"]["met"])
        self.assertEqual(t["stale_pvmap"]["value"], 3)
        self.assertFalse(t["stale_pvmap"]["met"])
        # an engine that wrote the wrong page is never ranked
        self.res["incorrect"] = ["pvmap"]
        t = {x["name"]: x for x in self.br.targets({"deb-686-pae": self.res})}
        self.assertIsNone(t["overhead_vs_mainline_i386"]["value"])
        self.assertFalse(t["overhead_vs_mainline_i386"]["met"])

    def test_no_production_run_measures_nothing(self):
        self.res["meta"]["production"] = False
        t = self.br.targets({"deb-686-pae": self.res})
        self.assertEqual([x["name"] for x in t], self.NAMES)
        self.assertTrue(all(x["value"] is None and not x["met"] for x in t))


class KTAPResult(unittest.TextTestResult):
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


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    print(f"KTAP version 1\n# Subtest: host-tools\n1..{suite.countTestCases()}")
    result = unittest.TextTestRunner(stream=open(os.devnull, "w"),
                                     resultclass=KTAPResult).run(suite)
    fail = len(result.failures) + len(result.errors)
    print(f"# Totals: pass:{result.testsRun - fail} fail:{fail} skip:0 "
          f"total:{result.testsRun}")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
