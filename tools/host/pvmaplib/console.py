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

# Xen's own reports, on the serial console it shares with its PV dom0 (run-guest
# --xen): its lines are "(XEN) ..." and are judged by these, not by the kernel's
# patterns; the dom0 kernel's lines by the kernel's.
XEN_SPLATS = [
    ("Xen BUG", re.compile(r"Xen BUG at")),
    ("Xen WARN", re.compile(r"Xen WARN at")),
    ("Xen panic", re.compile(r"Panic on CPU|FATAL TRAP|Assertion '.*' failed")),
    ("Xen call trace", re.compile(r"Xen call trace:")),
    ("domain crash", re.compile(r"domain_crash|Domain \d+ \(vcpu#\d+\) crashed|"
                                r"Hardware Dom0 crashed")),
]
_XEN_LINE = re.compile(r"^\(XEN\) ")


def xen_line(line):
    """Whether a console line is Xen's own, not its dom0 kernel's."""
    return bool(_XEN_LINE.match(line))


def splats(lines):
    """[(kind, line)] for every console line that reports a kernel (or Xen) problem."""
    found = []
    for line in lines:
        for kind, pattern in XEN_SPLATS if xen_line(line) else SPLATS:
            if pattern.search(line):
                found.append((kind, line.rstrip()))
                break
    return found


_CLOCKSOURCE = re.compile(r"clocksource: Switched to clocksource (\S+)")
# The tick's own clocks: timers then run off the tick, and a vCPU spinning with
# interrupts off stops time when it is the one that advances jiffies.
TICK_CLOCKSOURCES = ("jiffies", "refined-jiffies")


def final_clocksource(lines):
    """The clocksource the guest's kernel ended on: the last it switched to
    (under load TCG can make the TSC look unstable, and the watchdog then
    switches to the next best), or "jiffies" when it never switched from its
    boot default."""
    found = [m.group(1) for m in map(_CLOCKSOURCE.search, lines) if m]
    return found[-1] if found else "jiffies"


_INIT_STARTED = re.compile(r"Run \S+ as init process|^[^\[]")


class InitWatch:
    """Whether the guest's kernel has started init, fed the console line by line:
    a line that is no kernel message ("[    1.23] ...") is user space's. Under Xen
    (run-guest --xen) Xen's own lines come first ("(XEN) ...", and its dom0
    builder's unprefixed "about to get started..."), and more may come later:
    only a line after the dom0 kernel's first message, and not Xen's, counts."""

    def __init__(self, xen=False):
        self.kernel = not xen  # the guest kernel's first message seen
        self.xen = xen

    def started(self, line):
        if not self.kernel:
            self.kernel = line.startswith("[")
            return False
        if self.xen and xen_line(line):
            return False
        return bool(_INIT_STARTED.search(line))


# EFLAGS bits an x86 CPU defines (bit 1 always reads 1); the rest are reserved, always 0.
EFLAGS_DEFINED = 0x3F7FD7
_DOUBLE_FAULT = re.compile(r"traps: PANIC: double fault")
_EFLAGS = re.compile(r"EFLAGS: ([0-9a-f]{8})")


def emulator_fault(lines):
    """QEMU 7.2's TCG fault on i386 guests, or None: a double fault whose saved
    EFLAGS has reserved bits set, which no CPU can save. tools/host/tcg-cmpxchg8b-repro
    reproduces it with pvmap not loaded (after SLUB's unlocked cmpxchg8b)."""
    seen = False
    for line in lines:
        if _DOUBLE_FAULT.search(line):
            seen = True
            continue
        m = _EFLAGS.search(line) if seen else None
        if m and int(m.group(1), 16) & ~EFLAGS_DEFINED & 0xFFFFFFFF:
            return f"double fault with impossible EFLAGS {m.group(1)}"
    return None
