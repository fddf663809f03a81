# SPDX-License-Identifier: GPL-2.0
"""test_audit.py's tests against a real QEMU: tests/unit/audit_paging_guest.c
booted in each paging mode, its page tables built by the guest itself, read by
pvmap-audit through QEMU's own QMP and monitor (audit_real_qemu_paging), and
the PAT bit under Xen's PAT table (audit_pat_bit). The fake guests of
test_audit.py model what these check against the real thing."""

import json
import os
import re
import socket
import subprocess
import tempfile
import time

from audit_guest_model import GiB, KiB, MiB, Memory, PageTables
from audit_harness import diff, kinds, run_audit


# --- audit_real_qemu_paging ------------------------------------------------------------

K, U = "GDAW", "DAW"
# tests/unit/audit_paging_guest.c's mappings: (va, pa, size, user, flags, nx), then the
# options pvmap-audit is run with and what it must report; as in audit_paging_modes
REAL = {
    "2level": ([(0, 0, 4 * MiB, False, K, False)] +
               [(0x80000000 + k * 4 * MiB, k * 4 * MiB, 4 * MiB, False, K, False)
                for k in range(8)] +
               [(0xa0000000, 0xd0000000, 4 * MiB, False, K, False),
                (0xa0400000, 0x1e0000000, 4 * MiB, False, K, False),
                (0x90000000, 0xe0000000, 4 * KiB, False, K + "C", False),
                (0x40000000, 0xe0001000, 4 * KiB, True, U, False),
                (0x50000000, 0xe0c00000, 4 * MiB, True, U, False)],
               ["--aperture", "0xd0300000:0x100000", "--aperture", "0xe0000000:0x1000000"],
               {0xa0000000: (4 * MiB, MiB, "stale"), 0x90000000: (4 * KiB, 4 * KiB, "stale"),
                0x40000000: (4 * KiB, 4 * KiB, "user"), 0x50000000: (4 * MiB, 4 * MiB, "user")},
               {"paging": "2-level", "user_top": 0x80000000, "split": "direct map"}),
    "pae": ([(0, 0, 2 * MiB, False, K, False), (2 * MiB, 2 * MiB, 2 * MiB, False, K, False),
             (0xf8000000, 0xd0000000, 2 * MiB, False, K, True),
             (0xb8000000, 0xe0000000, 4 * KiB, False, K + "C", True),
             (0xa0000000, 0xe0001000, 4 * KiB, True, U, False),
             (0x60000000, 0xe0200000, 2 * MiB, True, U, False)],
            ["--aperture", "0xd0100000:0x80000", "--aperture", "0xe0000000:0x1000000",
             "--page-offset", "0xb0000000"],
            {0xf8000000: (2 * MiB, 512 * KiB, "stale"), 0xb8000000: (4 * KiB, 4 * KiB, "stale"),
             0xa0000000: (4 * KiB, 4 * KiB, "user"), 0x60000000: (2 * MiB, 2 * MiB, "user")},
            {"paging": "PAE", "user_top": 0xb0000000, "split": "--page-offset"}),
    "4level": ([(0, 0, 2 * MiB, False, K, False), (2 * MiB, 2 * MiB, 2 * MiB, False, K, False),
                (0xffff888100000000, 0x100000000, GiB, False, K, True),
                (0xffffc90040000000, 0x140000000, 2 * MiB, False, K, True),
                (0xffffc90040200000, 0x1000, 4 * KiB, False, K, True),
                (0xffffc90080000000, 0x180000000, 2 * MiB, False, K, True),
                (0x400000, 0x800001000, 4 * KiB, False, "DAW", False),
                (0x00007f0000000000, 0x800000000, 4 * KiB, True, U, False),
                (0x00007f0000200000, 0x800200000, 2 * MiB, True, U, False)],
               ["--aperture", "0x120000000:0x10000000", "--aperture", "0x140100000:0x100000",
                "--aperture", "0x180000000:0x40000000", "--aperture", "0x800000000:0x40000000"],
               {0xffff888100000000: (GiB, 256 * MiB, "stale"),
                0xffffc90040000000: (2 * MiB, MiB, "stale"),
                0xffffc90080000000: (2 * MiB, 2 * MiB, "stale"),
                0x400000: (4 * KiB, 4 * KiB, "stale"),
                0x00007f0000000000: (4 * KiB, 4 * KiB, "user"),
                0x00007f0000200000: (2 * MiB, 2 * MiB, "user")},
               {"paging": "4-level", "user_top": 0x0000800000000000, "split": "4-level"}),
    "5level": ([(0, 0, 2 * MiB, False, K, False), (2 * MiB, 2 * MiB, 2 * MiB, False, K, False),
                (0xffa0000000400000, 0x800000000, 4 * KiB, False, K + "C", False),
                (0xff11000100000000, 0x100000000, GiB, False, K, True),
                (0xff20000000000000, 0x800002000, 4 * KiB, True, U, False),
                (0x00ff000000000000, 0x800001000, 4 * KiB, True, U, False)],
               ["--aperture", "0x800000000:0x40000000", "--aperture", "0x120000000:0x1000000"],
               {0xffa0000000400000: (4 * KiB, 4 * KiB, "stale"),
                0xff11000100000000: (GiB, 16 * MiB, "stale"),
                0xff20000000000000: (4 * KiB, 4 * KiB, "stale"),
                0x00ff000000000000: (4 * KiB, 4 * KiB, "user")},
               {"paging": "5-level", "user_top": 0x0100000000000000, "split": "5-level"}),
}


def qemu_hmp(path, line, timeout=30):
    """One human-monitor command on QEMU's QMP socket: its text (the connection closed after)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(path)
        f = s.makefile("rwb")
        f.readline()
        for cmd in ({"execute": "qmp_capabilities"},
                    {"execute": "human-monitor-command", "arguments": {"command-line": line}}):
            f.write(json.dumps(cmd).encode() + b"\n")
            f.flush()
            reply = json.loads(f.readline())
        f.close()
        return reply.get("return")


def xp_as_modelled(text, addr, count, size):
    """The fake guests' `xp` of the values QEMU's @text shows (its format, theirs)."""
    mem = Memory()
    for i, v in enumerate(re.findall(r" 0x([0-9a-f]+)", text)[:count]):
        mem.write(addr + i * size, int(v, 16))
    return mem.xp(addr, count, size)


class PagingGuest:
    """tests/unit/audit_paging_guest.c under QEMU, paging in @mode: its QMP socket,
    its `info registers` once paging is on (None: it never came on)."""

    def __init__(self, guest_elf, tmp, mode):
        self.sock = os.path.join(tmp, f"{mode}.sock")
        self.qemu = subprocess.Popen(
            ["qemu-system-x86_64", "-nodefaults", "-display", "none", "-accel", "tcg",
             "-cpu", "max", "-m", "64", "-kernel", guest_elf, "-append", mode,
             "-qmp", f"unix:{self.sock},server=on,wait=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.regs = ""
        for _ in range(200):  # until the guest has paging on
            if os.path.exists(self.sock):
                self.regs = qemu_hmp(self.sock, "info registers") or ""
                if "CR0=8" in self.regs:
                    return
            time.sleep(0.05)
        self.regs = None

    def why(self):
        return self.qemu.stderr.read1(300).decode() if self.qemu.poll() is not None else \
            "paging never came on"

    def audit(self, audit, *args):
        for _ in range(10):  # QEMU takes the next client once it saw this one go
            time.sleep(0.2)
            res = run_audit(audit, *args, self.sock)
            if "no QMP greeting" not in res.text:
                return res
        return res

    def close(self):
        self.qemu.kill()
        self.qemu.wait()


def test_real_qemu_paging(audit, c, guest_elf):
    """The real thing: QEMU's own info tlb of a guest paging in each mode."""
    if not c.check("the paging guest is built", os.path.exists(guest_elf), guest_elf):
        return
    with tempfile.TemporaryDirectory(prefix="pvmap-audit-qemu-") as tmp:
        for mode, (maps, options, want, layout) in REAL.items():
            guest = PagingGuest(guest_elf, tmp, mode)
            sock, regs = guest.sock, guest.regs
            try:
                if not c.check(f"{mode}: the guest turns paging on", regs is not None,
                               guest.why()):
                    continue
                model = PageTables(mode, Memory())
                for va, pa, size, user, flags, nx in maps:
                    model.map(va, pa, size, user=user, flags=flags, nx=nx)
                real = qemu_hmp(sock, "info tlb")
                c.check(f"{mode}: QEMU's info tlb is what the fake guests print",
                        real == model.info_tlb(),
                        f"QEMU: {real!r}; model: {model.info_tlb()!r}"[:600])
                cr3 = int(re.search(r"CR3=([0-9a-f]+)", regs).group(1), 16) & ~0xfff
                for count, size in ((512, 8), (4, 8), (1024, 4), (3, 4)):
                    line = f"xp /{count}{'g' if size == 8 else 'w'}x {cr3:#x}"
                    real_xp = qemu_hmp(sock, line)
                    c.check(f"{mode}: QEMU's `{line.split(' 0x')[0]}` is what the fake guests "
                            "print", real_xp == xp_as_modelled(real_xp, cr3, count, size),
                            f"QEMU: {real_xp[:200]!r}; model: "
                            f"{xp_as_modelled(real_xp, cr3, count, size)[:200]!r}")
                # --cross-check: the walk of the tables against QEMU's own, info tlb
                res = guest.audit(audit, "--json", "--cross-check", *options)
                doc = res.json()
                c.result(res, f"{mode}: exit 1", 1)
                if doc:
                    got = kinds(doc)
                    c.check(f"{mode}: each mapping at its size, its aperture bytes, user or "
                            "kernel", got == want, diff(got, want))
                    seen = {k: doc["guests"][0].get(k) for k in layout}
                    c.check(f"{mode}: the layout", seen == layout, f"{seen}, want {layout}")
                    c.notes.append(f"{mode}: QEMU's info tlb: {len(real.splitlines())} lines, as "
                                   f"modelled; pvmap-audit: {len(got)} mappings, exit {res.rc}")
            finally:
                guest.close()


# audit_paging_guest.c's "xenpat" mappings of the aperture 0x800000000: va: (size, the
# entry's PWT/PCD/PAT, its type under Xen's PAT: WB WT UC- UC WC WP UC UC)
XEN_PAT = "WB WT UC- UC WC WP UC UC"
XEN_PAT_MSR = "0x0000050100070406"
PAT_MAPS = {0xffffc90000400000: (4 * KiB, 4, "WC"),   # the PAT bit alone: WC
            0xffffc90000401000: (4 * KiB, 1, "WT"),   # PWT
            0xffffc90000402000: (4 * KiB, 0, "WB"),
            0xffffc90000600000: (2 * MiB, 4, "WC"),   # a large entry's PAT bit, bit 12
            0xffffc90000800000: (2 * MiB, 3, "UC")}   # PWT and PCD


def test_pat_bit(audit, c, guest_elf):
    """A 4 KiB entry with the PAT bit, under Xen's PAT table (WC is entry 4, the PAT bit
    alone: what Xen's PV guests' WC mappings are), is reported as WC. info tlb drops a
    4 KiB entry's PAT bit (and a large one's, bit 12, with the address bits it masks),
    which made such a mapping look WB."""
    if not c.check("the paging guest is built", os.path.exists(guest_elf), guest_elf):
        return
    with tempfile.TemporaryDirectory(prefix="pvmap-audit-pat-") as tmp:
        guest = PagingGuest(guest_elf, tmp, "xenpat")
        try:
            if not c.check("the guest sets Xen's PAT and turns paging on", guest.regs is not None,
                           guest.why()):
                return
            res = guest.audit(audit, "--json", "--aperture", "0x800000000:0x40000000")
            doc = res.json()
            c.result(res, "stale WC mappings found: exit 1", 1)
            maps = {m["va"]: m for m in doc["guests"][0]["mappings"]} if doc else {}
            for va, (size, pat, _) in PAT_MAPS.items():
                m = maps.get(va, {})
                c.check(f"va {va:#x}: its PAT index {pat}" +
                        (", the PAT bit as P in its flags" if size == 4 * KiB and pat & 4 else ""),
                        m.get("size") == size and m.get("pat") == pat and
                        (size != 4 * KiB or (m.get("flags", "")[2:3] == "P") == bool(pat & 4)),
                        f"got {m or 'no mapping'}")
            # the guest's PAT, as its MSR value and as the types its kernel would log
            for pat_arg in (XEN_PAT, XEN_PAT_MSR):
                res = guest.audit(audit, "--json", "--pat", pat_arg,
                                  "--aperture", "0x800000000:0x40000000")
                doc = res.json()
                c.result(res, f"--pat {pat_arg!r}: exit 1", 1)
                maps = {m["va"]: m for m in doc["guests"][0]["mappings"]} if doc else {}
                got = {va: maps.get(va, {}).get("memtype") for va in PAT_MAPS}
                want = {va: t for va, (_, _, t) in PAT_MAPS.items()}
                c.check(f"--pat {pat_arg!r}: each mapping's memory type, the 4 KiB WC one WC",
                        got == want, f"got {[(hex(v), t) for v, t in got.items()]}")
            res = guest.audit(audit, "--pat", XEN_PAT, "--aperture", "0x800000000:0x40000000")
            c.result(res, "the text report says WC", 1,
                     "STALE: va 0xffffc90000400000 -> pa 0x800000000 flags -GPDA---W WC")
            c.notes.append(f"Xen's PAT {XEN_PAT}: {len(PAT_MAPS)} mappings, exit {res.rc}")
        finally:
            guest.close()
