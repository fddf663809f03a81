# SPDX-License-Identifier: GPL-2.0
"""pvmap-hv for one guest (run-guest --pv): the daemon, its grants, its verdict on the run."""

import os
import re
import socket
import subprocess
import time

from . import shm as shmlib
from .qmp import QMPError

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


# The longest control answer pvmap-hv sends (CTL_OUT_MAX in pvmap_hv.c), with room
# for its last line: a reader that has read more has no answer.
CONTROL_ANSWER_MAX = (4 << 20) + 4096
# An answer's end: its one line that starts "ok" or "error" (pvmap_hv.c's --control)
_ANSWER_END = re.compile(rb"(?:^|\n)((?:ok|error)(?: [^\n]*)?)\n\Z")


class ControlError(OSError):
    """pvmap-hv's control answer lost, cut short, too long or malformed. An
    OSError, as a dead control socket is: whatever needed the answer could not
    check, and must fail, never read the missing answer as empty."""

    def __init__(self, command, why):
        super().__init__(f"could not check: pvmap-hv's answer to {command!r} {why}")


def parse_size(text):
    """512M, 1G, 4096: bytes."""
    m = re.fullmatch(r"(\d+)([MG]?)", text)
    if not m:
        raise ValueError(f"bad size {text!r} (e.g. 512M, 1G)")
    return int(m.group(1)) << {"": 0, "M": 20, "G": 30}[m.group(2)]


class Hypervisor:
    """pvmap-hv for one guest (--pv): its sockets, the guest's RAM file, its log."""

    def __init__(self, tmp, args, shm_dir=None):
        """@tmp: the run's private directory (sockets, log); @shm_dir: its private
        directory under /dev/shm (pvmaplib/shm.py), for the guest's RAM file."""
        self.socket = os.path.join(tmp, "hv.sock")
        self.ctl = os.path.join(tmp, "hv-control.sock")
        self.shm = os.path.join(tmp, "hv.shm")
        self.ram = os.path.join(shm_dir or tmp, "ram")
        self.log_path = os.path.join(tmp, "hv.log")
        self.granted = []  # (base, size) of the apertures pvmap-hv knows
        # its counts when the guest lost it (pv_daemon_killed, pv_daemon_stalled):
        # its verdict on the run stops there, the guest's PTEs are its own after it
        self.lost = None
        shmlib.create_file(self.ram, parse_size(args.memory))  # never through a link
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [os.path.join(TOP, "build", "host", "pvmap-hv"), "--socket", self.socket,
             "--shm", self.shm, "--ram", self.ram, "--control", self.ctl,
             "--vcpus", str(args.smp)], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 10
        while not (os.path.exists(self.socket) and os.path.exists(self.ctl)):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pvmap-hv did not start: {open(self.log_path).read()}")
            time.sleep(0.05)

    def control(self, command, timeout=10):
        """One control command; the answer's lines, the last its end, "ok ..." or
        "error ...". ControlError when no whole answer comes: the connection ends
        (or @timeout seconds pass) before its last line, or it is longer than any
        the daemon sends."""
        deadline = time.monotonic() + timeout
        data = bytearray()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(self.ctl)
            sock.sendall(command.encode() + b"\n")
            # the end is a whole last line: look at the tail only, not all of it again
            while not _ANSWER_END.search(data, max(0, len(data) - 4096)):
                if len(data) > CONTROL_ANSWER_MAX:
                    raise ControlError(command, f"is longer than {CONTROL_ANSWER_MAX} bytes "
                                       "without its end")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ControlError(command, f"did not end in {timeout} s "
                                       f"({len(data)} bytes)")
                sock.settimeout(left)
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    lines = data.count(b"\n")
                    raise ControlError(command, "was lost: the connection ended before it"
                                       if not data else
                                       f"was cut short after {len(data)} bytes ({lines} "
                                       "lines), without its last line")
                data += chunk
        return data.decode(errors="replace").splitlines()

    def answer(self, command):
        """control(), where the command's answer is needed: its lines, the last its
        "ok ..." end; ControlError when it is lost, cut short or says "error"."""
        lines = self.control(command)
        if not lines[-1].startswith("ok"):
            raise ControlError(command, f"is an error: {lines[-1]}")
        return lines

    def wait_state(self, state, timeout=5.0):
        """Wait until the daemon's process is in @state (/proc/PID/stat: T, stopped)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{self.proc.pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == state:
                        return True
            except OSError:
                return False
            time.sleep(0.01)
        return False

    def counts(self):
        """The daemon's counts as a dict of ints (ControlError without them)."""
        lines = self.answer("counts")
        line = next((ln for ln in lines if ln.startswith("counts ")), None)
        try:
            return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
        except (AttributeError, ValueError):
            raise ControlError("counts", f"is malformed: {lines[:2]}") from None

    def stop(self):
        """End the daemon; what it logged (its counts and violations at exit)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()
        with open(self.log_path, errors="replace") as f:
            return f.read().splitlines()

    def cleanup(self):
        self.stop()
        # the sockets too: a daemon killed (pv_daemon_killed) leaves them
        for path in (self.ram, self.shm, self.log_path, self.socket, self.ctl):
            if os.path.exists(path):
                os.unlink(path)

    def grant_apertures(self, qmp):
        """Tell pvmap-hv the apertures' BARs (the guest's I/O-memory permission),
        once the firmware has placed them; before the guest can map any.
        (ok, diagnostics)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                reply = qmp.execute("query-pci")
            except QMPError as e:
                return False, [str(e)]
            grants = []
            for bus in reply:
                for dev in bus.get("devices", []):
                    ids = (dev["id"]["vendor"], dev["id"]["device"])
                    bars = {r["bar"]: (r["address"], r["size"])
                            for r in dev.get("regions", []) if r.get("type") == "memory"}
                    if ids == (0x1af4, 0x1110) and dev.get("qdev_id") == "aperture0":
                        grants.append(bars.get(2))
                    elif ids == (0x1234, 0x1111):
                        grants.append(bars.get(0))
                    elif ids == (0x1b36, 0x0100):
                        grants.append(bars.get(4) or bars.get(1))
            placed = [g for g in grants if g and 0 < g[0] < (1 << 52)]
            if grants and len(placed) == len(grants):
                new = [g for g in placed if g not in self.granted]
                self.granted += new
                try:
                    answers = [self.control(f"aperture {base:#x} {size:#x}")
                               for base, size in new] or [["ok nothing new"]]
                except ControlError as e:
                    return False, [str(e)]
                return all(a[-1].startswith("ok") for a in answers), [a[-1] for a in answers]
            time.sleep(0.2)
        return False, ["the firmware placed no aperture BAR in 30 s"]

    def final(self, unusable):
        """The daemon's verdict on the whole run: [(name, ok, diagnostics)].
        With @unusable the guest cannot use the channel: pv_channel_unusable's
        host half judges the counts, and no PTE write is expected."""
        if self.lost:
            c = self.lost
            viol = c.get("violations_list", [])
        else:
            try:
                c = self.counts()
                viol = self.answer("violations")[:-1]
            except OSError as e:  # ControlError too: no verdict from what was not said
                c, viol = {}, [f"control socket: {e}"]
        if unusable:
            return []
        return [("pv_no_guest_pte_writes",
                 c.get("pte_writes", 0) > 0 and c.get("violations", 1) == 0 and
                 c.get("shadow_mismatches", 1) == 0,
                 [f"pvmap-hv wrote {c.get('pte_writes')} PTEs in {c.get('multicalls')} "
                  f"multicalls; {c.get('shadow_mismatches')} registered PTEs changed by "
                  f"the guest itself, {c.get('violations')} violations", *viol[:10]])]
