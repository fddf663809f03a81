#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/guest/result.h, the guest suites' words on the kselftest
harness: a program of one test per way a test ends (tests/unit/result_vocab.c,
built by make unit), run as the guest's init runs the suites (stderr on stdout),
read with pvmaplib.ktap.

    tests/unit/test_result_vocab.py BUILD/unit/result_vocab
"""

import os
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import ktap  # noqa: E402

PROGRAM = None
RUN = None


def run():
    global RUN
    if RUN is None:
        res = subprocess.run([PROGRAM], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=60, check=False)
        docs = ktap.parse(res.stdout.splitlines())
        RUN = (res.returncode, res.stdout, docs[0] if docs else None)
    return RUN


def result(name):
    _, _, doc = run()
    found = [r for r in doc.results if r.name == name]
    if len(found) != 1:
        raise AssertionError(f"{name}: {len(found)} results")
    return found[0]


def body(name):
    """What the test printed, from its RUN line to its result."""
    _, out, _ = run()
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.endswith(f"RUN           pvmap.{name} ..."))
    end = next(i for i in range(start, len(lines)) if ktap.result(lines[i]))
    return lines[start:end]


class ResultVocab(unittest.TestCase):
    def test_document_complete_and_failing(self):
        code, _, doc = run()
        self.assertTrue(doc.complete())
        self.assertEqual(doc.counts(), ktap.Counts(passed=3, failed=2, skipped=1))
        self.assertNotEqual(code, 0)

    def test_fixture_pvmap_names_and_sets_up(self):
        self.assertEqual(result("passes").word, "pvmap.passes")
        self.assertIn("# test_setup ran", body("passes"))

    def test_skip_reports_its_reason_and_returns(self):
        r = result("skips")
        self.assertEqual((r.status, r.reason), ("skip", "nothing to test here"))
        self.assertNotIn("# after SKIP", body("skips"))

    def test_xfail_is_an_expected_failure_with_its_reason(self):
        r = result("xfails_at_run_time")
        self.assertEqual((r.status, r.directive, r.reason), ("xfail", "XFAIL", "the known bug"))
        self.assertNotIn("# after XFAIL", body("xfails_at_run_time"))

    def test_expect_fails_and_goes_on(self):
        self.assertEqual(result("expect_goes_on").status, "fail")
        text = body("expect_goes_on")
        self.assertTrue(any(ln.endswith(":expect_goes_on:one is not two") for ln in text), text)
        self.assertIn("# after EXPECT", text)

    def test_assert_fails_and_stops(self):
        self.assertEqual(result("assert_stops").status, "fail")
        text = body("assert_stops")
        self.assertTrue(any("Expected 1 (1) == 2 (2)" in ln for ln in text), text)
        self.assertTrue(any(ln.endswith(":assert_stops:one is still not two") for ln in text),
                        text)
        self.assertNotIn("# after ASSERT", text)

    def test_teardown_flushes_what_stdio_holds(self):
        self.assertEqual(result("buffered_line_flushed").status, "pass")
        # the harness's next line follows it on the same line
        self.assertTrue(any(ln.startswith("# buffered at the end")
                            for ln in body("buffered_line_flushed")), body("buffered_line_flushed"))


if __name__ == "__main__":
    PROGRAM = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(TOP, "build", "unit",
                                                                      "result_vocab")
    sys.exit(ktap.run_unittests(sys.modules[__name__], "result_vocab"))
