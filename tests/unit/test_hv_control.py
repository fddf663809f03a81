#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pvmap-hv as a process: its control socket never stalls its hypercalls. KTAP.

No QEMU: this script is the daemon's ivshmem client itself. It takes the
greeting (the shared memory and the eventfds, SCM_RIGHTS), rings a vCPU's
doorbell by writing its eventfd and reads the request area as the guest
would. The daemon runs with --ram (a 16 MiB file) and --control, under
valgrind: a memory error or a leak fails its exit status.

hv_control_slow_client: a controller sends thousands of commands and reads
no answer; a PING must still be served at once (the daemon used to block in
write() on that controller, and with it every hypercall), and a second
controller must be answered.
hv_sigterm_clean_exit: SIGTERM ends the daemon promptly, with its counts.
"""

import mmap
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from pvmaplib import ktap  # noqa: E402
HV = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
      os.path.join(TOP, "build", "host", "pvmap-hv")]
AREA, PING = 4096, 1
VCPUS = 2


def greeting(sock):
    """The ivshmem server's messages: (value, fd or None) each."""
    msgs = []
    for _ in range(3 + 2 * VCPUS):
        data, fds, _, _ = socket.recv_fds(sock, 8, 1)
        if len(data) != 8:
            raise RuntimeError(f"greeting cut short after {len(msgs)} messages")
        msgs.append((struct.unpack("<q", data)[0], fds[0] if fds else None))
    return msgs


def ping(shm, doorbell, vcpu, seq, timeout):
    """Post a PING in @vcpu's area, ring its doorbell; whether it was served in time."""
    off = AREA * (1 + vcpu)
    struct.pack_into("<I", shm, off + 8, PING)
    struct.pack_into("<I", shm, off, seq)
    os.write(doorbell, struct.pack("<Q", 1))
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if struct.unpack_from("<I", shm, off + 4)[0] == seq:
            return True
        time.sleep(0.005)
    return False


def control(path, command, timeout=10):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(command.encode() + b"\n")
        data = b""
        while not data.endswith(b"\n") or not data.splitlines()[-1].startswith((b"ok", b"error")):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace").splitlines()


def main():
    w = ktap.Writer("hv-control")
    check = w.add

    tmp = tempfile.mkdtemp(prefix="pvmap-hv-ctl-")
    paths = {n: os.path.join(tmp, n) for n in ("hv.sock", "hv.shm", "ram", "ctl.sock")}
    with open(paths["ram"], "wb") as f:
        f.truncate(16 << 20)
    hv = subprocess.Popen(HV + ["--socket", paths["hv.sock"], "--shm", paths["hv.shm"],
                                "--ram", paths["ram"], "--control", paths["ctl.sock"],
                                "--vcpus", str(VCPUS)],
                          stderr=subprocess.PIPE, text=True)
    fds, shm, slow = [], None, None
    try:
        for _ in range(400):
            if os.path.exists(paths["hv.sock"]) and os.path.exists(paths["ctl.sock"]):
                break
            time.sleep(0.05)
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(paths["hv.sock"])
        msgs = greeting(client)
        fds = [fd for _, fd in msgs if fd is not None]
        shm = mmap.mmap(msgs[2][1], 0)
        doorbells = [fd for value, fd in msgs[3:3 + VCPUS]]
        served_before = ping(shm, doorbells[0], 0, 1, 20)

        # a controller that talks and never listens
        slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        slow.connect(paths["ctl.sock"])
        slow.setblocking(False)
        sent = 0
        burst = b"counts\n" * 20000
        end = time.monotonic() + 5
        while sent < len(burst) and time.monotonic() < end:
            try:
                sent += slow.send(burst[sent:])
            except BlockingIOError:
                time.sleep(0.01)
        time.sleep(1)  # let the daemon answer until that controller's socket is full
        served = ping(shm, doorbells[1], 1, 1, 10)
        try:
            answer = control(paths["ctl.sock"], "counts")[-1]
        except OSError as e:
            answer = f"no answer ({e})"
        check("hv_control_slow_client", served_before and served and answer == "ok",
              f"{sent} bytes of commands sent, no answer read; PING then served: {served}",
              f"a second controller: {answer}")
    except (OSError, RuntimeError, IndexError) as e:
        check("hv_control_slow_client", False, f"{type(e).__name__}: {e}")
    finally:
        if slow:
            slow.close()
        if shm:
            shm.close()
        for fd in fds:
            os.close(fd)
    hv.send_signal(signal.SIGTERM)
    t = time.monotonic()
    try:
        _, err = hv.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        hv.kill()
        _, err = hv.communicate()
    took = time.monotonic() - t
    check("hv_sigterm_clean_exit", hv.returncode == 0 and "counts calls=" in err,
          f"exit status {hv.returncode} {took:.1f} s after SIGTERM",
          *[ln for ln in err.splitlines() if "counts" in ln or "==" in ln][:10])
    for name in ("hv.shm", "ram"):
        if os.path.exists(paths[name]):
            os.unlink(paths[name])
    os.rmdir(tmp)

    print("\n".join(w.lines()))
    return 1 if any(not ok for ok, _, _ in w.results) else 0


if __name__ == "__main__":
    sys.exit(main())
