#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pvmap-audit against fake QMP servers, printed as KTAP.

Each fake guest is a Unix socket in a temporary directory, answering the
commands pvmap-audit sends (info pci, info cpus, info registers, info tlb,
xp) the way QEMU 7.2 does: `info tlb` is QEMU's walk (target/i386/monitor.c,
tlb_info_32/pae32/la48/la57) of page tables built here in a sparse
guest-physical memory, which `xp` reads. Some guests are hostile: what they
send is quoted by JSON only when the test says so.

  test_audit.py [--audit PROGRAM]   (default: build/unit/pvmap-audit-san)

The program is run from its command line only, so the same tests judge any
build of pvmap-audit, an older one included.
"""

import argparse
import os
import re
import sys

from audit_guest_model import ADDR, GiB, KiB, MiB, P_ACC, P_PRESENT, P_RW, RAM, Guest, \
    info_pci, ram_holds
from audit_harness import FORBIDDEN_SENT, Checks, Run, diff, kinds, qmp_line
from audit_real_qemu import test_pat_bit, test_real_qemu_paging

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import ktap  # noqa: E402


# --- audit_never_drops -----------------------------------------------------------------

def test_never_drops(audit, c):
    """100,000 user mappings of the aperture and one stale kernel mapping among them."""
    r = Run(audit)
    try:
        ap = 0x800000000
        g = Guest("4level", [(ap, GiB)], ncpus=3)
        for i in range(64):  # the direct map: RAM, no aperture
            g.kernel(0xffff888000000000 + i * 2 * MiB, i * 2 * MiB, 2 * MiB, flags="GDAW")
        stale_va = 0xffffc90000400000
        g.kernel(stale_va, ap + 0x5000, 4 * KiB, flags="GDAW")
        for i in range(16):  # pvmap's, live
            g.kernel(0xffffc90000800000 + i * 4096, ap + 0x100000 + i * 4096, 4 * KiB,
                     flags="GDACW")
        n = 100000
        base = 0x7f0000000000
        for i in range(n):  # one process's 16 MiB framebuffer, mapped six times over
            g.user(0, base + i * 4096, ap + (i % 4096) * 4096, 4 * KiB, flags="DATW")
        sock = r.guest(g)
        live = r.file("live", "ffffc90000800000 16 wc\n")
        res = r.run("--json", "--live", live, sock)
        doc = res.json()
        gd = doc["guests"][0] if doc and doc.get("guests") else {}
        maps = gd.get("mappings", [])
        users = {m["va"] for m in maps if m["kind"] == "user"}
        stale = [m for m in maps if m["kind"] == "stale"]
        c.result(res, "exit 1: the stale mapping found among 100,000 user ones", 1)
        c.check("every mapping counted", len(maps) == n + 17 and gd.get("user") == n and
                gd.get("stale") == 1 and gd.get("live") == 16,
                f"{len(maps)} mappings listed (want {n + 17}); user {gd.get('user')}, "
                f"stale {gd.get('stale')}, live {gd.get('live')}")
        c.check("each user mapping listed once, at its own va",
                users == {base + i * 4096 for i in range(n)},
                f"{len(users)} distinct user vas")
        c.check("the stale one is the kernel's, on every vCPU",
                [(m["va"], m["vcpus"]) for m in stale] == [(stale_va, [0, 1, 2])],
                f"stale: {[(hex(m['va']), m['vcpus']) for m in stale][:3]}")
        c.notes.append(f"--json: {len(maps)} mappings, user {gd.get('user')}, stale "
                       f"{gd.get('stale')}, live {gd.get('live')}, exit {res.rc}, "
                       f"{res.seconds:.1f} s")
        res = r.run("--live", live, sock)
        c.result(res, "the text report names the stale va", 1, f"STALE: va {stale_va:#x}",
                 f"1 stale, 16 live (pvmap's), {n} user mapping(s)")
        # a bound that is hit is "could not check", never a shorter list
        res = r.run("--max-mappings", "50000", "--live", live, sock)
        c.result(res, "--max-mappings 50000: exit 2, could not check", 2,
                 "more than 50000 mappings")
    finally:
        r.close()


# --- audit_paging_modes ----------------------------------------------------------------

def mode_2level(r, c):
    """i386 2-level paging with PSE, VMSPLIT_2G (PAGE_OFFSET 0x80000000, inferred)."""
    g = Guest("2level", [(0xe0000000, 16 * MiB)])
    for k in range(32):  # the direct map: 128 MiB of RAM at PAGE_OFFSET, 4 MiB pages
        g.kernel(0x80000000 + k * 4 * MiB, k * 4 * MiB, 4 * MiB, flags="GDAW")
    g.kernel(0xa0000000, 0xd0000000, 4 * MiB, flags="GDAW")       # 1 MiB of it aperture
    g.kernel(0xa0400000, 0x1e0000000, 4 * MiB, flags="GDAW")      # PSE-36: above 4 GiB
    g.kernel(0x90000000, 0xe0000000, 4 * KiB, flags="GDACW")       # kernel, below 3 GiB
    g.kernel(0xc0000000, 0xe0002000, 4 * KiB, user=True, flags="DAW")  # U, but kernel half
    g.user(0, 0x40000000, 0xe0001000, 4 * KiB, flags="DAW")
    g.user(1, 0x50000000, 0xe0c00000, 4 * MiB, flags="DAW")       # hugetlb, 4 MiB
    res = r.run("--json", "--aperture", "0xd0300000:0x100000", r.guest(g, "2level.sock"))
    want = {0xa0000000: (4 * MiB, MiB, "stale"), 0x90000000: (4 * KiB, 4 * KiB, "stale"),
            0xc0000000: (4 * KiB, 4 * KiB, "stale"), 0x40000000: (4 * KiB, 4 * KiB, "user"),
            0x50000000: (4 * MiB, 4 * MiB, "user")}
    return res, want, {"paging": "2-level", "user_top": 0x80000000, "split": "direct map"}


def mode_pae(r, c):
    """i386 PAE, VMSPLIT_3G_OPT (PAGE_OFFSET 0xb0000000), given: no direct map to infer it from."""
    g = Guest("pae", [(0xe0000000, 16 * MiB)])
    g.kernel(0xf8000000, 0xd0000000, 2 * MiB, flags="GDAW")        # 512 KiB of it aperture
    g.kernel(0xb8000000, 0xe0000000, 4 * KiB, flags="GDACW")       # kernel, below 3 GiB
    g.kernel(0xf8400000, 0x100000000, 4 * KiB, flags="GDAW")       # above 4 GiB, no aperture
    g.user(0, 0xa0000000, 0xe0001000, 4 * KiB, flags="DAW")        # user, above 1 GiB
    g.user(1, 0x60000000, 0xe0200000, 2 * MiB, flags="DAW")        # THP
    sock = r.guest(g, "pae.sock")
    res = r.run("--json", "--aperture", "0xd0100000:0x80000", "--page-offset", "0xb0000000", sock)
    want = {0xf8000000: (2 * MiB, 512 * KiB, "stale"), 0xb8000000: (4 * KiB, 4 * KiB, "stale"),
            0xa0000000: (4 * KiB, 4 * KiB, "user"), 0x60000000: (2 * MiB, 2 * MiB, "user")}
    # without --page-offset nothing tells whether 0xa0000000 is user space: could not check
    un = r.run("--aperture", "0xd0100000:0x80000", sock)
    c.result(un, "PAE without PAGE_OFFSET (none given, no direct map): exit 2", 2,
             "PAGE_OFFSET")
    return res, want, {"paging": "PAE", "user_top": 0xb0000000, "split": "--page-offset"}


def mode_4level(r, c):
    """x86_64 4-level: 1 GiB and 2 MiB pages, some only their entries tell apart."""
    g = Guest("4level", [(0x800000000, GiB)])
    g.kernel(0xffff888100000000, 0x100000000, GiB, flags="GDAW")   # 1 GiB, 256 MiB aperture
    g.kernel(0xffffc90040000000, 0x140000000, 2 * MiB, flags="GDAW")  # 2 MiB; the next line says
    g.kernel(0xffffc90040200000, 0x1000, 4 * KiB, flags="GDAW")
    g.kernel(0xffffc90080000000, 0x180000000, 2 * MiB, flags="GDAW")  # 2 MiB; only xp says
    g.kernel(0x0000000000400000, 0x800001000, 4 * KiB, flags="DAW")   # kernel, user half (poke)
    for i in range(4):
        g.kernel(0xffffc90000800000 + i * 4096, 0x800100000 + i * 4096, 4 * KiB, flags="GDATW")
    g.user(0, 0x00007f0000000000, 0x800000000, 4 * KiB, flags="DAW")
    g.user(1, 0x00007f0000200000, 0x800200000, 2 * MiB, flags="DAW")  # THP
    live = r.file("live4", "ffffc90000800000 4 wc\n")
    res = r.run("--json", "--aperture", "0x120000000:0x10000000", "--aperture",
                "0x140100000:0x100000", "--aperture", "0x180000000:0x40000000", "--live", live,
                r.guest(g, "4level.sock"))
    want = {0xffff888100000000: (GiB, 256 * MiB, "stale"),
            0xffffc90040000000: (2 * MiB, MiB, "stale"),
            0xffffc90080000000: (2 * MiB, 2 * MiB, "stale"),
            0x400000: (4 * KiB, 4 * KiB, "stale"),
            0x00007f0000000000: (4 * KiB, 4 * KiB, "user"),
            0x00007f0000200000: (2 * MiB, 2 * MiB, "user")}
    want.update({0xffffc90000800000 + i * 4096: (4 * KiB, 4 * KiB, "live") for i in range(4)})
    return res, want, {"paging": "4-level", "user_top": 0x0000800000000000, "split": "4-level"}


def mode_5level(r, c):
    """x86_64 5-level (LA57): a kernel half from 0xff00000000000000, a 1 GiB page under PML5."""
    g = Guest("5level", [(0x800000000, GiB)])
    g.kernel(0xffa0000000400000, 0x800000000, 4 * KiB, flags="GDACW")  # vmalloc/ioremap space
    g.kernel(0xff11000100000000, 0x100000000, GiB, flags="GDAW")       # direct map, 1 GiB
    g.kernel(0xff20000000000000, 0x800002000, 4 * KiB, user=True, flags="DAW")  # U, kernel half
    g.user(0, 0x00ff000000000000, 0x800001000, 4 * KiB, flags="DAW")   # above 47 bits: user
    res = r.run("--json", "--aperture", "0x120000000:0x1000000", r.guest(g, "5level.sock"))
    want = {0xffa0000000400000: (4 * KiB, 4 * KiB, "stale"),
            0xff11000100000000: (GiB, 16 * MiB, "stale"),
            0xff20000000000000: (4 * KiB, 4 * KiB, "stale"),
            0x00ff000000000000: (4 * KiB, 4 * KiB, "user")}
    return res, want, {"paging": "5-level", "user_top": 0x0100000000000000, "split": "5-level"}


def mode_4level_pti(r, c):
    """x86_64 under PTI, every vCPU in user space: CR3 holds the user copy, which has no
    vmalloc mapping; the kernel's, 4 KiB below, has the stale one."""
    g = Guest("4level", [(0x800000000, GiB)], pti=True, cpl=3)
    g.kernel(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")    # vmalloc: stale
    g.kernel(0xffff888000000000, 0, 2 * MiB, flags="GDAW")              # the direct map
    for cpu in range(2):
        g.user(cpu, 0x00007f0000000000, 0x800000000, 4 * KiB, flags="DAW")
        g.user_only(cpu, 0xfffffe0000000000, 0x1000, 4 * KiB, flags="GDAW")  # entry area
    res = r.run("--json", r.guest(g, "4level-pti.sock"))
    want = {0xffffc90000400000: (4 * KiB, 4 * KiB, "stale"),
            0x00007f0000000000: (4 * KiB, 4 * KiB, "user")}
    doc = res.json()
    cpus = doc["guests"][0].get("cpus") if doc else None
    c.check("4level_pti: each vCPU audited in user mode, the kernel's table beside CR3's",
            cpus is not None and len(cpus) == 2 and
            all(x["cpl"] == 3 and x["pti"] and x["tables"] == [x["cr3"], x["cr3"] - 0x1000]
                for x in cpus), f"cpus {cpus}")
    return res, want, {"paging": "4-level", "user_top": 0x0000800000000000, "split": "4-level"}


def mode_pae_pti(r, c):
    """686-pae under PTI in user space: the user PDPT at CR3, the kernel's the page below;
    the kernel's vmalloc space (PDPTE 3) only in the kernel's."""
    g = Guest("pae", [(0xe0000000, 16 * MiB)], pti=True, cpl=3)
    g.kernel(0xf8000000, 0xe0003000, 4 * KiB, flags="GDAW")            # vmalloc: stale
    for k in range(4):                                                # the direct map
        g.kernel(0xc0000000 + k * 2 * MiB, k * 2 * MiB, 2 * MiB, flags="GDAW")
    for cpu in range(2):
        g.user(cpu, 0xa0000000, 0xe0001000, 4 * KiB, flags="DAW")
        g.user_only(cpu, 0xffc00000, 0x1000, 4 * KiB, flags="GDAW")   # entry area
    res = r.run("--json", r.guest(g, "pae-pti.sock"))
    want = {0xf8000000: (4 * KiB, 4 * KiB, "stale"), 0xa0000000: (4 * KiB, 4 * KiB, "user")}
    doc = res.json()
    cpus = doc["guests"][0].get("cpus") if doc else None
    c.check("pae_pti: each vCPU audited in user mode, the kernel's PDPT beside CR3's",
            cpus is not None and len(cpus) == 2 and all(x["pti"] for x in cpus), f"cpus {cpus}")
    return res, want, {"paging": "PAE", "user_top": 0xc0000000, "split": "direct map"}


def mode_4level_xen_pv(r, c):
    """A Xen PV guest (dom0): vCPU 0 in its kernel, vCPU 1 in user space with the user
    table Linux keeps apart (Xen's linear slot, 258, maps each table onto itself; no
    guest kernel entry but the vsyscall page's 511). The kernel's part is vCPU 0's."""
    def guest(user_vcpus):
        g = Guest("4level", [(0x800000000, GiB)], cpl=3)
        for cpu, t in enumerate(g.cpus):
            g.mem.write(t.root + 258 * 8, t.root | P_PRESENT | P_RW | P_ACC)
            if cpu in user_vcpus:
                t.map(0xffffffffff600000, 0x2000, 4 * KiB, flags="DA")       # vsyscall
            else:
                t.map(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")  # stale
                t.map(0xffff888000000000, 0, 2 * MiB, flags="GDAW")
            g.user(cpu, 0x00007f0000000000, 0x800000000, 4 * KiB, flags="DAW")
        return g
    res = r.run("--json", r.guest(guest({1}), "xen-pv.sock"))
    doc = res.json()
    cpus = doc["guests"][0].get("cpus") if doc else None
    c.check("4level_xen_pv: vCPU 1 seen in a user table only",
            cpus is not None and [x.get("xen_pv_user") for x in cpus] == [False, True],
            f"cpus {cpus}")
    every = r.run(r.guest(guest({0, 1}), "xen-pv-user.sock"))
    c.result(every, "4level_xen_pv: every vCPU in a user table: exit 2", 2, "Xen PV")
    want = {0xffffc90000400000: (4 * KiB, 4 * KiB, "stale"),
            0x00007f0000000000: (4 * KiB, 4 * KiB, "user")}
    return res, want, {"paging": "4-level", "user_top": 0x0000800000000000, "split": "4-level"}


def test_paging_modes(audit, c):
    r = Run(audit)
    try:
        for mode in (mode_2level, mode_pae, mode_4level, mode_5level, mode_4level_pti,
                     mode_pae_pti, mode_4level_xen_pv):
            name = mode.__name__[5:]
            res, want, layout = mode(r, c)
            doc = res.json()
            c.result(res, f"{name}: exit 1", 1)
            if not c.check(f"{name}: --json output", doc is not None, res.last()[-200:]):
                continue
            got = kinds(doc)
            c.check(f"{name}: each mapping at its size, its aperture bytes, user or kernel",
                    got == want, diff(got, want))
            g = doc["guests"][0]
            seen = {k: g.get(k) for k in layout}
            c.check(f"{name}: the layout", seen == layout, f"{seen}, want {layout}")
            c.notes.append(f"{name}: {len(got)} mappings listed, "
                           f"{sum(1 for va in got if got[va] == want.get(va))} of the "
                           f"{len(want)} expected; exit {res.rc}")
    finally:
        r.close()


# --- audit_hostile_qmp -----------------------------------------------------------------

HOSTILE = 'no "tlb" \\ here\x01\x1b[31m\x7f caf\u00e9 \U0001F600 \t\r\nend'


def tables(line):
    """A command that reads the page tables: `xp` of a table (or an old auditor's `info tlb`)."""
    return line is not None and (line == "info tlb" or line.startswith("xp /"))


def healthy():
    g = Guest("4level", [(0x800000000, GiB)])
    g.kernel(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")
    g.kernel(0xffff888000000000, 0, 2 * MiB, flags="GDAW")
    return g


def hostile_text(r, c):
    # 1. --json of hostile text: a socket named with a quote and a backslash, a QMP
    # error with escaped control characters and non-ASCII, raw bytes that are not UTF-8
    s1 = r.guest(healthy(), 'q"uo\\te.sock', hook=lambda ex, line, cpu: qmp_line(
        {"error": {"class": "GenericError", "desc": HOSTILE}}) if tables(line) else None)
    s2 = r.guest(healthy(), "raw.sock", hook=lambda ex, line, cpu:
                 b'{"error": {"class": "GenericError", "desc": "raw \xff\xfe\x80 caf\xc3\xa9 '
                 b'\x7f"}}\r\n' if line == "info pci" else None)
    s3 = r.guest(healthy(), "ok.sock")
    res = r.run("--json", s1, s2, s3)
    doc = res.json()
    c.result(res, "three guests, two hostile: exit 2", 2)
    if c.check("--json output parses as JSON", doc is not None,
               f"{res.out[:160]!r}... not JSON"):
        gs = doc.get("guests", [])
        errs = [gg.get("error") for gg in gs]
        c.check("the hostile text comes back exactly (quotes, backslash, control "
                "characters, U+00E9, U+1F600)",
                len(gs) == 3 and gs[0]["socket"] == s1 and errs[0] is not None and
                HOSTILE in errs[0], f"error {errs[0]!r}")
        c.check("bytes that are not UTF-8 are U+FFFD, UTF-8 is kept",
                len(errs) > 1 and errs[1] is not None and
                "raw \ufffd\ufffd\ufffd caf\u00e9 \x7f" in errs[1], f"error {errs[1:2]!r}")
        c.check("the healthy guest is still audited", len(gs) == 3 and
                gs[2].get("stale") == 1 and doc.get("failed") == 2,
                f"{[(gg.get('socket'), gg.get('stale'), gg.get('error')) for gg in gs]}")
    # the same without --json: no raw control character reaches the terminal
    res = r.run(s1)
    c.result(res, "text report of the hostile error", 2)
    c.check("no raw control characters in the text report",
            not any(ch in res.text for ch in "\x01\x1b\x7f"), repr(res.text[-200:]))


def oversized_replies(r, c):
    # 2. a reply over the limit: a whole one, and one that never ends
    big = r.guest(healthy(), "big.sock", hook=lambda ex, line, cpu: qmp_line(
        {"return": "ffffc90000400000: 0000000800005000 -G-DA---W\r\n" * 30000})
        if tables(line) else None)
    res = r.run("--max-reply", "65536", big)
    c.result(res, "a 1.4 MB reply, --max-reply 65536: exit 2", 2, "over the limit")
    # adjacent tables read together, never in a reply over the limit: audited
    res = r.run("--max-reply", "65536", r.guest(healthy(), "small.sock"))
    c.result(res, "tables read together within --max-reply 65536: audited, exit 1", 1, "1 stale")
    endless = r.guest(healthy(), "endless.sock", hook=lambda ex, line, cpu: (
        b'{"return": "' + b"x" * (2 * MiB), "hang") if tables(line) else None)
    res = r.run("--max-reply", "65536", endless, timeout=30)
    c.result(res, "2 MiB with no end of line (the server waits), --max-reply 65536: "
             "exit 2 at once", 2, "over the limit")
    c.check("... within 10 s", res.rc != "timeout" and res.seconds < 10,
            f"{res.seconds:.1f} s")


def cut_short(r, c):
    # 3. cut short: the connection closes mid-reply; a reply whose text is cut mid-line
    g = healthy()
    cut = r.guest(healthy(), "cut.sock", hook=lambda ex, line, cpu: (
        qmp_line({"return": g.answer(line, cpu)})[:40], "close") if tables(line) else None)
    res = r.run(cut)
    c.result(res, "connection closed mid-reply: exit 2", 2, "cut short")
    short = r.guest(healthy(), "short.sock", hook=lambda ex, line, cpu: qmp_line(
        {"return": g.answer(line, cpu) + "ffffc90000400000: 0000000800"}) if tables(line)
        else None)
    res = r.run(short)
    c.result(res, "a page table's text cut mid-line: exit 2", 2, "did not answer 512 values")
    nul = r.guest(healthy(), "nul.sock", hook=lambda ex, line, cpu: (
        b'{"return": "0000000000000000: 0x0000000000000000 0x0000000000000000\\r\\n\\u0000'
        + g.answer(line, cpu).replace("\r\n", "\\r\\n").encode() + b'"}\r\n')
        if tables(line) else None)
    res = r.run(nul)
    c.result(res, "an escaped NUL hiding the rest of a page table: exit 2", 2, "malformed")
    shut = r.guest(healthy(), "shut.sock", hook=lambda ex, line, cpu: (
        qmp_line({"return": {}}), "shut") if ex == "qmp_capabilities" else None)
    res = r.run(shut)
    c.result(res, "the server stops reading after qmp_capabilities: exit 2, no SIGPIPE",
             2, "QMP write")
    gone = r.guest(healthy(), "gone.sock", hook=lambda ex, line, cpu: (
        b"", "close") if line == "info cpus" else None)
    res = r.run(gone)
    c.result(res, "the connection closes before a reply: exit 2", 2, "closed")
    slow = r.guest(healthy(), "slow.sock", hook=lambda ex, line, cpu: (
        b'{"return": "', "hang") if tables(line) else None)
    res = r.run("--timeout", "1", slow, timeout=30)
    c.result(res, "a reply that never ends, --timeout 1: exit 2", 2, "timed out")
    roots = {t.root for t in g.cpus}
    nomem = r.guest(healthy(), "nomem.sock", hook=lambda ex, line, cpu: qmp_line(
        {"return": f"{int(line.split()[-1], 0):016x}: Cannot access memory\r\n"})
        if line and line.startswith("xp /") and int(line.split()[-1], 0) not in roots else None)
    res = r.run(nomem)
    c.result(res, "a page table where QEMU says there is no memory: exit 2", 2,
             "no memory there")
    res = r.run("--max-tables", "2", r.guest(healthy(), "bound.sock"))
    c.result(res, "more page tables than --max-tables 2: exit 2", 2, "--max-tables")
    # QEMU's own walk (info tlb) that does not show what the tables hold
    lying = r.guest(healthy(), "lying.sock", hook=lambda ex, line, cpu: qmp_line(
        {"return": "".join(ln + "\r\n" for ln in g.answer(line, cpu).splitlines()
                           if not ln.startswith("ffffc90000400000"))})
        if line == "info tlb" else None)
    res = r.run("--cross-check", lying)
    c.result(res, "--cross-check, info tlb without the stale mapping: exit 2", 2,
             "--cross-check: the walk found 1 aperture mappings, `info tlb` 0")
    res = r.run("--cross-check", r.guest(healthy(), "honest.sock"))
    c.result(res, "--cross-check, info tlb as the tables are: exit 1", 1, "1 stale")
    notext = r.guest(healthy(), "notext.sock", hook=lambda ex, line, cpu: qmp_line(
        {"return": {}}) if tables(line) else None)
    res = r.run(notext)
    c.result(res, "a page table answered with no text: exit 2", 2)


def qemu_noise(r, c):
    # 4. what QEMU does send: events between replies, long lines; still audited
    noisy = r.guest(healthy(), "noisy.sock", hook=lambda ex, line, cpu: (
        qmp_line({"event": "RTC_CHANGE", "data": {"offset": 1},
                  "timestamp": {"seconds": 1, "microseconds": 2}}) +
        qmp_line({"return": info_pci((0x800000000, GiB)) + "  " + "y" * 300000 + "\r\n"}))
        if line == "info pci" else None)
    res = r.run(noisy)
    c.result(res, "events between replies and a 300 kB line: audited, exit 1", 1,
             "1 stale")


def bad_options(r, c):
    # 5. a command line it cannot use: exit 2, said, nothing leaked
    for args, needle in ((["--pat", "WB WC"], "bad --pat"), (["--max-tables", "0"], "bad"),
                         (["--bogus"], "unknown option"), ([], "usage")):
        res = r.run(*args)
        c.result(res, f"pvmap-audit {' '.join(args)}: exit 2", 2, needle)


def test_hostile_qmp(audit, c):
    r = Run(audit)
    try:
        for part in (hostile_text, oversized_replies, cut_short, qemu_noise, bad_options):
            part(r, c)
    finally:
        r.close()


# --- audit_reads_guest_ram_only -----------------------------------------------------------

def xp_reads(server):
    """(address, bytes) of each `xp` the auditor sent @server."""
    out = []
    for _, line, _ in server.commands:
        m = re.fullmatch(r"xp /(\d+)([gw])x (0x[0-9a-f]+|\d+)", line or "")
        if m:
            out.append((int(m.group(3), 0), int(m.group(1)) * (8 if m.group(2) == "g" else 4)))
    return out


def outside_ram(server):
    return [f"xp of {n} bytes at {a:#x}" for a, n in xp_reads(server) if not ram_holds(a, n)]


def point(g, va, table, level):
    """In every vCPU's tables, make the entry at @level (0: the top) on @va's path
    point at the page table at @table (the guest's to choose)."""
    for t in g.cpus:
        addr = t.root
        for i, shift in enumerate(t.shifts):
            at = addr + ((va >> shift) & 511) * 8
            if i == level:
                g.mem.write(at, table | P_PRESENT | P_RW | P_ACC)
                break
            addr = g.mem.read(at) & ADDR


def test_reads_guest_ram_only(audit, c):
    """`xp` of a device's MMIO is the device's read (ivshmem's IntrStatus clears on
    read): a page-table pointer into a BAR must not make the auditor read there. It
    reads guest RAM alone (the machine's RAM in `info mtree`, less every BAR), and says
    when a table is elsewhere: exit 2. Never `info mtree -f` (after it QEMU 7.2 never
    completes a later device_del): the fake servers fail any test that sends it."""
    r = Run(audit)
    try:
        ap = 0x800000000
        # a healthy guest: RAM learnt once, every table read in it
        sock = r.guest(healthy(), "healthy-ram.sock")
        res = r.run(sock)
        srv = r.servers[-1]
        c.result(res, "a healthy guest: exit 1", 1, "1 stale")
        asked = [ln for _, ln, _ in srv.commands if ln == "info mtree"]
        c.check("the guest's RAM asked for once (info mtree)", len(asked) == 1,
                f"asked {len(asked)} times")
        flat = [ln for _, ln, _ in srv.commands if ln and ln.startswith("info mtree") and
                ln != "info mtree"]
        c.check("never `info mtree -f`, nor any other kind of info mtree", not flat,
                f"sent {flat}")
        c.check("every xp in guest RAM", not outside_ram(srv) and xp_reads(srv),
                f"{outside_ram(srv)[:3]}; {len(xp_reads(srv))} reads")
        cases = (
            # (what, va whose path is redirected, the level of the entry, where it points)
            ("a PML4 entry pointing at the ivshmem BAR0's registers (MMIO)",
             0xffffc90000400000, 0, 0xfebf0000),
            ("a PD entry pointing into the ivshmem BAR2's shared memory (a device's RAM)",
             0xffffc90000400000, 2, ap + 0x200000),
            ("a PDPT entry pointing into the legacy VGA window", 0xffffc90000400000, 1, 0xa0000),
        )
        for what, va, level, where in cases:
            g = healthy()
            point(g, va, where, level)
            res = r.run(r.guest(g, f"bar-{level}.sock"))
            srv = r.servers[-1]
            c.result(res, f"{what}: exit 2", 2, f"page table at pa {where:#x} is not guest RAM")
            c.check(f"{what}: no xp outside guest RAM", not outside_ram(srv),
                    "; ".join(outside_ram(srv)[:3]))
        # adjacent page tables at RAM's end and past it: read together, the read would
        # leave RAM; the one past it is not read at all
        g = healthy()
        end = RAM[-1][1] + 1
        va = 0xffffc90040000000
        g.kernel(va, ap + 0x1000, 4 * KiB, flags="GDAW")
        for t in g.cpus:  # the PD of va: its first two PTs at RAM's last page and past it
            pd = t.root
            for shift in t.shifts[:2]:
                pd = g.mem.read(pd + ((va >> shift) & 511) * 8) & ADDR
            for i, pt in enumerate((end - 0x1000, end)):
                g.mem.write(pd + (((va >> 21) & 511) + i) * 8, pt | P_PRESENT | P_RW | P_ACC)
                g.mem.write(pt, (ap + 0x2000 + i * 0x1000) | P_PRESENT | P_RW)
        res = r.run(r.guest(g, "run-end.sock"))
        srv = r.servers[-1]
        c.result(res, "page tables at RAM's end and past it: exit 2", 2,
                 f"page table at pa {end:#x} is not guest RAM")
        c.check("... the one at RAM's end read, alone; none past it",
                not outside_ram(srv) and (end - 0x1000, 4096) in xp_reads(srv),
                f"{outside_ram(srv)[:3]}")
        # where RAM is cannot be told: could not check
        for what, reply in (
                ("no tree of \"memory\"", "address-space: I/O\r\n"
                 "  0000000000000000-000000000000ffff (prio 0, i/o): io\r\n\r\n"),
                ("a line of the tree that is not QEMU's",
                 info_mtree_text().replace("(prio 0, ram): alias ram-below-4g",
                                           "(prio 0, ram) alias ram-below-4g")),
                ("no machine RAM (ram-below-4g) in the tree",
                 info_mtree_text().replace("alias ram-below-4g", "alias ram-elsewhere")),
                ("the flat view (`info mtree -f`'s) for the tree", FLAT_VIEW),
                ("a BAR line that is not QEMU's", None)):
            hook = (lambda ex, line, cpu, reply=reply: qmp_line({"return": reply})
                    if line == "info mtree" else None) if reply else \
                (lambda ex, line, cpu: qmp_line({"return": info_pci((ap, GiB)).replace(
                    "BAR0: 32 bit memory at", "BAR0: 32 bit memory near")})
                 if line == "info pci" else None)
            res = r.run(r.guest(healthy(), f"mtree-{len(r.servers)}.sock", hook=hook))
            c.result(res, f"{what}: exit 2", 2)
            c.check(f"{what}: no page table read", not xp_reads(r.servers[-1]),
                    f"{len(xp_reads(r.servers[-1]))} xp")
        res = r.run(r.guest(healthy(), "mtree-error.sock", hook=lambda ex, line, cpu: qmp_line(
            {"error": {"class": "GenericError", "desc": "no mtree"}})
            if line == "info mtree" else None))
        c.result(res, "info mtree refused: exit 2", 2, "no mtree")
        c.notes.append(f"{len(cases) + 1} table pointers out of guest RAM: exit 2, none read")
    finally:
        r.close()


def info_mtree_text():
    return healthy().answer("info mtree", None)


# the flat view of QEMU 7.2's `info mtree -f` (mtree_print_flatview()): RAM ranges, no tree
FLAT_VIEW = ("FlatView #0\r\n AS \"memory\", root: system\r\n"
             " AS \"cpu-memory-0\", root: system\r\n Root memory region: system\r\n"
             "  0000000000000000-000000000009ffff (prio 0, ram): pc.ram\r\n"
             "  0000000000100000-00000000bfffffff (prio 0, ram): pc.ram @0000000000100000\r\n\r\n")


# --- audit_pti_unpaired ------------------------------------------------------------------

def pti_guest(unpaired):
    """A guest under PTI, every vCPU in user space, a stale vmalloc mapping in the kernel's
    tables alone; on each vCPU of @unpaired a user PGD entry is in the user copy and not yet
    in the kernel's (native_set_p4d() writes the user copy first)."""
    g = Guest("4level", [(0x800000000, GiB)], pti=True, cpl=3)
    g.kernel(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")    # vmalloc: stale
    g.kernel(0xffff888000000000, 0, 2 * MiB, flags="GDAW")              # the direct map
    for cpu in range(2):
        g.user(cpu, 0x00007f0000000000, 0x800000000, 4 * KiB, flags="DAW")
        g.user_only(cpu, 0xfffffe0000000000, 0x1000, 4 * KiB, flags="GDAW")  # entry area
        if cpu in unpaired:
            g.users[cpu].map(0x00007e0000000000, 0x800003000, 4 * KiB, user=True, flags="DAW",
                             nx=False)
    return g


def test_vgpu_window(audit, c):
    """virtio-gpu's host-visible window from info mtree: a mapping of a window page no
    live blob holds is stale, a process's or the kernel's (unbacked); a process's
    mapping of a live blob is its mmap; a kernel mapping of a live blob is judged by
    the live table as for any aperture."""
    win, blob = 0xd0000000, 0xd0100000
    r = Run(audit)
    try:
        g = Guest("pae", [(0xe0000000, 16 * MiB)], window=(win, 256 * MiB, [(blob, MiB)]))
        g.kernel(0xc0000000, 0, 2 * MiB, flags="GDAW")              # the direct map
        g.user(0, 0x40000000, blob, 4 * KiB, flags="DAW")           # mmap of the blob
        g.user(1, 0x40001000, blob + MiB, 4 * KiB, flags="DAW")     # past it: no blob
        g.kernel(0xf8000000, blob + 0x2000, 4 * KiB, flags="GDAW")  # in the blob, not live
        g.kernel(0xf8001000, win, 4 * KiB, flags="GDAW")            # before it: no blob
        g.kernel(0xf8002000, blob + MiB - 0x1000, 4 * KiB, flags="GDAW")  # its last page
        g.kernel(0xf8003000, blob + MiB, 4 * KiB, flags="GDAW")            # the next
        res = r.run("--json", r.guest(g, "vgpu.sock"))
        doc = res.json()
        c.result(res, "a window with one live blob: exit 1", 1)
        got = {m["va"]: (m["kind"], m.get("unbacked")) for m in doc["guests"][0]["mappings"]} \
            if doc else {}
        want = {0x40000000: ("user", False), 0x40001000: ("stale", True),
                0xf8000000: ("stale", False), 0xf8001000: ("stale", True),
                0xf8002000: ("stale", False), 0xf8003000: ("stale", True)}
        c.check("each mapping of the window: user, stale or stale and unbacked", got == want,
                f"got {got}")
        aps = [a["kind"] for a in doc["guests"][0]["apertures"]] if doc else []
        c.check("the window audited as an aperture", "virtio-gpu" in aps, f"{aps}")
        # the blob's mmap alone: clean
        g = Guest("pae", [(0xe0000000, 16 * MiB)], window=(win, 256 * MiB, [(blob, MiB)]))
        g.kernel(0xc0000000, 0, 2 * MiB, flags="GDAW")
        g.user(0, 0x40000000, blob, 4 * KiB, flags="DAW")
        res = r.run("--json", r.guest(g, "vgpu-clean.sock"))
        c.result(res, "only a process's mmap of a live blob: exit 0", 0)
        # a blob outside its window; a window info pci shows and info mtree does not;
        # a blob unmapped while the tables were read: could not check
        g = Guest("pae", [(0xe0000000, 16 * MiB)], window=(win, MiB, [(win + MiB, MiB)]))
        res = r.run(r.guest(g, "vgpu-bad.sock"))
        c.result(res, "a blob outside the window: exit 2", 2, "outside")
        g = Guest("pae", [(0xe0000000, 16 * MiB)], window=(win, 256 * MiB, [(blob, MiB)]))
        g.kernel(0xc0000000, 0, 2 * MiB, flags="GDAW")
        g.mtree_window = g.mtree_later = None
        res = r.run(r.guest(g, "vgpu-no-mtree.sock"))
        c.result(res, "virtio-gpu's window in info pci, none in info mtree: exit 2", 2,
                 "none in `info mtree`")
        g = Guest("pae", [(0xe0000000, 16 * MiB)], window=(win, 256 * MiB, [(blob, MiB)]))
        g.kernel(0xc0000000, 0, 2 * MiB, flags="GDAW")
        g.user(0, 0x40000000, blob, 4 * KiB, flags="DAW")
        g.mtree_later = (win, 256 * MiB, [])
        res = r.run(r.guest(g, "vgpu-changed.sock"))
        c.result(res, "the blob unmapped while the tables were read: exit 2", 2, "changed")
        c.notes.append("window pages no live blob holds: stale, unbacked; a blob's mmap: user")
    finally:
        r.close()


def test_pti_unpaired(audit, c):
    """Under PTI a vCPU in user space has the user tables loaded (CR3's bit 12); the
    kernel's are the 4 KiB below when their user entries are the same. When they are not
    (an entry being written), the table CR3 points at holds no kernel mapping but the
    entry code's: another vCPU's kernel tables must show them, or exit 2, never 0."""
    r = Run(audit)
    try:
        res = r.run("--json", r.guest(pti_guest({0, 1}), "pti-unpaired.sock"))
        doc = res.json()
        c.result(res, "every vCPU in user space, no kernel table recognised: exit 2", 2, "PTI")
        cpus = doc["guests"][0].get("cpus") if doc else None
        c.check("each vCPU's tables: unpaired, user tables only",
                cpus is not None and len(cpus) == 2 and
                all(x.get("pti_unpaired") and x.get("user_only") and not x["pti"]
                    for x in cpus), f"cpus {cpus}")
        res = r.run("--json", r.guest(pti_guest({0}), "pti-half.sock"))
        doc = res.json()
        c.result(res, "vCPU 1's pair recognised: its kernel tables show the stale mapping: "
                 "exit 1", 1)
        got = kinds(doc) if doc else {}
        c.check("... the stale one found", got.get(0xffffc90000400000) == (4 * KiB, 4 * KiB,
                                                                             "stale"), f"{got}")
        cpus = doc["guests"][0].get("cpus") if doc else None
        c.check("... vCPU 0 unpaired, user tables only; vCPU 1 under PTI",
                cpus is not None and len(cpus) == 2 and cpus[0].get("user_only") and
                cpus[0].get("pti_unpaired") and cpus[1]["pti"] and
                not cpus[1].get("user_only"), f"cpus {cpus}")
        # no PTI: a kernel's table at an address with bit 12 set, which maps itself (its
        # direct map): audited as it is; one that does not map itself is no kernel's
        for direct, rc in ((True, 1), (False, 2)):
            g = Guest("4level", [(0x800000000, GiB)], ncpus=1)
            g.kernel(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")
            if direct:
                g.kernel(0xffff888000000000, 0, GiB, flags="GDAW")
            root = g.cpus[0].root
            res = r.run("--json", r.guest(g, f"bit12-{direct}.sock"))
            doc = res.json()
            cpus = doc["guests"][0].get("cpus") if doc else None
            c.result(res, f"one vCPU, CR3 {root:#x} (bit 12), {'a' if direct else 'no'} direct "
                     f"map of it: exit {rc}", rc)
            c.check(f"... CR3 {root:#x}: unpaired, {'a kernel' if direct else 'user'} table",
                    root & 0x1000 and cpus and cpus[0].get("pti_unpaired") and
                    cpus[0].get("user_only") == (not direct), f"cpus {cpus}")
        c.notes.append("PTI pairs caught mid-write: exit 2 alone, exit 1 beside a paired vCPU")
    finally:
        r.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audit", default=os.path.join(TOP, "build", "unit", "pvmap-audit-san"),
                    help="the pvmap-audit to test (a command, split at spaces)")
    ap.add_argument("--guest", default=os.path.join(TOP, "build", "unit", "audit-paging-guest"),
                    help="audit_real_qemu_paging's guest (tests/unit/audit_paging_guest.c)")
    ap.add_argument("--only", action="append", help="run only this test (repeatable)")
    args = ap.parse_args()
    audit = args.audit.split()
    w = ktap.Writer("pvmap-audit")
    for name, fn in (("audit_never_drops", test_never_drops),
                     ("audit_paging_modes", test_paging_modes),
                     ("audit_hostile_qmp", test_hostile_qmp),
                     ("audit_reads_guest_ram_only", test_reads_guest_ram_only),
                     ("audit_pti_unpaired", test_pti_unpaired),
                     ("audit_vgpu_window", test_vgpu_window),
                     ("audit_real_qemu_paging",
                      lambda audit, c: test_real_qemu_paging(audit, c, args.guest)),
                     ("audit_pat_bit", lambda audit, c: test_pat_bit(audit, c, args.guest))):
        if args.only and name not in args.only:
            continue
        c = Checks()
        sent = len(FORBIDDEN_SENT)
        try:
            fn(audit, c)
        except Exception as e:  # a test that breaks is a failure, never a pass
            c.failed.append(f"FAILED: {type(e).__name__}: {e}")
        for sock, line in FORBIDDEN_SENT[sent:]:  # whatever the test itself checked
            c.failed.append(f"FAILED: pvmap-audit sent {line!r} (never to be sent) to "
                            f"{os.path.basename(sock)}")
        w.add(name, not c.failed, *c.failed, *c.notes)
    return w.report()


if __name__ == "__main__":
    sys.exit(main())
