# SPDX-License-Identifier: GPL-2.0
"""Find kernel splats in a guest's console log (the patterns syzkaller looks for)."""

import re

# A test run whose log has any of these fails, even when every test passed.
SPLATS = [
    ("BUG", re.compile(r"\bBUG:")),
    ("WARNING", re.compile(r"\bWARNING:")),
    ("Oops", re.compile(r"\bOops\b")),
    ("panic", re.compile(r"Kernel panic")),
    ("general protection fault", re.compile(r"general protection fault")),
    # lockdep's reports (most also carry a WARNING: header); not its boot banner
    ("lockdep", re.compile(r"possible recursive locking|possible circular locking|"
                           r"inconsistent lock state|possible irq lock inversion|"
                           r"lockdep is turned off|DEBUG_LOCKS_WARN_ON|"
                           r"bad unlock balance|held lock freed|suspicious RCU usage")),
    ("sleep in atomic", re.compile(r"sleeping function called from invalid context|"
                                   r"scheduling while atomic")),
    ("call trace", re.compile(r"Call Trace:")),
    ("UBSAN", re.compile(r"UBSAN:")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks")),
]


def splats(lines):
    """[(kind, line)] for every console line that reports a kernel problem."""
    found = []
    for line in lines:
        for kind, pattern in SPLATS:
            if pattern.search(line):
                found.append((kind, line.rstrip()))
                break
    return found
