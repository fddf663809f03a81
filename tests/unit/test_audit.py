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
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import ktap  # noqa: E402

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
M64 = (1 << 64) - 1

# page-table entry bits
P_PRESENT, P_RW, P_USER, P_PWT, P_PCD, P_ACC, P_DIRTY, P_PS, P_GLOBAL = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100)
P_NX = 1 << 63
ADDR = 0x3fffffffff000  # QEMU's mask of a table address

# per mode: the shift of each level, top first, and its entries' size in bytes
LEVELS = {"2level": ([22, 12], 4), "pae": ([30, 21, 12], 8),
          "4level": ([39, 30, 21, 12], 8), "5level": ([48, 39, 30, 21, 12], 8)}


class PageTables:
    """One address space's page tables, in a sparse guest-physical memory."""

    def __init__(self, mode, memory, pse=True):
        self.mode, self.mem, self.pse = mode, memory, pse
        self.shifts, self.esize = LEVELS[mode]
        self.root = memory.alloc()

    def cr3(self):
        return self.root

    def index_bits(self, shift):
        if self.mode == "2level":
            return 10
        return 2 if self.mode == "pae" and shift == 30 else 9

    def map(self, va, pa, size, user=False, flags="AW", nx=None):
        """A leaf of @size at @va; flags: letters of GDACTW (P and U from the args)."""
        bits = P_PRESENT | (P_USER if user else 0)
        for ch, b in zip("GDACTW", (P_GLOBAL, P_DIRTY, P_ACC, P_PCD, P_PWT, P_RW)):
            if ch in flags:
                bits |= b
        if (nx if nx is not None else not user) and self.esize == 8:
            bits |= P_NX
        leaf_shift = size.bit_length() - 1
        table = self.root
        for shift in self.shifts:
            idx = (va >> shift) & ((1 << self.index_bits(shift)) - 1)
            addr = table + idx * self.esize
            if shift == leaf_shift:
                if shift != 12:
                    bits |= P_PS
                if self.mode == "2level" and shift == 22:  # PSE-36: PA bits 32-39 in 13-20
                    entry = (pa & 0xffc00000) | ((pa >> 32) & 0xff) << 13
                else:
                    entry = pa
                self.mem.write(addr, entry | bits)
                return
            entry = self.mem.read(addr)
            if not entry & P_PRESENT:
                new = self.mem.alloc()
                # PAE's PDPTEs have no RW/US bits; other levels allow all, as Linux's user tables do
                entry = new | P_PRESENT | (0 if self.mode == "pae" and shift == 30
                                           else P_RW | P_USER | P_ACC)
                self.mem.write(addr, entry)
            elif entry & P_PS:
                raise ValueError(f"va {va:#x}: a large page is mapped above it")
            table = entry & (0xfffff000 if self.esize == 4 else ADDR)
        raise ValueError(f"no level maps {size:#x} pages in {self.mode}")

    # --- QEMU 7.2's hmp_info_tlb(), line for line ---------------------------------

    def canonical(self, addr):
        if self.mode == "5level":
            return addr | (M64 ^ ((1 << 57) - 1)) if addr & (1 << 56) else addr
        if self.mode == "4level":
            return addr | (M64 ^ ((1 << 48) - 1)) if addr & (1 << 47) else addr
        return addr

    def print_pte(self, out, addr, pte, mask):
        flags = "".join(c if pte & b else "-" for c, b in zip(
            "XGPDACTUW", (P_NX, P_GLOBAL, P_PS, P_DIRTY, P_ACC, P_PCD, P_PWT, P_USER, P_RW)))
        out.append(f"{self.canonical(addr):016x}: {pte & mask & M64:016x} {flags}")

    def info_tlb(self):
        out, rd = [], self.mem.read
        if self.mode == "2level":
            pgd = self.root & ~0xfff
            for l1 in self.mem.indices(pgd, 4, 1024):
                pde = rd(pgd + l1 * 4)
                if pde & P_PS and self.pse:
                    self.print_pte(out, l1 << 22, pde, M64 & ~((1 << 21) - 1))
                    continue
                for l2 in self.mem.indices(pde & ~0xfff, 4, 1024):
                    pte = rd((pde & ~0xfff) + l2 * 4)
                    self.print_pte(out, (l1 << 22) + (l2 << 12), pte & ~P_PS, M64 & ~0xfff)
        elif self.mode == "pae":
            pdp = self.root & ~0x1f
            for l1 in self.mem.indices(pdp, 8, 4):
                pd = rd(pdp + l1 * 8) & ADDR
                for l2 in self.mem.indices(pd, 8, 512):
                    pde = rd(pd + l2 * 8)
                    if pde & P_PS:
                        self.print_pte(out, (l1 << 30) + (l2 << 21), pde, M64 & ~((1 << 20) - 1))
                        continue
                    pt = pde & ADDR
                    for l3 in self.mem.indices(pt, 8, 512):
                        self.print_pte(out, (l1 << 30) + (l2 << 21) + (l3 << 12),
                                       rd(pt + l3 * 8) & ~P_PS, M64 & ~0xfff)
        elif self.mode == "4level":
            self.la48(out, 0, self.root & ADDR)
        else:
            for l0 in self.mem.indices(self.root & ADDR, 8, 512):
                self.la48(out, l0, rd((self.root & ADDR) + l0 * 8) & ADDR)
        return "".join(line + "\r\n" for line in out)

    def la48(self, out, l0, pml4):
        rd = self.mem.read
        for l1 in self.mem.indices(pml4, 8, 512):
            pdp = rd(pml4 + l1 * 8) & ADDR
            for l2 in self.mem.indices(pdp, 8, 512):
                pdpe = rd(pdp + l2 * 8)
                if pdpe & P_PS:
                    self.print_pte(out, (l0 << 48) + (l1 << 39) + (l2 << 30), pdpe,
                                   0x3ffffc0000000)
                    continue
                pd = pdpe & ADDR
                for l3 in self.mem.indices(pd, 8, 512):
                    pde = rd(pd + l3 * 8)
                    if pde & P_PS:
                        self.print_pte(out, (l0 << 48) + (l1 << 39) + (l2 << 30) + (l3 << 21),
                                       pde, 0x3ffffffe00000)
                        continue
                    pt = pde & ADDR
                    for l4 in self.mem.indices(pt, 8, 512):
                        self.print_pte(out, (l0 << 48) + (l1 << 39) + (l2 << 30) + (l3 << 21) +
                                       (l4 << 12), rd(pt + l4 * 8) & ~P_PS, 0x3fffffffff000)


class Memory:
    """Sparse guest-physical memory: the page tables' entries, by address."""

    def __init__(self):
        self.words = {}
        self.tables = {}  # table page: indices of its present entries
        self.next = 0x7000000

    def alloc(self):
        self.next += 0x1000
        return self.next

    def write(self, addr, value):
        self.words[addr] = value
        self.tables.setdefault(addr & ~0xfff, set()).add(addr & 0xfff)

    def read(self, addr, size=8):
        v = self.words.get(addr, 0)
        return v & 0xffffffff if size == 4 else v

    def indices(self, table, esize, count):
        """The indices of @table's present entries, in order (QEMU reads them all)."""
        return [o // esize for o in sorted(self.tables.get(table, ()))
                if o % esize == 0 and o // esize < count and
                self.words.get(table + o, 0) & P_PRESENT]


def info_pci(*bars):
    """`info pci` with one ivshmem(-plain) device for each (start, size)."""
    out = []
    for i, (start, size) in enumerate(bars):
        out += [f"  Bus  0, device  {3 + i:2d}, function 0:",
                "    RAM controller: PCI device 1af4:1110",
                "      PCI subsystem 1af4:1100",
                f"      BAR0: 32 bit memory at 0xfebf{i}000 [0xfebf{i}0ff].",
                f"      BAR2: 64 bit prefetchable memory at {start:#x} [{start + size - 1:#x}].",
                f"      id \"aperture{i}\""]
    out += ["  Bus  0, device   0, function 0:", "    Host bridge: PCI device 8086:1237",
            "      PCI subsystem 1af4:1100", "      id \"\""]
    return "".join(line + "\r\n" for line in out)


def registers(mode, cr3, pse=True, cpu=0):
    """`info registers` as QEMU 7.2 prints it (the lines pvmap-audit reads, and a few others)."""
    cr4 = {"2level": 0x690 if pse else 0x680, "pae": 0x6b0, "4level": 0x350ef0,
           "5level": 0x351ef0}[mode]
    head = f"\r\nCPU#{cpu}\r\n"
    if mode in ("4level", "5level"):
        return (head + "RAX=0000000000000000 RBX=ffffffff82a0c940 RCX=0000000000000001 "
                "RDX=0000000000000000\r\n"
                "RIP=ffffffff81e3b41b RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n"
                "GDT=     fffffe0000001000 0000007f\r\n"
                f"CR0=80050033 CR2=00007f5c8e6f9000 CR3={cr3:016x} CR4={cr4:08x}\r\n"
                "DR6=00000000ffff0ff0 DR7=0000000000000400\r\nEFER=0000000000000d01\r\n")
    return (head + "EAX=00000000 EBX=c1b4a000 ECX=00000001 EDX=00000000\r\n"
            "EIP=c18a1c4f EFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n"
            "GDT=     c7fd2000 000000ff\r\n"
            f"CR0=80050033 CR2=b7f00000 CR3={cr3:08x} CR4={cr4:08x}\r\n"
            "DR6=00000000ffff0ff0 DR7=00000400\r\n"
            f"EFER={0x800 if mode == 'pae' else 0:016x}\r\n")


class Guest:
    """A fake guest: its vCPUs' address spaces and its PCI devices."""

    def __init__(self, mode, bars, ncpus=2, pse=True):
        self.mode, self.bars, self.pse = mode, bars, pse
        self.mem = Memory()
        self.cpus = [PageTables(mode, self.mem, pse) for _ in range(ncpus)]
        self.tlb_cache = {}

    def kernel(self, va, pa, size, **kw):
        """A kernel mapping: in every vCPU's tables, as the kernel half is shared."""
        for t in self.cpus:
            t.map(va, pa, size, **kw)

    def user(self, cpu, va, pa, size, **kw):
        self.cpus[cpu].map(va, pa, size, user=True, **kw)

    def answer(self, line, cpu):
        """The text of a human-monitor command, or None (QEMU's error)."""
        if line == "info pci":
            return info_pci(*self.bars)
        if line == "info cpus":
            return "".join(f"{'*' if i == 0 else ' '} CPU #{i}: thread_id={4242 + i}\r\n"
                           for i in range(len(self.cpus)))
        cpu = 0 if cpu is None else cpu
        if cpu >= len(self.cpus):
            return None
        if line == "info registers":
            return registers(self.mode, self.cpus[cpu].cr3(), self.pse, cpu)
        if line == "info tlb":
            if cpu not in self.tlb_cache:
                self.tlb_cache[cpu] = self.cpus[cpu].info_tlb()
            return self.tlb_cache[cpu]
        if line.startswith("xp /1"):
            size = {"g": 8, "w": 4}[line[5]]
            addr = int(line.split()[-1], 0)
            v = self.mem.read(addr, size)
            return f"{addr:016x}: 0x{v:0{2 * size}x}\r\n"
        return None


def qmp_line(obj):
    return (json.dumps(obj) + "\r\n").encode()


class FakeQMP:
    """A QMP server on @path for @guest. @hook(command_line, cpu) may return bytes
    to send instead of the answer, or a (bytes, action) pair: action "close" closes
    the connection after them, "shut" stops reading (the auditor's next write gets
    EPIPE), "hang" says nothing more; None: the guest answers."""

    def __init__(self, path, guest, hook=None, greeting=None):
        self.path, self.guest, self.hook = path, guest, hook
        self.greeting = greeting
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        self.commands = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        try:
            socket.socket(socket.AF_UNIX).connect(self.path)
        except OSError:
            pass
        self.thread.join(10)
        self.sock.close()

    def serve(self):
        while not self.stop.is_set():
            conn, _ = self.sock.accept()
            if self.stop.is_set():
                conn.close()
                return
            try:
                self.session(conn)
            except (OSError, ValueError):
                pass
            finally:
                conn.close()

    def session(self, conn):
        f = conn.makefile("rb")
        conn.sendall(self.greeting or qmp_line(
            {"QMP": {"version": {"qemu": {"micro": 22, "minor": 2, "major": 7}},
                     "capabilities": ["oob"]}}))
        for raw in f:
            cmd = json.loads(raw)
            args = cmd.get("arguments", {})
            line, cpu = args.get("command-line"), args.get("cpu-index")
            self.commands.append((cmd.get("execute"), line, cpu))
            hooked = self.hook(cmd.get("execute"), line, cpu) if self.hook else None
            if hooked is not None:
                data, action = hooked if isinstance(hooked, tuple) else (hooked, None)
                conn.sendall(data)
                if action == "close":
                    return
                if action == "shut":
                    conn.shutdown(socket.SHUT_RD)
                    self.stop.wait(5)
                    return
                if action == "hang":
                    self.stop.wait(30)
                    return
                continue
            if cmd.get("execute") == "qmp_capabilities":
                conn.sendall(qmp_line({"return": {}}))
                continue
            text = self.guest.answer(line, cpu)
            if text is None:
                conn.sendall(qmp_line({"error": {"class": "GenericError",
                                                 "desc": f"unknown command: '{line}'"}}))
            else:
                conn.sendall(qmp_line({"return": text}))


class Run:
    """pvmap-audit over fake guests in a temporary directory."""

    def __init__(self, audit):
        self.audit = audit
        self.tmp = tempfile.TemporaryDirectory(prefix="pvmap-audit-test-")
        self.servers = []

    def guest(self, guest, name="qmp.sock", **kw):
        path = os.path.join(self.tmp.name, name)
        self.servers.append(FakeQMP(path, guest, **kw))
        return path

    def file(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run(self, *args, timeout=300):
        return run_audit(self.audit, *args, timeout=timeout)

    def close(self):
        for s in self.servers:
            s.close()
        self.tmp.cleanup()


def run_audit(audit, *args, timeout=300):
    """@audit (a command, as a list) with @args: its Result."""
    start = time.monotonic()
    try:
        res = subprocess.run([*audit, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=timeout)
        rc, out, err = res.returncode, res.stdout, res.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", e.stderr or b""
    return Result(rc, out, err, time.monotonic() - start)


class Result:
    def __init__(self, rc, out, err, seconds):
        self.rc, self.out, self.err, self.seconds = rc, out, err, seconds
        self.text = (out + err).decode("utf-8", "replace")

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None

    def sanitizer(self):
        """A sanitizer's report, or a death by signal: never an answer."""
        bad = [ln for ln in self.text.splitlines()
               if "runtime error" in ln or "AddressSanitizer" in ln or "LeakSanitizer" in ln]
        if isinstance(self.rc, int) and self.rc < 0:
            bad.append(f"killed by signal {-self.rc}")
        return bad

    def last(self, n=2):
        return " | ".join(self.text.strip().splitlines()[-n:])


class Checks:
    """Sub-checks of one KTAP test: all must hold; the failures are its diagnostics."""

    def __init__(self):
        self.failed, self.notes = [], []

    def check(self, what, ok, detail=""):
        if not ok:
            self.failed.append(f"FAILED {what}{': ' + detail if detail else ''}")
        return ok

    def result(self, res, what, rc, *needles):
        """@res exited @rc (or one of them), saying each needle, no sanitizer report."""
        rcs = rc if isinstance(rc, tuple) else (rc,)
        bad = res.sanitizer()
        miss = [n for n in needles if n not in res.text]
        return self.check(what, res.rc in rcs and not bad and not miss,
                          f"exit {res.rc} (want {'/'.join(map(str, rcs))})"
                          f"{'; missing ' + repr(miss) if miss else ''}"
                          f"{'; ' + bad[0] if bad else ''}; {res.last()[-300:]}")


def kinds(doc, guest=0):
    """{va: (size, aperture_bytes, kind)} of a guest's mappings in --json output."""
    g = doc["guests"][guest]
    return {m["va"]: (m.get("size"), m.get("aperture_bytes"), m["kind"]) for m in g["mappings"]}


def diff(got, want):
    out = []
    for va in sorted(set(got) | set(want)):
        if got.get(va) != want.get(va):
            out.append(f"va {va:#x}: got {got.get(va)}, want {want.get(va)}")
    return "; ".join(out[:6]) + (f" (+{len(out) - 6} more)" if len(out) > 6 else "")


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


def test_paging_modes(audit, c):
    r = Run(audit)
    try:
        for mode in (mode_2level, mode_pae, mode_4level, mode_5level):
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


def healthy():
    g = Guest("4level", [(0x800000000, GiB)])
    g.kernel(0xffffc90000400000, 0x800005000, 4 * KiB, flags="GDAW")
    g.kernel(0xffff888000000000, 0, 2 * MiB, flags="GDAW")
    return g


def test_hostile_qmp(audit, c):
    r = Run(audit)
    try:
        # 1. --json of hostile text: a socket named with a quote and a backslash, a QMP
        # error with escaped control characters and non-ASCII, raw bytes that are not UTF-8
        s1 = r.guest(healthy(), 'q"uo\\te.sock', hook=lambda ex, line, cpu: qmp_line(
            {"error": {"class": "GenericError", "desc": HOSTILE}}) if line == "info tlb" else None)
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

        # 2. a reply over the limit: a whole one, and one that never ends
        big = r.guest(healthy(), "big.sock", hook=lambda ex, line, cpu: qmp_line(
            {"return": "ffffc90000400000: 0000000800005000 -G-DA---W\r\n" * 30000})
            if line == "info tlb" else None)
        res = r.run("--max-reply", "65536", big)
        c.result(res, "a 1.4 MB reply, --max-reply 65536: exit 2", 2, "over the limit")
        endless = r.guest(healthy(), "endless.sock", hook=lambda ex, line, cpu: (
            b'{"return": "' + b"x" * (2 * MiB), "hang") if line == "info tlb" else None)
        res = r.run("--max-reply", "65536", endless, timeout=30)
        c.result(res, "2 MiB with no end of line (the server waits), --max-reply 65536: "
                 "exit 2 at once", 2, "over the limit")
        c.check("... within 10 s", res.rc != "timeout" and res.seconds < 10,
                f"{res.seconds:.1f} s")

        # 3. cut short: the connection closes mid-reply; a reply whose text is cut mid-line
        cut = r.guest(healthy(), "cut.sock", hook=lambda ex, line, cpu: (
            qmp_line({"return": healthy().answer("info tlb", 0)})[:40], "close")
            if line == "info tlb" else None)
        res = r.run(cut)
        c.result(res, "connection closed mid-reply: exit 2", 2, "cut short")
        text = healthy().answer("info tlb", 0)
        short = r.guest(healthy(), "short.sock", hook=lambda ex, line, cpu: qmp_line(
            {"return": text + "ffffc90000400000: 0000000800"}) if line == "info tlb" else None)
        res = r.run(short)
        c.result(res, "info tlb text cut mid-line: exit 2", 2, "not a 4-level mapping")
        nul = r.guest(healthy(), "nul.sock", hook=lambda ex, line, cpu: (
            b'{"return": "ffff888000000000: 0000000000000000 --PDA---W\\r\\n\\u0000'
            + text.replace("\r\n", "\\r\\n").encode() + b'"}\r\n') if line == "info tlb"
            else None)
        res = r.run(nul)
        c.result(res, "an escaped NUL hiding the rest of info tlb: exit 2", 2, "malformed")
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
            b'{"return": "', "hang") if line == "info tlb" else None)
        res = r.run("--timeout", "1", slow, timeout=30)
        c.result(res, "a reply that never ends, --timeout 1: exit 2", 2, "timed out")
        notext = r.guest(healthy(), "notext.sock", hook=lambda ex, line, cpu: qmp_line(
            {"return": {}}) if line == "info tlb" else None)
        res = r.run(notext)
        c.result(res, "info tlb answered with no text: exit 2", 2)

        # 4. what QEMU does send: events between replies, long lines; still audited
        noisy = r.guest(healthy(), "noisy.sock", hook=lambda ex, line, cpu: (
            qmp_line({"event": "RTC_CHANGE", "data": {"offset": 1},
                      "timestamp": {"seconds": 1, "microseconds": 2}}) +
            qmp_line({"return": info_pci((0x800000000, GiB)) + "  " + "y" * 300000 + "\r\n"}))
            if line == "info pci" else None)
        res = r.run(noisy)
        c.result(res, "events between replies and a 300 kB line: audited, exit 1", 1,
                 "1 stale")
    finally:
        r.close()


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


def test_real_qemu_paging(audit, c, guest_elf):
    """The real thing: QEMU's own info tlb of a guest paging in each mode."""
    if not c.check("the paging guest is built", os.path.exists(guest_elf), guest_elf):
        return
    with tempfile.TemporaryDirectory(prefix="pvmap-audit-qemu-") as tmp:
        for mode, (maps, options, want, layout) in REAL.items():
            sock = os.path.join(tmp, f"{mode}.sock")
            qemu = subprocess.Popen(
                ["qemu-system-x86_64", "-nodefaults", "-display", "none", "-accel", "tcg",
                 "-cpu", "max", "-m", "64", "-kernel", guest_elf, "-append", mode,
                 "-qmp", f"unix:{sock},server=on,wait=off"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                regs = ""
                for _ in range(200):  # until the guest has paging on
                    if os.path.exists(sock):
                        regs = qemu_hmp(sock, "info registers") or ""
                        if "CR0=8" in regs:
                            break
                    time.sleep(0.05)
                if not c.check(f"{mode}: the guest turns paging on", "CR0=8" in regs,
                               regs[-200:] or qemu.stderr.read1(300).decode()):
                    continue
                model = PageTables(mode, Memory())
                for va, pa, size, user, flags, nx in maps:
                    model.map(va, pa, size, user=user, flags=flags, nx=nx)
                real = qemu_hmp(sock, "info tlb")
                c.check(f"{mode}: QEMU's info tlb is what the fake guests print",
                        real == model.info_tlb(),
                        f"QEMU: {real!r}; model: {model.info_tlb()!r}"[:600])
                for _ in range(10):  # QEMU takes the next client once it saw this one go
                    time.sleep(0.2)
                    res = run_audit(audit, "--json", *options, sock)
                    if "no QMP greeting" not in res.text:
                        break
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
                qemu.kill()
                qemu.wait()


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
                     ("audit_real_qemu_paging",
                      lambda audit, c: test_real_qemu_paging(audit, c, args.guest))):
        if args.only and name not in args.only:
            continue
        c = Checks()
        try:
            fn(audit, c)
        except Exception as e:  # a test that breaks is a failure, never a pass
            c.failed.append(f"FAILED: {type(e).__name__}: {e}")
        w.add(name, not c.failed, *c.failed, *c.notes)
    lines = w.lines()
    print("\n".join(lines), flush=True)
    return 0 if all(ln.startswith(("ok", "#", "KTAP", "1..")) for ln in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
