# SPDX-License-Identifier: GPL-2.0
"""Host halves of the hypervisor channel's tests (run-guest --pv), against
pvmap-hv's control socket (pvmaplib/hypervisor.py). An answer that is lost,
cut short or malformed (ControlError) is never read as an empty one: the
check that needed it fails, "could not check"."""

import signal
import threading
import time

from pvmaplib.hypervisor import ControlError
from pvmaplib.qmp import QMPError
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.actions import PatternHalf
from .audit import Quiesced

# Xen's answers (xen/arch/x86/mm.c, get_page_from_l1e()) to pvmap_test.ko's requests
XEN_ANSWERS = {"wb": (0, "accepted, cache bits made UC (MMIO)"),
               "outside": (-1, "-EPERM: no I/O-memory permission for the frame"),
               "reserved": (-22, "-EINVAL: a flag L1_DISALLOW_MASK forbids")}


def lose(hv):
    """Keep the daemon's counts and violations as the guest loses it."""
    hv.lost = hv.counts()
    hv.lost["violations_list"] = hv.answer("violations")[:-1]


@host_half("pv_channel_up")
class ChannelUp(HostHalf):
    def line_pv_up(self, text):
        self.guest = int(kv(text)["registered"])

    def sync_pv_up(self):
        c = self.env.hv.counts()
        self.check("pv_channel_up", c["calls"] > 0 and c["registered"] == self.guest,
                   f"pvmap-hv: {c['calls']} calls, {c['registered']} PTEs registered; "
                   f"the guest says {self.guest}")


@host_half("pv_pwrite_hypercalls")
class PwriteHypercalls(PatternHalf):
    """A 1 MiB PWRITE: at most 2 hypercalls per 16 pages, by pvmap-hv's counts."""

    def sync_pv_counts(self):
        self.before = self.env.hv.counts()

    def line_pv_pwrite(self, text):
        self.bytes = int(kv(text)["bytes"])

    def sync_pv_pwrite(self):
        after = self.env.hv.counts()
        d = {k: after[k] - self.before[k] for k in after}
        pages = self.bytes // 4096
        per16 = d["multicalls"] * 16 / pages
        self.check("pv_pwrite_hypercalls", 0 < d["multicalls"] and per16 <= 2,
                   f"{pages} pages: {d['multicalls']} hypercalls ({per16:.2f} per 16 "
                   f"pages), {d['entries']} multicall entries, {d['pte_writes']} PTE "
                   f"writes, {d['invlpg']} invalidations, {d['refused']} refused")


@host_half("pv_refusals")
class Refusals(HostHalf):
    """Each request answered as Xen answers it, by pvmap-hv and as the guest saw it."""

    def line_pv_refusals(self, text):
        self.res = kv(text)

    def sync_pv_refusals(self):
        res = self.res
        ptr = int(res["ptr"], 16)
        try:
            refusals = self.env.hv.answer("refusals")
        except ControlError as e:  # not "no refusal": nothing is known
            self.check("pv_refusals", False, str(e))
            return
        ok, rows = True, ["request | Xen | pvmap-hv | the guest saw"]
        for case, (want, xen) in XEN_ANSWERS.items():
            val, rc, pte = res[case].split(":")
            val, rc, pte = int(val, 16), int(rc), int(pte, 16)
            logged = [ln for ln in refusals if f"arg0={ptr:#x}" in ln and f"arg1={val:#x}" in ln]
            daemon = logged[-1].split("rc=")[-1] if logged else "0 (accepted)"
            good = rc == want and (int(daemon.split()[0]) == want)
            if case == "wb":  # an aperture frame mapped write-back
                good &= pte & 0x18 == 0x18 and not logged  # PCD|PWT: UC
            ok &= good
            rows.append(f"{case} {val:#x} | {xen} | {daemon} | {rc}, PTE {pte:#x}"
                        + ("" if good else "  <-- WRONG"))
        self.check("pv_refusals", ok, *rows)


@host_half("pv_revoke_live", "pv_hazard_found")
class Revoke(HostHalf):
    """pvmap-hv's revoke of a frame lists the PTEs that still map it: a live map's
    one (live); none after pvmap's unmap, one in hazard mode (hazard_found)."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.revokes = {}

    def line_pv_revoke(self, text):
        self.req = kv(text)

    def sync_pv_revoke(self):
        case, va, frame = self.req["case"], int(self.req["va"], 16), int(self.req["frame"], 16)
        try:
            answer = self.env.hv.answer(f"revoke {frame:#x}")
        except ControlError as e:  # not "nothing maps it": nothing is known
            self.revokes[case] = None
            self.check("pv_revoke_live" if case == "live" else "pv_hazard_found", False,
                       f"{case}: {e}")
            return
        hits = [ln for ln in answer if f"va {va:#x}" in ln and "hypercall #" in ln]
        self.revokes[case] = hits
        if case == "live":
            self.check("pv_revoke_live", len(hits) == 1, *answer)
        elif case == "hazard" and self.revokes.get("normal") is not None:
            normal = self.revokes["normal"]
            self.check("pv_hazard_found", len(hits) == 1 and not normal,
                       f"normal mode (pvmap's unmap): {len(normal)} PTEs still map "
                       f"frame after unmap", f"hazard mode: {len(hits)}", *answer)


@host_half("pv_daemon_garbage")
class Garbage(Quiesced):
    """pvmap-hv answers garbage for a while; the audit after it is clean."""
    label = "pv_daemon_garbage_audit_clean"

    def garbage(self, what):
        try:
            answer = self.env.hv.control(f"garbage {what}")
        except ControlError as e:
            answer = [str(e)]
        self.check("pv_daemon_garbage_host", answer[-1].startswith("ok"), *answer)

    def sync_pv_garbage_on(self):
        self.garbage("on")

    def sync_pv_garbage_off(self):
        self.garbage("off")


@host_half("pv_daemon_killed")
class Killed(PatternHalf, Quiesced):
    """The daemon dies under the guest (SIGKILL), its last counts kept."""
    label = "pv_daemon_killed_audit_clean"

    def sync_pv_kill(self):
        hv = self.env.hv
        lose(hv)
        hv.proc.kill()
        hv.proc.wait()
        self.check("pv_daemon_killed_host", True,
                   f"pvmap-hv killed (SIGKILL) after {hv.lost['calls']} calls")


@host_half("pv_daemon_stalled")
class Stalled(PatternHalf, Quiesced):
    """The daemon stopped under the guest, its control socket too; continued, it
    must find the guest's request abandoned and serve nothing late, up to the end."""
    label = "pv_daemon_stalled_audit_clean"

    def sync_pv_stop(self):
        hv = self.env.hv
        lose(hv)
        hv.proc.send_signal(signal.SIGSTOP)
        hv.wait_state("T")
        self.stalled = True

    def sync_pv_cont(self):
        hv = self.env.hv
        hv.proc.send_signal(signal.SIGCONT)
        before, after, why = hv.lost or {}, {}, ""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                after = hv.counts()
            except OSError as e:
                why = f"control socket: {e}"
                break
            if after.get("abandoned", 0) > before.get("abandoned", 0) or \
                    after.get("calls", 0) > before.get("calls", 0):
                break
            time.sleep(0.1)
        abandoned = after.get("abandoned", 0) - before.get("abandoned", 0)
        late = after.get("calls", 0) - before.get("calls", 0)
        self.check("pv_daemon_stalled_host", before and after and abandoned >= 1 and late == 0,
                   why, f"pvmap-hv stopped after {before.get('calls')} calls, "
                   f"continued: {abandoned} request(s) found abandoned, {late} served late")

    def finish(self):
        super().finish()
        hv = self.env.hv
        if not getattr(self, "stalled", False) or hv is None:
            return
        try:  # alive again: up to the end of the run it served nothing
            now = hv.counts()
        except OSError as e:
            now = {"error": str(e)}
        self.check("pv_daemon_stalled_nothing_late",
                   now.get("calls") == (hv.lost or {}).get("calls", -1),
                   f"pvmap-hv at the end: {now.get('calls', now.get('error'))} calls, "
                   f"{(hv.lost or {}).get('calls')} when it was stopped")


@host_half("pv_channel_unusable")
class Unusable(HostHalf):
    """A guest that cannot use the channel (--pv-unusable): the daemon saw no call."""

    def finish(self):
        hv = self.env.hv
        if hv is None or not self.env.args.pv_unusable:
            return  # the guest skips: no channel, or one it can use
        c = hv.counts()
        self.check("pv_channel_untouched", not c.get("calls", 1) and not c.get("registered", 1),
                   f"pvmap-hv: {c.get('calls')} calls, {c.get('registered')} PTEs "
                   "registered: the guest runs natively")


@host_half("pv_daemon_stalled_jiffies")
class StalledJiffies(Stalled):
    """pv_daemon_stalled on a guest whose clock is the tick: the guest must write
    natively within 1 s of the stop by the host's clock too. A guest that stays
    frozen gets its daemon back after FROZEN_S, so that the run ends with a verdict."""
    label = "pv_daemon_stalled_jiffies_audit_clean"
    FROZEN_S = 20

    def sync_pv_stop(self):
        super().sync_pv_stop()
        self.stopped_at = time.monotonic()
        self.rescue = threading.Timer(self.FROZEN_S, self.unfreeze)
        self.rescue.start()

    def unfreeze(self):
        self.frozen = True
        self.env.hv.proc.send_signal(signal.SIGCONT)

    def line_pv_native(self, text):
        self.rescue.cancel()
        host_ms = (time.monotonic() - self.stopped_at) * 1000
        frozen = getattr(self, "frozen", False)
        self.check("pv_daemon_stalled_jiffies_native_in_1s", host_ms < 1000 and not frozen,
                   f"the first page after the stop written {host_ms:.0f} ms after it by the "
                   f"host's clock, {kv(text).get('ms')} ms by the guest's" +
                   (f"; the guest stayed frozen until its daemon was continued after "
                    f"{self.FROZEN_S} s" if frozen else ""))

    def sync_pv_cont(self):
        if getattr(self, "frozen", False):
            self.check("pv_daemon_stalled_host", False, "the daemon was continued early "
                       "to unfreeze the guest: its late service cannot be judged")
            return
        super().sync_pv_cont()

    def finish(self):
        if getattr(self, "rescue", None):
            self.rescue.cancel()
        super().finish()


@host_half("pv_daemon_slow")
class Slow(PatternHalf, Quiesced):
    """pvmap-hv serves every request 100 ms late (under the guest's 250 ms timeout):
    the guest must give it up once late answers cost it a second in all, so the
    daemon serves about budget / lateness requests late, not every one of them."""
    label = "pv_daemon_slow_audit_clean"
    LATE_MS = 100
    BUDGET_MS = 1000  # the guest's PVMAP_PV_LATE_BUDGET_MS

    def sync_pv_slow(self):
        answer = self.env.hv.control(f"late {self.LATE_MS}")
        self.check("pv_daemon_slow_host", answer[-1].startswith("ok"), *answer)
        self.start = time.monotonic()

    def sync_pv_slow_done(self):
        hv = self.env.hv
        lose(hv)  # the guest's PTEs are its own from here
        hv.control("late 0")
        served = hv.lost.get("late_served", -1)
        # the debt drains at a tenth of the time passing: a call LATE_MS late adds
        # nine tenths of that; then one call per vCPU in flight, and the one that
        # tipped it
        bound = -(-self.BUDGET_MS * 10 // (self.LATE_MS * 9)) + self.env.args.smp + 1
        self.check("pv_daemon_slow_bounded", 0 < served <= bound,
                   f"pvmap-hv served {served} requests {self.LATE_MS} ms late before the "
                   f"guest gave it up (at most {bound}: the guest's {self.BUDGET_MS} ms budget "
                   f"less what drains meanwhile, one call per vCPU in flight); the 4 MiB took "
                   f"{time.monotonic() - self.start:.1f} s of host time")


@host_half("pv_refused_clear")
class RefusedClear(PatternHalf, Quiesced):
    """pvmap-hv refuses every multicall that clears a PTE: it must have refused one,
    and nothing the guest mapped may stay mapped (the audit)."""
    label = "pv_refused_clear_audit_clean"

    def sync_pv_refuse_clears(self):
        answer = self.env.hv.control("refuse-clears on")
        self.check("pv_refused_clear_host", answer[-1].startswith("ok"), *answer)

    def sync_pv_refused(self):
        hv = self.env.hv
        lose(hv)
        hv.control("refuse-clears off")
        refused = [ln for ln in hv.control("refusals") if ln.startswith("refusal ")
                   and "rc=-1" in ln]
        self.check("pv_refused_clear_refused", len(refused) >= 1,
                   f"pvmap-hv refused {len(refused)} multicall(s) with a clear", *refused[:3])


@host_half("pv_doorbell_removed")
class DoorbellRemoved(PatternHalf, Quiesced):
    """device_del of the channel's ivshmem-doorbell under the live guest."""
    label = "pv_doorbell_removed_audit_clean"

    def sync_pv_remove_doorbell(self):
        hv = self.env.hv
        lose(hv)
        try:
            self.env.qmp.execute("device_del", id="pvhv")
            self.env.qmp.wait_event("DEVICE_DELETED", timeout=60, device="pvhv")
            self.check("pv_doorbell_removed_host", True, "device_del pvhv: DEVICE_DELETED")
        except QMPError as e:
            self.check("pv_doorbell_removed_host", False, str(e))


@host_half("pv_daemon_fake_acks")
class FakeAcks(PatternHalf, Quiesced):
    """pvmap-hv answers every multicall 0 and makes none of it: nothing the guest
    mapped may stay mapped (the audit), every byte must be right (the pattern)."""
    label = "pv_daemon_fake_acks_audit_clean"

    def sync_pv_fake_acks(self):
        hv = self.env.hv
        lose(hv)  # from here the daemon's counts are no verdict: it makes nothing
        answer = hv.control("fake-acks on")
        self.check("pv_daemon_fake_acks_host", answer[-1].startswith("ok"), *answer)

    def sync_pv_fake_acks_done(self):
        answer = self.env.hv.control("fake-acks off")
        self.check("pv_daemon_fake_acks_host", answer[-1].startswith("ok"), *answer)
