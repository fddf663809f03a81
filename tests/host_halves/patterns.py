# SPDX-License-Identifier: GPL-2.0
"""Host halves of the tests whose bytes the host reads in the aperture's backing
file, and of the BAR test (QMP's view of the guest's PCI BARs)."""

from pvmaplib.qmp import QMPError, pci_memory_bars
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.actions import PatternHalf, pattern_tool
from pvmaplib.halves.bases import Trace

host_half("writes_guest_pattern", "pwrite_random_offsets", "mmap_write", "stats_1mib_pwrite",
          "concurrent_no_shootdown", "soak", "atomic_map_in_irq",
          "xen_pwrite_multicalls")(PatternHalf)


@host_half("info_matches_bar")
class Bars(HostHalf):
    """The BARs the guest reports equal QEMU's (query-pci, while the guest waits)."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.bars = []

    def line_bar(self, text):
        f = kv(text)
        self.bars.append((f["pci"], f["kind"], int(f["bar"]), int(f["base"], 16),
                          int(f["size"], 16)))

    def sync_bars(self):
        try:
            qemu_bars = pci_memory_bars(self.env.qmp.execute("query-pci"))
        except QMPError as e:
            self.check("bars_match_qmp", False, str(e))
            return
        diags, ok = [], bool(self.bars)
        for pci, kind, bar, base, size in self.bars:
            got = qemu_bars.get((pci, bar))
            ok &= got == (base, size)
            diags.append(f"{kind} {pci} BAR{bar}: guest {base:#x}+{size:#x}, "
                         f"QEMU {'%#x+%#x' % got if got else 'none'}")
        self.check("bars_match_qmp", ok, *(diags or ["the guest reported no BAR"]))


@host_half("rw_partial_fault_alignments")
class Partial(HostHalf):
    """512 PWRITEs each cut by a fault: new bytes up to each fault, old past it."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.partial = None

    def line_partial(self, text):
        f = kv(text)
        self.partial = tuple(int(f[k], 16) for k in ("base", "old", "new"))

    def sync_partial(self):
        if not self.partial:
            self.check("partial_pwrite_nothing_past_fault", False, "no partial line before")
            return
        base, old, new = self.partial
        res = pattern_tool("partial", self.env.shm, hex(base), hex(old), hex(new))
        self.check("partial_pwrite_nothing_past_fault", res.returncode == 0,
                   f"512 PWRITEs at {base:#x}: {res.stdout.strip() or 'every byte as expected'}")
        self.partial = None


host_half("trace_1mib_pwrite")(Trace)
