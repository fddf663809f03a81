#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of pvmaplib.ktap, the one reader of results: every document parsed
once into results, diagnostics and attributes, counted from its results,
the host halves' verdicts folded in, printed back. Half of them run on real
transcripts (tests/unit/ktap/: guests' consoles from run-guest's logs, trimmed
to a few lines before their first document, i386-smp4's to its first 60 kernel
messages, and make check steps' output)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "host"))
from pvmaplib import ktap  # noqa: E402

TRANSCRIPTS = os.path.join(HERE, "ktap")


def transcript(name):
    with open(os.path.join(TRANSCRIPTS, name), errors="replace") as f:
        return f.read().splitlines()


def counts(lines):
    c, _ = ktap.counts(lines)
    return c.passed, c.failed, c.skipped


GOOD = ["[    1.0] boot", "KTAP version 1", "1..2", "ok 1 a", "# note", "not ok 2 b",
        "# Totals: pass:1 fail:1 skip:0 total:2"]

# What the kselftest harness prints (tests/guest/harness.h), a kernel message inside
HARNESS = ["[    1.0] boot", "TAP version 13", "1..5", "# Starting 5 tests from 2 test cases.",
           "#  RUN           global.module_loaded ...", "#            OK  global.module_loaded",
           "ok 1 global.module_loaded", "#  RUN           global.soak ...",
           "#      SKIP      only in make soak", "#            OK  global.soak",
           "ok 2 global.soak # SKIP only in make soak",
           "[    2.0] pvmap: a kernel message",
           "ok 3 global.mainline_nohighmem_flushes # XFAIL expected: the known upstream bug",
           "# kernel.c:10:rw_bounds:short read", "not ok 4 global.rw_bounds",
           "ok 5 alone.pv_daemon_stalled",
           "# FAILED: 4 / 5 tests passed.",
           "# Totals: pass:2 fail:1 xfail:1 xpass:0 skip:1 error:0"]


class Parse(unittest.TestCase):
    def test_complete_document(self):
        d = ktap.parse(GOOD)[0]
        self.assertTrue(d.complete())
        self.assertEqual(counts(GOOD), (1, 1, 0))
        self.assertEqual(d.results[1].diag, ["# note"])

    def test_missing_result_is_incomplete(self):
        self.assertFalse(ktap.parse(GOOD[:4])[0].complete())

    def test_missing_plan_is_incomplete(self):
        self.assertFalse(ktap.parse([ln for ln in GOOD if ln != "1..2"])[0].complete())

    def test_no_version_line_is_no_document(self):
        self.assertEqual(ktap.parse(GOOD[2:]), [])

    def test_every_document_counted(self):
        lines = GOOD + ["KTAP version 1", "1..1", "ok 1 c # SKIP no",
                        "# Totals: pass:0 fail:0 skip:1 total:1"]
        self.assertEqual([len(d.results) for d in ktap.parse(lines)], [2, 1])
        self.assertEqual(counts(lines), (1, 1, 1))

    def test_cut_short_counts_one_failure_more(self):
        self.assertEqual(counts(GOOD[:4]), (1, 1, 0))

    def test_totals_beyond_the_results_are_kept(self):
        # a producer that counted a failure it printed no result for
        lines = GOOD[:-1] + ["# Totals: pass:1 fail:3 skip:0 total:4"]
        self.assertEqual(counts(lines), (1, 3, 0))

    def test_writer_round_trip(self):
        w = ktap.Writer("host")
        w.add("a", True)
        w.add("b", False, "why")
        w.skip("c", "no such facility")
        w.attr("pvmap-guest", name="g", paging="3")
        d = ktap.parse(w.lines())[0]
        self.assertEqual(d.name, "host")
        self.assertEqual(d.attrs, {"pvmap-guest": {"name": "g", "paging": "3"}})
        self.assertEqual([r.status for r in d.results], ["pass", "fail", "skip"])
        self.assertEqual(d.render(), w.lines())


class Harness(unittest.TestCase):
    def test_names_lose_the_fixture(self):
        d = ktap.parse(HARNESS)[0]
        self.assertTrue(d.complete())
        self.assertEqual([r.name for r in d.results],
                         ["module_loaded", "soak", "mainline_nohighmem_flushes", "rw_bounds",
                          "pv_daemon_stalled"])

    def test_skip_xfail_and_failure(self):
        d = ktap.parse(HARNESS)[0]
        self.assertEqual([r.status for r in d.results], ["pass", "skip", "xfail", "fail", "pass"])
        self.assertEqual(counts(HARNESS), (3, 1, 1))
        self.assertEqual((d.results[1].directive, d.results[1].reason), ("SKIP", "only in make soak"))

    def test_xpass_is_a_failure(self):
        self.assertEqual(counts(["TAP version 13", "1..1", "ok 1 global.a # XPASS unknown",
                                 "# Totals: pass:0 fail:0 xfail:0 xpass:1 skip:0 error:0"]),
                         (0, 1, 0))

    def test_render_has_plain_names_and_ktap_totals(self):
        out = ktap.parse(HARNESS)[0].render("guest-i386")
        self.assertEqual(out[:3], ["KTAP version 1", "# Subtest: guest-i386", "1..5"])
        self.assertIn("ok 2 soak # SKIP only in make soak", out)
        self.assertIn("ok 3 mainline_nohighmem_flushes # XFAIL expected: the known upstream bug",
                      out)
        self.assertIn("not ok 4 rw_bounds", out)
        self.assertNotIn("[    2.0] pvmap: a kernel message", out)
        self.assertEqual(out[-1], "# Totals: pass:3 fail:1 skip:1 total:5")
        self.assertEqual(counts(out), (3, 1, 1))

    def test_cut_short(self):
        out = ktap.parse(HARNESS[:7])[0].render("guest-i386")
        self.assertIn("# Totals: pass:1 fail:1 skip:0 total:2", out)


class Join(unittest.TestCase):
    """A suite of several programs, one harness document each, is one document."""

    def test_renumbered_and_summed(self):
        second = ["TAP version 13", "1..2", "ok 1 global.x", "not ok 2 global.y",
                  "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0"]
        d = ktap.join(ktap.parse(HARNESS + second))
        self.assertEqual([r.number for r in d.results], [1, 2, 3, 4, 5, 6, 7])
        self.assertEqual([r.name for r in d.results][5:], ["x", "y"])
        self.assertTrue(d.complete())
        out = d.render("guest-x")
        self.assertEqual(out[2], "1..7")
        self.assertEqual(out[-1], "# Totals: pass:4 fail:2 skip:1 total:7")
        self.assertEqual(counts(out), (4, 2, 1))

    def test_one_cut_short_counts_once(self):
        second = ["TAP version 13", "1..2", "ok 1 global.x"]
        d = ktap.join(ktap.parse(HARNESS + second))
        self.assertFalse(d.complete())
        self.assertEqual((d.counts().passed, d.counts().failed), (4, 2))
        self.assertIn("# (guest stopped before its totals: counted as one failure)",
                      d.render("g"))

    def test_a_program_missing_is_incomplete(self):
        # the suite says how many programs ran; one fewer document is not whole
        second = ["TAP version 13", "1..1", "ok 1 global.x",
                  "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"]
        whole = HARNESS + second + ["# pvmap-suite: features=2"]
        self.assertTrue(ktap.join(ktap.parse(whole)).complete())
        short = HARNESS + ["# pvmap-suite: features=2"]
        self.assertFalse(ktap.join(ktap.parse(short)).complete())

    def test_numbering_checked_in_each_part(self):
        # a result twice in one program and missing from another: not complete
        a = ["TAP version 13", "1..2", "ok 1 global.x", "ok 2 global.y", "ok 3 global.z",
             "# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0"]
        b = ["TAP version 13", "1..2", "ok 1 global.w",
             "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"]
        self.assertFalse(ktap.join(ktap.parse(a + b)).complete())

    def test_a_second_totals_line_is_dropped(self):
        lines = GOOD[:-1] + ["# Totals: pass:1 fail:2 skip:0 total:3",
                             "# Totals: pass:1 fail:0 skip:0 total:1"]
        d = ktap.parse(lines)[0]
        self.assertEqual(counts(lines), (1, 2, 0))
        self.assertEqual(sum(ln.startswith("# Totals:") for ln in d.render()), 1)

    def test_one_document_is_itself(self):
        docs = ktap.parse(HARNESS)
        self.assertIs(ktap.join(docs), docs[0])


class MergeHost(unittest.TestCase):
    def test_host_failure_fails_a_pass_and_an_xfail(self):
        d = ktap.parse(HARNESS)[0]
        merged = d.merge_host({"module_loaded": ("fail", ["host: x: FAILED"]),
                               "mainline_nohighmem_flushes": ("fail", []),
                               "pv_daemon_stalled": ("pass", ["host: y: ok"])})
        self.assertEqual(merged, {"module_loaded", "mainline_nohighmem_flushes",
                                  "pv_daemon_stalled"})
        out = d.render("g")
        self.assertIn("not ok 1 module_loaded", out)
        self.assertEqual(out[out.index("not ok 1 module_loaded") - 1], "# host: x: FAILED")
        self.assertIn("not ok 3 mainline_nohighmem_flushes", out)
        self.assertIn("ok 5 pv_daemon_stalled", out)
        self.assertEqual(d.counts().failed, 3)

    def test_nothing_checked_fails_a_pass_not_a_skip(self):
        d = ktap.parse(HARNESS)[0]
        d.merge_host({"module_loaded": ("none", ["host: could not check"]),
                      "soak": ("none", ["host: could not check"])})
        out = d.render("g")
        self.assertIn("not ok 1 module_loaded", out)
        self.assertIn("ok 2 soak # SKIP only in make soak", out)
        self.assertEqual(out.count("# host: could not check"), 1)


class Transcripts(unittest.TestCase):
    """Real output: each document found, counted as make check counted it."""

    GUESTS = {"guest-i386-smp4.log": (69, (54, 0, 15)), "guest-xen-dom0.log": (17, (17, 0, 0)),
              "guest-i386-drm.log": (13, (13, 0, 0)), "guest-alone-pv-unusable.log": (1, (1, 0, 0))}
    STEPS = {"step-dkms-guest.log": (4, (59, 0, 19)), "step-intree.log": (1, (2, 0, 0)),
             "step-kselftest.log": (1, (7, 0, 0)), "step-unittest.log": (1, (19, 0, 0))}

    def test_guest_consoles(self):
        for name, (n, want) in self.GUESTS.items():
            with self.subTest(name):
                lines = transcript(name)
                d = ktap.parse(lines)[0]
                self.assertTrue(d.complete())
                self.assertEqual(len(d.results), n)
                self.assertEqual(counts(lines), want)
                # printed back and read again: the same document
                out = d.render("guest-x")
                self.assertFalse([ln for ln in out if ln.startswith("[")])  # no kernel lines
                again = ktap.parse(out)[0]
                self.assertEqual(again.render("guest-x"), out)
                self.assertEqual(counts(out), want)

    def test_steps(self):
        for name, (docs, want) in self.STEPS.items():
            with self.subTest(name):
                c, n = ktap.counts(transcript(name))
                self.assertEqual((n, (c.passed, c.failed, c.skipped)), (docs, want))

    def test_guest_cut_short_anywhere(self):
        lines = transcript("guest-i386-smp4.log")
        for cut in range(0, len(lines), max(1, len(lines) // 40)):
            docs = ktap.parse(lines[:cut])
            if not docs:
                continue
            d = docs[0]
            finished = d.reported is not None
            self.assertEqual(d.counts().failed, 0 if finished else 1, cut)


if __name__ == "__main__":
    sys.exit(ktap.run_unittests(sys.modules[__name__], "ktap"))
