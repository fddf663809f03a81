#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/matrix.list and its reader (pvmaplib/guests.py): the one
file that says which guests run which tests in make check, check-full, soak
and bench."""

import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import guests, ktap  # noqa: E402


def read(text):
    with tempfile.NamedTemporaryFile("w", suffix=".list") as f:
        f.write(text)
        f.flush()
        return guests.read_matrix(f.name)


class Matrix(unittest.TestCase):
    def test_every_guest_boots_a_listed_kernel(self):
        for name, (kernel, _) in guests.GUESTS.items():
            self.assertIn(kernel, guests.KERNELS, name)

    def test_check_runs_each_check_guest_whole(self):
        whole = [r[1] for r in guests.runs("guest") if r[3] == "*"]
        self.assertEqual(whole[:8], ["i386-smp4", "deb-686-pae", "deb-amd64", "deb-amd64-whole",
                                     "i386-nohighmem-6.12-fixed", "i386-nohighmem-pae-6.12-fixed",
                                     "deb-686-pae-pv", "i386-drm"])

    def test_labels_name_one_log_each(self):
        steps = [guests.run_argv(r) for t in ("lint", "unit", "guest", "full", "soak", "bench")
                 for r in guests.runs(t) if r[3] != "cmd" and r[0] != "bench"]
        logs = [a[a.index("--log") + 1] for a in steps]
        self.assertEqual(len(logs), len(set(logs)))

    def test_a_row_and_continuations(self):
        g, runs = read("set A = --x 1 \\ \r\n\t--y 2\n[guests]\n# c\n"
                       "one | i386 | check | $A\ntwo | deb-amd64 | - | --list a,\\\n  b\n"
                       "[runs]\nguest | @suites\nguest | two | two-b | t1,t2 | --z\n"
                       "unit | - | - | cmd | $PY tests/unit/test_screen.py\n")
        self.assertEqual(g["one"], ("i386", ["--x", "1", "--y", "2"], "check"))
        self.assertEqual(g["two"][1], ["--list", "a,b"])
        self.assertEqual([r[1:4] for r in runs], [("one", "one", "*"), ("two", "two-b", "t1,t2"),
                                                  ("-", "-", "cmd")])
        argv = guests.run_argv(runs[1])
        self.assertEqual(argv[1:8], ["--guest", "two", "--name", "two-b", "--test", "t1,t2", "--z"])
        self.assertEqual(argv[-1], os.path.join(TOP, "build", "logs", "two-b.log"))
        self.assertEqual(guests.run_argv(runs[2]),
                         [sys.executable, os.path.join(TOP, "tests", "unit", "test_screen.py")])

    def test_mistakes_are_errors(self):
        bad = {"an unknown $NAME": "[guests]\none | i386 | check | $NOPE\n",
               "an unknown kernel": "[guests]\none | i387 | check |\n",
               "a guest twice": "[guests]\none | i386 | - |\none | i386 | - |\n",
               "an unknown suite": "[guests]\none | i386 | nightly |\n",
               "a run of no guest": "[guests]\n[runs]\nguest | nobody | - | * |\n",
               "a label twice": "[guests]\none | i386 | - |\n[runs]\nguest | one | x | * |\n"
                                "guest | one | x | a |\n",
               "a cmd row with a guest": "[guests]\none | i386 | - |\n[runs]\n"
                                         "unit | one | - | cmd | ls\n",
               "a short row": "[guests]\none | i386\n",
               "a row before a section": "one | i386 | - |\n",
               "@suites elsewhere": "[runs]\nsoak | @suites\n",
               "the file ending in a \\": "[guests]\none | i386 | - | --x \\\n",
               "a comment inside a continued row": "[guests]\none | i386 | - | --x \\\n# no\n"}
        for what, text in bad.items():
            with self.subTest(what):
                with self.assertRaises(guests.MatrixError):
                    read(text)

    def test_makefile_bench_reads_the_bench_rows(self):
        out = subprocess.run(["make", "-s", "-p", "-n", "-C", TOP, "help"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        line = next(ln for ln in out.splitlines() if ln.startswith("BENCH_CONFIGS := "))
        self.assertEqual(line.split(":= ")[1].split(), [r[2] for r in guests.runs("bench")])


if __name__ == "__main__":
    sys.exit(ktap.run_unittests(sys.modules[__name__], "matrix"))
