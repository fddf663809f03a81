# SPDX-License-Identifier: GPL-2.0
"""Host halves that look at the guest's page tables through pvmap-audit, and
the hot-unplug tests (QMP device_del / device_add of the ivshmem aperture)."""

import os
import re
import time

from ..qmp import QMP, QMPError
from . import host_half, kv
from .actions import LiveHalf, PatternHalf, audit_mappings, flags_set, read_backing, \
    write_backing

SENTINEL = b"HOST SENTINEL: page A now belongs to someone else. ".ljust(64, b"#")

# The kernel's PAT table as it logs it at boot. Its own (native) puts WC at
# index 1; a Xen PV guest takes Xen's, fixed by the hypervisor, with WC at 4.
_PAT_CONFIG = re.compile(r"x86/PAT: Configuration \[0-7\]: (.*)")
LINUX_PAT = "WB WC UC- UC WB WP UC- WT"


def wc_encoding(lines):
    """(PWT, PCD, PAT) of a 4 KiB PTE that selects WC under the PAT table the
    guest's kernel logged, and where that table came from."""
    table = [m.group(1).split() for m in map(_PAT_CONFIG.search, lines) if m]
    said = table[-1] if table else LINUX_PAT.split()
    if "WC" not in said:
        return None, f"no WC in the guest's PAT table {' '.join(said)}"
    i = said.index("WC")
    return (bool(i & 1), bool(i & 2), bool(i & 4)), \
        f"WC is PAT entry {i} of {' '.join(said)}" + ("" if table else " (Linux's own: not logged)")


_XP = re.compile(r"^[0-9a-f]+: 0x([0-9a-f]+)", re.M)
_PT_ADDR = 0x000ffffffffff000


def pte_4level(qmp, va):
    """The 4 KiB PTE that maps @va, read with `xp` along each vCPU's 4-level page
    tables until one maps it: (entry, None), or (None, why). `info tlb` drops bit
    7 of a 4 KiB entry (PAT), which selects WC in Xen's PAT table."""
    why = "no vCPU"
    for cpu in qmp.execute("query-cpus-fast"):
        def hmp(cmd):
            return qmp.execute("human-monitor-command", **{"command-line": cmd,
                                                           "cpu-index": cpu["cpu-index"]})
        regs = hmp("info registers")
        cr3, cr4 = (re.search(rf"{r}=([0-9a-f]+)", regs) for r in ("CR3", "CR4"))
        if not cr3 or not cr4 or int(cr4.group(1), 16) & (1 << 12):  # LA57: 5 levels
            why = f"vCPU {cpu['cpu-index']}: not 4-level paging"
            continue
        table = int(cr3.group(1), 16) & _PT_ADDR
        for shift in (39, 30, 21, 12):
            m = _XP.search(hmp(f"xp /1gx {table + ((va >> shift) & 511) * 8:#x}"))
            entry = int(m.group(1), 16) if m else 0
            if not entry & 1 or (shift != 12 and entry & 0x80):
                why = f"vCPU {cpu['cpu-index']}: no 4 KiB entry for {va:#x}"
                break
            if shift == 12:
                return entry, None
            table = entry & _PT_ADDR
    return None, why


@host_half("audit_quiesced")
class Quiesced(LiveHalf):
    """The auditor finds no stale aperture mapping in the quiet guest; with
    --audit-barrier another process audits this guest (and others) meanwhile."""
    label = "audit_quiesced_clean"

    def sync_audit(self):
        if self.env.args.audit_barrier:
            self.wait_at_barrier(self.env.args.audit_barrier)
            return
        rc, out = self.audit()
        self.check(self.label, rc == 0, *out.strip().splitlines()[:12])

    def wait_at_barrier(self, barrier):
        env = self.env
        name = os.path.basename(env.args.log).removesuffix(".log")
        with open(os.path.join(barrier, f"{name}.live"), "w") as f:
            f.write("\n".join(self.live) + "\n")
        self.live = []
        env.qmp.close()
        with open(os.path.join(barrier, f"{name}.ready"), "w") as f:
            f.write(env.qmp_path)
        deadline = time.monotonic() + 120
        while not os.path.exists(os.path.join(barrier, "go")) and time.monotonic() < deadline:
            time.sleep(0.1)
        env.qmp = QMP(env.qmp_path).connect()
        self.check("audit_barrier_released", os.path.exists(os.path.join(barrier, "go")))


@host_half("memtype_wc")
class Memtype(LiveHalf):
    """The held map's flags in pvmap-audit's view of the page tables: WC, not UC-."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.memtype = None

    def line_memtype(self, text):
        f = kv(text)
        self.memtype = (int(f["va"], 16), int(f["pa"], 16), f["mode"], f["level"])

    def sync_memtype(self):
        va, pa, mode, level = self.memtype
        live, self.live = self.live, []
        mappings, rc, out = audit_mappings(self.env, live)
        mappings = mappings or []
        # The entry that maps va to pa. A large one ('P') may be 2 MiB or
        # 1 GiB: `info tlb` does not say, so up to 1 GiB is accepted.
        found = [m for m in mappings if 0 <= va - m["va"] < ((1 << 30) if m["flags"][2] == "P"
                                                              else 4096)
                 and m["pa"] + (va - m["va"]) == pa]
        flags = found[0]["flags"] if found else ""
        on = flags_set(flags)
        # The entry's PWT (T), PCD (C) and PAT bits must select WC in the
        # kernel's PAT table. P is the PAT bit of a 4 KiB PTE; in a large-page
        # entry it is PS, and `info tlb` does not show that entry's PAT bit
        # (bit 12): a large WC entry is checkable only where WC needs no PAT bit.
        want, table = wc_encoding(self.env.lines)
        if want and level != "4k" and want[2]:
            want, table = None, table + ": a large page's PAT bit is not in info tlb's flags"
        if found and want and want[2]:  # the PAT bit: only the entry itself shows it
            entry, why = pte_4level(self.env.qmp, va)
            if entry is None or entry & _PT_ADDR != pa & ~0xfff:
                want, table = None, table + f"; its PTE: {why or f'{entry:#x} maps another page'}"
            else:  # PWT, PCD and PAT as the entry has them
                on = {f for f, bit in (("T", 1 << 3), ("C", 1 << 4), ("P", 1 << 7)) if entry & bit}
                table += f"; its PTE {entry:#x} read with xp"
        wc = bool(flags) and want is not None and \
            ("T" in on, "C" in on) == want[:2] and (level != "4k" or ("P" in on) == want[2])
        self.check("memtype_wc_audit_flags", wc and mode == "wc",
                   f"va {va:#x} (pa {pa:#x}): guest reads {mode} ({level} page); pvmap-audit "
                   f"flags {flags or 'not found'} (want " +
                   (", ".join(("" if b else "no ") + f for b, f in zip(want, "TCP")
                              if level == "4k" or f != "P") if want else "?") + f"; {table})",
                   None if found else f"{len(mappings)} aperture mappings audited; "
                   f"pvmap-audit exit {rc}: {out.strip()[-300:]}")
        self.memtype = None


class Unplug(PatternHalf):
    """Hot-unplug of the ivshmem aperture, and adding it back."""

    def sync_unplug(self):
        """The guest's ACPI eject must complete."""
        try:
            self.env.qmp.execute("device_del", id="aperture0")
            self.env.qmp.wait_event("DEVICE_DELETED", timeout=60, device="aperture0")
            self.check("hot_unplug_completed", True, "device_del aperture0: DEVICE_DELETED")
        except QMPError as e:
            self.check("hot_unplug_completed", False, str(e))

    def sync_replug(self):
        """QEMU 7.2 aborts (qemu_ram_set_idstr) when a device reuses the memdev
        of one it unplugged: a new backend on the same file."""
        env = self.env
        env.replugs = getattr(env, "replugs", 0) + 1
        memdev = f"aperture-replug{env.replugs}"
        try:
            env.qmp.execute("object-add", **{"qom-type": "memory-backend-file", "id": memdev,
                                             "share": True, "mem-path": env.shm,
                                             "size": env.args.ivshmem_size})
            env.qmp.execute("device_add", driver="ivshmem-plain", memdev=memdev, id="aperture0")
            self.check("hot_replug_added", True, f"ivshmem-plain on {memdev}, same file")
        except QMPError as e:
            self.check("hot_replug_added", False, str(e))
            return
        if env.hv:  # the guest places its BAR anew: the hypervisor must know it
            ok, diags = env.hv.grant_apertures(env.qmp)
            self.check("pv_apertures_granted", ok, *diags)


host_half("hot_unplug")(Unplug)


@host_half("mmap_zapped_on_unplug")
class MmapZapped(Unplug, LiveHalf):
    """A process's user mappings of the aperture in pvmap-audit's view before
    device_del, none of the old range after."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.hold = self.gone = None

    def line_mmap_hold(self, text):
        f = kv(text)
        self.hold = (int(f["base"], 16), int(f["len"], 16))

    def line_mmap_gone(self, text):
        f = kv(text)
        self.gone = (int(f["base"], 16), int(f["size"], 16))

    def user_mappings(self, base, size, *options):
        """pvmap-audit's user mappings of guest-physical [base, base + size), and its report."""
        mappings, rc, out = audit_mappings(self.env, [], *options)
        if mappings is None:
            return None, f"pvmap-audit exit {rc}: {out.strip()[-300:]}"
        found = [m for m in mappings if m["kind"] == "user" and base <= m["pa"] < base + size]
        return found, f"pvmap-audit: {len(found)} user mapping(s) of {base:#x}+{size:#x} " \
            f"among {len(mappings)} mappings of aperture pages"

    def sync_mmap_audit(self):
        """info tlb walks each vCPU's current page tables: the holder spins on its
        own vCPU, but a kernel thread can have it for a moment (under PTI with
        init_mm's tables, where no user mapping is), so a miss is looked again."""
        base, length = self.hold
        for attempt in range(1, 6):
            found, diag = self.user_mappings(base, length)
            if found:
                break
            time.sleep(0.2)
        if attempt > 1:
            diag += f" (audit {attempt} of 5)"
        self.check("mmap_user_mappings_audited", bool(found), diag,
                   *(f"va {m['va']:#x} -> pa {m['pa']:#x} flags {m['flags']}"
                     for m in (found or [])[:4]))

    def sync_mmap_audit_gone(self):
        base, size = self.gone
        found, diag = self.user_mappings(base, size, "--aperture", f"{base:#x}:{size:#x}")
        self.check("mmap_zapped_on_unplug_audit", found == [], diag,
                   *(f"left: va {m['va']:#x} -> pa {m['pa']:#x} flags {m['flags']}"
                     for m in (found or [])[:4]))


@host_half("hazard_scenario", "xen_hazard_demo")
class Hazard(LiveHalf):
    """The hypervisor hands page A to another owner (a sentinel marks it), then:
    normal mode: the write through the old pointer faults, the sentinel stays and
    the audit is clean; hazard mode: it lands and the audit finds the stale va."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.hazard = None
        self.write = None
        self.outcomes = []  # one dict per scenario run

    def line_hazard(self, text):
        f = kv(text)
        self.hazard = (int(f["off"], 16), int(f["va"], 16), f["mode"])

    def line_hazard_write(self, text):
        self.write = text.split()[0] if text else None

    def sync_hazard_reassign(self):
        write_backing(self.env, self.hazard[0], SENTINEL)

    def sync_hazard_check(self):
        off, va, mode = self.hazard
        intact = read_backing(self.env, off, len(SENTINEL)) == SENTINEL
        rc, out = self.audit()
        found = f"STALE: va {va:#x}" in out
        self.outcomes.append({"mode": mode, "write": self.write, "sentinel_intact": intact,
                              "audit_rc": rc, "audit": out.strip(), "va": va})
        if mode == "hazard":
            ok = not intact and rc == 1 and found
        else:
            ok = intact and rc == 0
        self.check(f"hazard_outcome_{mode}", ok,
                   f"write through the old pointer: {self.write}; host sentinel "
                   f"{'intact' if intact else 'CORRUPTED'}; pvmap-audit exit {rc}"
                   f"{' (the stale va found)' if found else ''}",
                   *out.strip().splitlines()[:12])
        self.hazard = None
