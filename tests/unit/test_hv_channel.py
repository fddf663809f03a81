#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pvmap-hv's channel against QEMU's own ivshmem-doorbell, printed as KTAP.

No guest kernel: QEMU runs stopped (-S) under qtest, and this script
plays the guest through qtest commands (PCI config cycles, MMIO writes to
the doorbell) and the shared memory file. It checks that QEMU accepts the
daemon's ivshmem server protocol (the device reads back the peer ID it was
given), that a doorbell on vector v completes vCPU v's request and no
other, that an unknown request is refused, and the round trip of 1000
doorbell calls (reported, not asserted: qtest's own latency dominates).
"""

import mmap
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import ktap  # noqa: E402
# under valgrind: a memory error or leak in the daemon fails its exit status
HV = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
      os.path.join(TOP, "build", "host", "pvmap-hv")]
MAGIC, AREA = 0x76687670, 4096
with open(os.path.join(TOP, "include", "uapi", "pvmap_hv.h")) as f:
    VERSION = int(re.search(r"#define PVMAP_HV_VERSION\s+(\d+)", f.read()).group(1))
PING = 1
SLOT = 4                        # the device's PCI slot on bus 0
BAR0 = 0xfebf0000
ROUND_TRIPS = 1000


class QTest:
    def __init__(self, args, log):
        # QEMU's stderr to a file: a pipe nobody reads would fill and stop it
        self.log = log
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(log, "w"), text=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        while True:
            reply = self.p.stdout.readline()
            if not reply:
                with open(self.log) as f:
                    raise RuntimeError(f"QEMU closed qtest: {f.read()}")
            if reply.startswith("OK") or reply.startswith("FAIL") or reply.startswith("ERR"):
                return reply.split()

    def cfg_read(self, reg):
        self.cmd(f"outl 0xcf8 {0x80000000 | SLOT << 11 | reg:#x}")
        return int(self.cmd("inl 0xcfc")[1], 16)

    def cfg_write(self, reg, val):
        self.cmd(f"outl 0xcf8 {0x80000000 | SLOT << 11 | reg:#x}")
        self.cmd(f"outl 0xcfc {val:#x}")

    def close(self):
        self.p.kill()
        self.p.wait()


class Area:
    """vCPU @v's request area in the shared memory: seq, done, op, result."""

    def __init__(self, shm, v):
        self.shm, self.off = shm, AREA * (1 + v)

    def post(self, seq, op):
        struct.pack_into("<I", self.shm, self.off + 8, op)
        struct.pack_into("<I", self.shm, self.off, seq)

    def done(self):
        return struct.unpack_from("<I", self.shm, self.off + 4)[0]

    def result(self):
        return struct.unpack_from("<i", self.shm, self.off + 12)[0]


def wait_done(area, seq, timeout=5.0):
    end = time.monotonic() + timeout
    while area.done() != seq:
        if time.monotonic() > end:
            return False
    return True


def main():
    w = ktap.Writer("hv-channel")
    check = w.add

    tmp = tempfile.mkdtemp(prefix="pvmap-hv-")
    sock, shm_path = os.path.join(tmp, "hv.sock"), os.path.join(tmp, "hv.shm")
    hv = subprocess.Popen(HV + ["--socket", sock, "--shm", shm_path, "--vcpus", "2",
                                "--oneshot"], stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    # -S: no vCPU runs, so no firmware reprograms the BAR set here
    q = QTest(["qemu-system-x86_64", "-machine", "pc", "-nodefaults", "-display", "none",
               "-S", "-qtest", "stdio", "-qtest-log", "/dev/null",
               "-chardev", f"socket,path={sock},id=hv",
               "-device", f"ivshmem-doorbell,chardev=hv,vectors=2,addr={SLOT:02x}.0"],
              os.path.join(tmp, "qemu.log"))
    try:
        with open(shm_path, "r+b") as f:
            shm = mmap.mmap(f.fileno(), 0)
        magic, version, nr_vcpus, area_size = struct.unpack_from("<IIII", shm, 0)
        ids = q.cfg_read(0)
        q.cfg_write(0x10, BAR0)
        q.cfg_write(0x04, 0x2)          # memory space on
        ivposition = int(q.cmd(f"readl {BAR0 + 8:#x}")[1], 16)
        check("hv_greeting_accepted", magic == MAGIC and version == VERSION and
              nr_vcpus == 2 and area_size == AREA and ids == 0x11101af4 and ivposition == 1,
              f"shared memory header magic {magic:#x} version {version} vCPUs {nr_vcpus}; "
              f"PCI {ids:#010x}; IVPosition {ivposition} (want 1, the ID the daemon sent)")

        a0, a1 = Area(shm, 0), Area(shm, 1)
        # QEMU takes the daemon's eventfds in its main loop, after the device
        # is up: until then a doorbell is ignored (ivshmem-spec.rst), so the
        # first call rings until it is answered, on the last vector sent
        a1.post(7, PING)
        for _ in range(500):
            q.cmd(f"writel {BAR0 + 12:#x} {0 << 16 | 1:#x}")
            if wait_done(a1, 7, 0.01):
                break
        ok1 = a1.done() == 7 and a1.result() == 0
        if not ok1:
            raise RuntimeError(f"vCPU 1's first call was never answered (done {a1.done()})")
        a0.post(3, PING)
        time.sleep(0.2)                 # no doorbell for vCPU 0 yet: nothing may happen
        untouched = a0.done() != 3
        q.cmd(f"writel {BAR0 + 12:#x} {0 << 16 | 0:#x}")
        ok0 = wait_done(a0, 3) and a0.result() == 0
        check("hv_doorbell_per_vcpu", ok1 and untouched and ok0,
              f"vector 1 served vCPU 1: {ok1}; vCPU 0 untouched until its doorbell: "
              f"{untouched}; then served: {ok0}")

        a0.post(4, 99)
        q.cmd(f"writel {BAR0 + 12:#x} 0x0")
        check("hv_unknown_op_refused", wait_done(a0, 4) and a0.result() == -38,
              f"op 99: result {a0.result()} (want -ENOSYS)")

        times, lost = [], 0
        for i in range(ROUND_TRIPS):
            t = time.monotonic()
            a0.post(100 + i, PING)
            q.cmd(f"writel {BAR0 + 12:#x} 0x0")
            if not wait_done(a0, 100 + i):
                lost += 1
                break
            times.append(time.monotonic() - t)
        calls = struct.unpack_from("<Q", shm, 16)[0]
        check("hv_round_trips", lost == 0 and calls == ROUND_TRIPS + 3,
              f"{ROUND_TRIPS} doorbell calls: {lost} lost, median round trip "
              f"{statistics.median(times) * 1e6:.0f} us (qtest command included), "
              f"{calls} calls counted in the header")
        shm.close()
    except RuntimeError as e:
        check("hv_channel_answers", False, str(e))
    finally:
        q.close()
    try:
        _, err = hv.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        hv.kill()
        _, err = hv.communicate()
    check("hv_client_disconnect_seen", hv.returncode == 0 and "disconnected" in err,
          *err.splitlines())
    for name in ("hv.shm", "qemu.log"):
        os.unlink(os.path.join(tmp, name))
    os.rmdir(tmp)

    print("\n".join(w.lines()))
    return 1 if any(not ok for ok, _, _ in w.results) else 0


if __name__ == "__main__":
    sys.exit(main())
