# SPDX-License-Identifier: GPL-2.0
"""Host halves that look at the guest's page tables through pvmap-audit, and
the hot-unplug tests (QMP device_del / device_add of the ivshmem aperture)."""

import json
import os
import re
import time

from pvmaplib.qmp import QMP, QMPError
from pvmaplib.halves import host_half, kv
from pvmaplib.halves.actions import LiveHalf, PatternHalf, audit_mappings, run_audit
from pvmaplib.halves.bases import Hazard

# The kernel's PAT table as it logs it at boot. Its own (native) puts WC at
# index 1; a Xen PV guest takes Xen's, fixed by the hypervisor, with WC at 4
# (the PAT bit alone).
_PAT_CONFIG = re.compile(r"x86/PAT: Configuration \[0-7\]: (.*)")
LINUX_PAT = "WB WC UC- UC WB WP UC- WT"


def pat_table(lines):
    """The eight types of the PAT table the guest's kernel logged, and where they
    came from (Linux's own table when it logged none)."""
    table = [m.group(1).split() for m in map(_PAT_CONFIG.search, lines) if m]
    if table:
        return table[-1], "as the kernel logged it"
    return LINUX_PAT.split(), "Linux's own: not logged"


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
    """The held map's memory type as pvmap-audit reads its entry: WC, not UC-."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.memtype = None

    def line_memtype(self, text):
        f = kv(text)
        self.memtype = (int(f["va"], 16), int(f["pa"], 16), f["mode"], f["level"])

    def sync_memtype(self):
        """pvmap-audit reads each entry's PWT, PCD and PAT bit (bit 7 of a 4 KiB
        entry, 12 of a large one) and, given the guest's PAT table, names the type
        they select: it must be WC."""
        va, pa, mode, level = self.memtype
        live, self.live = self.live, []
        types, source = pat_table(self.env.lines)
        mappings, rc, out = audit_mappings(self.env, live, "--pat", " ".join(types))
        mappings = mappings or []
        found = [m for m in mappings if 0 <= va - m["va"] < m["size"] and
                 m["pa"] + (va - m["va"]) == pa]
        m = found[0] if found else {}
        self.check("memtype_wc_audit_flags", m.get("memtype") == "WC" and mode == "wc",
                   f"va {va:#x} (pa {pa:#x}): guest reads {mode} ({level} page); pvmap-audit: "
                   f"flags {m.get('flags', 'not found')}, PAT entry {m.get('pat')}, "
                   f"{m.get('memtype')} under {' '.join(types)} ({source})",
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


@host_half("audit_pti_user_mode")
class PtiUserMode(LiveHalf):
    """Every vCPU spins in user space under PTI, with the user page tables loaded,
    and one stale kernel mapping is left: pvmap-audit must list it (exit 1), having
    seen each vCPU in user mode with the kernel's tables beside the user ones. A vCPU
    that a timer or a kernel thread had at that moment is looked at again."""

    ATTEMPTS = 8

    def __init__(self, env, name):
        super().__init__(env, name)
        self.stale = None

    def line_pti_stale(self, text):
        f = kv(text)
        self.stale = (int(f["va"], 16), int(f["cpus"]))

    def cpls(self):
        """Each vCPU's CPL now, from QMP (a witness beside what the auditor says)."""
        out = []
        for cpu in self.env.qmp.execute("query-cpus-fast"):
            regs = self.env.qmp.execute("human-monitor-command", **{
                "command-line": "info registers", "cpu-index": cpu["cpu-index"]})
            m = re.search(r"CPL=(\d)", regs)
            out.append(m.group(1) if m else "?")
        return ",".join(out)

    def sync_pti_audit(self):
        va, ncpus = self.stale
        live, self.live = self.live, []
        for attempt in range(1, self.ATTEMPTS + 1):
            rc, out = run_audit(self.env, live, "--json")
            cpl_after = self.cpls()
            try:
                guest = json.loads(out)["guests"][0]
            except (ValueError, KeyError, TypeError, IndexError):
                guest = {}
            found = [m for m in guest.get("mappings", []) if m["va"] == va]
            cpus = guest.get("cpus")
            user = cpus is not None and len(cpus) == ncpus and \
                all(c.get("cpl") == 3 and c.get("pti") for c in cpus)
            said = f"audit {attempt}: pvmap-audit exit {rc}, " + \
                (f"va {va:#x} listed {found[0]['kind']}" if found else f"va {va:#x} not listed") + \
                (f"; vCPUs (CPL, PTI) as it saw them: "
                 f"{[(c.get('cpl'), c.get('pti')) for c in cpus]}" if cpus is not None else
                 "; it says nothing of the vCPUs it saw") + f"; CPL of each just after: {cpl_after}"
            stale_ok = rc == 1 and len(found) == 1 and found[0]["kind"] == "stale"
            if not stale_ok or user:
                break
        self.check("pti_user_mode_stale_found", stale_ok, said,
                   None if stale_ok else out.strip()[-400:])
        self.check("pti_user_mode_vcpus_in_user_space", user, said)


host_half("hazard_scenario", "xen_hazard_demo", "x86_64_default_clears")(Hazard)
