# SPDX-License-Identifier: GPL-2.0
"""The guests test_audit.py's fake QMP servers answer for: page tables of each
paging mode built in a sparse guest-physical memory, printed as QEMU 7.2's
`info tlb` walks them (target/i386/monitor.c, tlb_info_32/pae32/la48/la57), and
the answers to `info pci`, `info cpus`, `info registers`, `info mtree` (the
tree view: softmmu/memory.c, mtree_info_as() and mtree_print_mr()) and `xp`
(QEMU's memory_dump(), monitor/misc.c: a line for each 16 bytes). Never
`info mtree -f`: it is no command of theirs (after it QEMU 7.2 never
completes a later device_del)."""

import re

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

    def __init__(self, mode, memory, pse=True, root=None):
        self.mode, self.mem, self.pse = mode, memory, pse
        self.shifts, self.esize = LEVELS[mode]
        self.root = memory.alloc() if root is None else root
        self.cr3_bits = 0  # bits CR3 has beside the root's address (PCID, PTI's bit 12)

    def cr3(self):
        return self.root | self.cr3_bits

    def index_bits(self, shift):
        if self.mode == "2level":
            return 10
        return 2 if self.mode == "pae" and shift == 30 else 9

    def map(self, va, pa, size, user=False, flags="AW", nx=None, pat=False):
        """A leaf of @size at @va; flags: letters of GDACTW (P and U from the args);
        @pat: the entry's PAT bit (bit 7 of a 4 KiB entry, 12 of a large one)."""
        bits = P_PRESENT | (P_USER if user else 0)
        for ch, b in zip("GDACTW", (P_GLOBAL, P_DIRTY, P_ACC, P_PCD, P_PWT, P_RW)):
            if ch in flags:
                bits |= b
        if pat:
            bits |= P_PS if size == 4 * KiB else 0x1000
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

    def __init__(self, limit=None):
        self.words = {}
        self.tables = {}  # table page: indices of its present entries
        self.next = 0x7000000
        self.limit = limit  # where memory ends (`xp`: "Cannot access memory"); None: never

    def alloc_pair(self):
        """Two pages, the first 8 KiB-aligned: a top-level table pair under PTI."""
        self.next = (self.next | 0x1fff) + 1
        first = self.next
        self.next += 0x1000
        return first

    def alloc(self):
        self.next += 0x1000
        return self.next

    def write(self, addr, value):
        self.words[addr] = value
        self.tables.setdefault(addr & ~0xfff, set()).add(addr & 0xfff)

    def read(self, addr, size=8):
        v = self.words.get(addr, 0)
        return v & 0xffffffff if size == 4 else v

    def xp(self, addr, count, size):
        """QEMU's `xp /COUNT{g,w}x ADDR`."""
        out, off, end = [], 0, count * size
        while off < end:
            line = f"{addr + off:016x}:"
            if self.limit is not None and addr + off + 16 > self.limit:
                out.append(line + " Cannot access memory")
                break
            n = min(16, end - off) // size
            out.append(line + "".join(f" 0x{self.read(addr + off + i * size, size):0{2 * size}x}"
                                      for i in range(n)))
            off += 16
        return "".join(ln + "\r\n" for ln in out)

    def indices(self, table, esize, count):
        """The indices of @table's present entries, in order (QEMU reads them all)."""
        return [o // esize for o in sorted(self.tables.get(table, ()))
                if o % esize == 0 and o // esize < count and
                self.words.get(table + o, 0) & P_PRESENT]


def info_pci(*bars, window=None):
    """`info pci` with one ivshmem(-plain) device for each (start, size); with @window
    ((start, size, blobs) as info_mtree() takes it), a virtio-gpu-gl-pci whose BAR4 it
    is, as QEMU 10 prints it (its modern BAR moved to BAR2)."""
    out = []
    if window:
        out += ["  Bus  0, device   2, function 0:",
                "    Display controller: PCI device 1af4:1050",
                "      PCI subsystem 1af4:1100",
                "      BAR1: 32 bit memory at 0xfebf8000 [0xfebf8fff]",
                "      BAR2: 64 bit prefetchable memory at 0xfe000000 [0xfe003fff]",
                f"      BAR4: 64 bit prefetchable memory at {window[0]:#x} "
                f"[{window[0] + window[1] - 1:#x}]",
                "      id \"vgpu0\""]
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


# the fake guests' RAM, as `-m 3G` on a pc machine has it (the legacy window apart)
RAM = [(0, 0x9ffff), (0x100000, 0xbfffffff)]


def info_mtree(ncpus, *bars, ram_name="pc.ram", window=None):
    """`info mtree` of a pc machine with @ncpus vCPUs, RAM as RAM says (`-m 3G`: the
    alias ram-below-4g of @ram_name) and an ivshmem(-plain) device for each (start,
    size) of @bars, as info_pci() has them: BAR0 its registers (MMIO), BAR2 its shared
    memory (RAM of the device's), in the PCI address space under RAM. As QEMU 7.2
    prints it: a section for each root (its address spaces, sorted by name), then
    one for each region an alias aliases. @window: (start, size, [(start, size)]),
    virtio-gpu's host-visible window and the blobs the host mapped into it, as QEMU
    10 prints them."""
    ram_end = RAM[-1][1]

    def line(level, start, end, prio, kind, name):
        return f"{'  ' * level}{start:016x}-{end:016x} (prio {prio}, {kind}): {name}"

    def alias(level, start, end, prio, kind, name, target, off):
        return line(level, start, end, prio, kind,
                    f"alias {name} @{target} {off:016x}-{off + end - start:016x}")

    pci = [line(3, 0xa0000, 0xbffff, 1, "i/o", "vga-lowmem"),
           line(3, 0xc0000, 0xdffff, 1, "rom", "pc.rom"),
           line(3, 0xfffc0000, 0xffffffff, 0, "rom", "pc.bios")]
    for i, (start, size) in enumerate(bars):
        pci += [line(3, start, start + size - 1, 1, "ram", f"aperture{i}"),
                line(3, 0xfebf0000 + i * 0x1000, 0xfebf00ff + i * 0x1000, 1, "i/o",
                     "ivshmem-mmio")]
    pci.sort(key=lambda ln: int(ln.split("-")[0], 16))
    if window:
        start, size, blobs = window
        pci += [line(3, start, start + size - 1, 1, "i/o", "virtio-gpu-hostmem")]
        pci += [line(4, b, b + n - 1, 0, "ram", "mr") for b, n in blobs]
    system = ([line(1, 0, M64, 0, "i/o", "system"),
               alias(2, 0, ram_end, 0, "ram", "ram-below-4g", ram_name, 0),
               line(2, 0, M64, -1, "i/o", "pci")] + pci +
              [alias(2, 0xa0000, 0xbffff, 1, "i/o", "smram-region", "pci", 0xa0000)] +
              [alias(2, a, a + 0x3fff, 1, "ram", "pam-rom", ram_name, a)
               for a in range(0xc0000, 0x100000, 0x4000)] +
              [line(2, 0xfec00000, 0xfec00fff, 0, "i/o", "ioapic"),
               line(2, 0xfee00000, 0xfeefffff, 4096, "i/o", "apic-msi")])
    out = (["address-space: I/O", line(1, 0, 0xffff, 0, "i/o", "io"),
            line(2, 0, 7, 0, "i/o", "dma-chan"), ""] +
           sorted(f"address-space: {n}" for n in
                  ["memory"] + [f"cpu-memory-{c}" for c in range(ncpus)]) + system + [""])
    for c in range(ncpus):  # each vCPU's SMM view: its own root
        out += [f"address-space: cpu-smm-{c}", line(1, 0, M64, 0, "i/o", "memory"),
                alias(2, 0, 0xffffffff, 1, "i/o", "smram", "smram", 0),
                alias(2, 0, M64, 0, "i/o", "memory", "system", 0), ""]
    out += (["address-space: ivshmem-plain", line(1, 0, M64, 0, "i/o", "bus master container"),
             ""] +
            # what the aliases alias, each once: the system region's tree again among them
            ["memory-region: system"] + system + [""] +
            ["memory-region: smram", line(1, 0, 0xffffffff, 0, "i/o", "smram"),
             alias(2, 0xa0000, 0xbffff, 0, "ram", "smram-low", ram_name, 0xa0000), ""] +
            [f"memory-region: {ram_name}", line(1, 0, ram_end, 0, "ram", ram_name), ""] +
            ["memory-region: pci", line(1, 0, M64, -1, "i/o", "pci")] +
            [ln[2:] for ln in pci] + [""])
    return "".join(ln + "\r\n" for ln in out)


def ram_holds(addr, size, ram=RAM):
    return any(a <= addr and addr + size - 1 <= b for a, b in ram)


def registers(mode, cr3, pse=True, cpu=0, cpl=0):
    """`info registers` as QEMU 7.2 prints it (the lines pvmap-audit reads, and a few others)."""
    cr4 = {"2level": 0x690 if pse else 0x680, "pae": 0x6b0, "4level": 0x350ef0,
           "5level": 0x351ef0}[mode]
    head = f"\r\nCPU#{cpu}\r\n"
    if mode in ("4level", "5level"):
        return (head + "RAX=0000000000000000 RBX=ffffffff82a0c940 RCX=0000000000000001 "
                "RDX=0000000000000000\r\n"
                f"RIP=ffffffff81e3b41b RFL=00000246 [---Z-P-] CPL={cpl} II=0 A20=1 SMM=0 "
                "HLT=1\r\n"
                "GDT=     fffffe0000001000 0000007f\r\n"
                f"CR0=80050033 CR2=00007f5c8e6f9000 CR3={cr3:016x} CR4={cr4:08x}\r\n"
                "DR6=00000000ffff0ff0 DR7=0000000000000400\r\nEFER=0000000000000d01\r\n")
    return (head + "EAX=00000000 EBX=c1b4a000 ECX=00000001 EDX=00000000\r\n"
            f"EIP=c18a1c4f EFL=00000246 [---Z-P-] CPL={cpl} II=0 A20=1 SMM=0 HLT=1\r\n"
            "GDT=     c7fd2000 000000ff\r\n"
            f"CR0=80050033 CR2=b7f00000 CR3={cr3:08x} CR4={cr4:08x}\r\n"
            "DR6=00000000ffff0ff0 DR7=00000400\r\n"
            f"EFER={0x800 if mode == 'pae' else 0:016x}\r\n")


class Guest:
    """A fake guest: its vCPUs' address spaces and its PCI devices. With @pti,
    each vCPU runs in user space under page-table isolation: CR3 points at
    the user copy of its top-level table (bit 12 set), which has the user
    entries and none of the kernel's; the kernel's copy, 4 KiB below, has
    both (Linux's pti.c: user entries mirrored, NX added on the kernel side)."""

    def __init__(self, mode, bars, ncpus=2, pse=True, pti=False, cpl=0, window=None):
        self.mode, self.bars, self.pse, self.pti, self.cpl = mode, bars, pse, pti, cpl
        # info_pci()'s and info_mtree()'s; then, from the second info mtree on, the
        # window as mtree_later has it (the host mapped or unmapped a blob meanwhile)
        self.window = self.mtree_window = self.mtree_later = window
        self.mtree_asked = 0
        self.mem = Memory()
        self.cpus = [PageTables(mode, self.mem, pse) for _ in range(ncpus)]
        self.users = []
        if pti:  # the kernel's table and the user one beside it, above
            for t in self.cpus:
                t.root = self.mem.alloc_pair()
                u = PageTables(mode, self.mem, pse, root=t.root + 0x1000)
                self.users.append(u)
                # PAE: all four PDPTEs of both, the user ones shared (pgd_prepopulate_pmd())
                for i in range(4 if mode == "pae" else 0):
                    self.mem.write(t.root + i * 8, self.mem.alloc() | P_PRESENT)
                    self.mem.write(u.root + i * 8, self.mem.read(t.root + i * 8) if i < 3
                                   else self.mem.alloc() | P_PRESENT)
        self.tlb_cache = {}
        self.xp_count = 0

    def kernel(self, va, pa, size, **kw):
        """A kernel mapping: in every vCPU's tables, as the kernel half is shared."""
        for t in self.cpus:
            t.map(va, pa, size, **kw)

    def user(self, cpu, va, pa, size, **kw):
        self.cpus[cpu].map(va, pa, size, user=True, **kw)
        if self.pti:
            self.mirror(cpu)

    def mirror(self, cpu):
        """PTI: the user copy's user entries are the kernel copy's, without its NX
        (under PAE the three PDPTEs below PAGE_OFFSET 0xc0000000)."""
        k, u = self.cpus[cpu], self.users[cpu]
        n = 3 if self.mode == "pae" else 256
        esize = 8
        for i in range(n):
            v = self.mem.read(k.root + i * esize)
            if v & P_PRESENT:
                self.mem.write(u.root + i * esize, v & ~P_NX)
                if self.mode != "pae" and v & P_USER:
                    self.mem.write(k.root + i * esize, v | P_NX)

    def user_only(self, cpu, va, pa, size, **kw):
        """A kernel mapping in the user copy's kernel half only (PTI's clones)."""
        self.users[cpu].map(va, pa, size, **kw)

    def loaded(self, cpu):
        """The tables vCPU @cpu has loaded (and QEMU's info tlb walks)."""
        return self.users[cpu] if self.pti else self.cpus[cpu]

    def answer(self, line, cpu):
        """The text of a human-monitor command, or None (QEMU's error)."""
        if line == "info pci":
            return info_pci(*self.bars, window=self.window)
        if line == "info mtree":
            self.mtree_asked += 1
            return info_mtree(len(self.cpus), *self.bars, window=self.mtree_window
                              if self.mtree_asked == 1 else self.mtree_later)
        if line == "info cpus":
            return "".join(f"{'*' if i == 0 else ' '} CPU #{i}: thread_id={4242 + i}\r\n"
                           for i in range(len(self.cpus)))
        cpu = 0 if cpu is None else cpu
        if cpu >= len(self.cpus):
            return None
        if line == "info registers":
            return registers(self.mode, self.loaded(cpu).cr3(), self.pse, cpu, self.cpl)
        if line == "info tlb":
            if cpu not in self.tlb_cache:
                self.tlb_cache[cpu] = self.loaded(cpu).info_tlb()
            return self.tlb_cache[cpu]
        m = re.fullmatch(r"xp /(\d+)([gw])x (0x[0-9a-f]+|\d+)", line)
        if m:
            self.xp_count += 1
            return self.mem.xp(int(m.group(3), 0), int(m.group(1)), {"g": 8, "w": 4}[m.group(2)])
        return None
