#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The host tools against what a guest, a VM or another local user controls. KTAP.

The host runs as root; these are the places where something it does not
control reaches it (issue 41's review), each driven by a fake peer, with
no guest booted:

run_guest_shm_symlink: run-guest's guest-memory files (the aperture's
  backing file, --pv's guest RAM), which QEMU fills, are made in a
  directory of the run's own under /dev/shm, never at a name another user
  could predict, never through a symbolic link: links planted at the old
  names (/dev/shm/pvmap-PID-ARCH-ivshmem, -ram) are neither followed nor
  truncated. run-guest runs in this process, its boot replaced.
pv_control_answer_lost: pvmap-hv's control answers, lost, cut short before
  their last line or malformed (a fake control socket), make the PV host
  halves (pv_refusals, pv_revoke_live, pv_hazard_found, the run's
  pv_no_guest_pte_writes) fail, "could not check", never read as "nothing
  found"; whole answers still pass.
vm_agent_flood: a VM whose agent never ends its reply line, or keeps
  sending replies to other requests, does not hold the host past the
  request's deadline nor make it read more than AGENT_REPLY_MAX bytes.
vm_fetch_bomb: VM.fetch() of a gzip bomb (512 MiB of zeros, 500 KiB sent)
  is refused without the host holding more than the size it allows.
vm_no_host_parse_of_vm_disk: no VM tool runs an ext2/3/4 parser (debugfs,
  e2tools, ...) on a disk a VM wrote (their code, scanned); a VM boots the
  kernel and initrd vm-image.sh copied out of the root it built, with
  such tools on PATH that say when they run (QEMU a fake that exits).
vm_kernel_fetch_bounded: the kernel a VM installed (its /vmlinuz and
  /initrd.img, as the fake agent answers readlink) is fetched through the
  agent: a 2 GiB sparse /vmlinuz is refused before anything is sent, odd
  links are refused, an honest kernel is fetched and booted next.
debootstrap_checks_gpg: every Debian root the host tools make (vm-image.sh,
  dkms-install-check.sh) comes from debootstrap --force-check-gpg with
  Debian's keyring (debian-root.sh's debian_debootstrap, run with a fake
  debootstrap that prints its arguments), and deps.sh installs the keyring.

  test_host_hardening.py [--only NAME]...
"""

import argparse
import base64
import importlib.machinery
import importlib.util
import os
import socket
import stat
import sys
import tempfile
import threading
import time
import tracemalloc
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "host"))
from audit_harness import Checks  # noqa: E402
from pvmaplib import ktap  # noqa: E402
from pvmaplib import vm as vmlib  # noqa: E402

MiB = 1 << 20


# --- a fake VM agent ------------------------------------------------------------------

class FakeAgent:
    """The VM's end of the agent's socket (a socketpair), answering each request
    line "ID BASE64-SCRIPT" with what @answer(script) returns: bytes to send as
    they are, or (rc, output) for a well-formed reply line."""

    def __init__(self, answer):
        self.host, self.peer = socket.socketpair()
        self.answer = answer
        self.sent = 0
        self.scripts = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def vm(self):
        """A VM object talking to this agent (no QEMU, no disk)."""
        vm = vmlib.VM.__new__(vmlib.VM)
        vm.agent, vm.seq, vm.proc = self.host, 0, None
        vm.buf = bytearray() if hasattr(vmlib, "AGENT_REPLY_MAX") else b""
        vm.scanned = 0
        return vm

    def send(self, data):
        try:
            self.peer.sendall(data)
            self.sent += len(data)
            return True
        except OSError:  # the host gave up and closed its end
            return False

    def serve(self):
        buf = b""
        try:
            while not self.stop.is_set():
                while b"\n" not in buf:
                    chunk = self.peer.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                line, buf = buf.split(b"\n", 1)
                ident, body = line.decode().split(" ", 1)
                script = base64.b64decode(body).decode()
                self.scripts.append(script)
                reply = self.answer(self, ident, script)
                if isinstance(reply, tuple):
                    rc, out = reply
                    reply = f"{ident} {rc} ".encode() + base64.b64encode(out) + b"\n"
                if reply is not None and not self.send(reply):
                    return
        except Exception:  # noqa: BLE001 -- a broken fake ends the connection, never hangs
            self.peer.close()

    def close(self):
        self.stop.set()
        for s in (self.host, self.peer):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.thread.join(timeout=30)


def bounded_flood(agent, chunk, total, seconds):
    """Send @chunk until @total bytes or @seconds have gone, or the host closes."""
    end = time.monotonic() + seconds
    while agent.sent < total and time.monotonic() < end and not agent.stop.is_set():
        if not agent.send(chunk):
            return False
    return True


# --- run_guest_shm_symlink -------------------------------------------------------------

def load_run_guest():
    path = os.path.join(TOP, "tools", "host", "run-guest")
    loader = importlib.machinery.SourceFileLoader("run_guest", path)
    spec = importlib.util.spec_from_loader("run_guest", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_shm_symlink(c):
    """Links at the names an attacker could predict, to a file of the victim's; then
    run-guest --pv as make check runs it, up to QEMU (not started)."""
    need = [os.path.join(TOP, "build", "host", p) for p in ("pvmap-hv", "pvmap-pattern")]
    missing = [p for p in need if not os.access(p, os.X_OK)]
    if not c.check("the host tools are built", not missing, f"missing {missing}: make host"):
        return
    rg = load_run_guest()
    pid = os.getpid()  # run-guest runs in this process
    old_names = [f"/dev/shm/pvmap-{pid}-i386-ivshmem", f"/dev/shm/pvmap-{pid}-ram"]
    seen = {}

    def fake_boot(run, cmd):
        """What QEMU would be given, looked at instead of booting."""
        seen["cmd"] = cmd
        for what, path in (("aperture", run.shm), ("ram", run.hv.ram if run.hv else None)):
            if path:
                st = os.lstat(path)
                d = os.lstat(os.path.dirname(path))
                seen[what] = (path, stat.S_ISREG(st.st_mode), stat.S_IMODE(st.st_mode),
                              st.st_size, stat.S_ISDIR(d.st_mode), stat.S_IMODE(d.st_mode),
                              d.st_uid)
        return rg.EXIT_PASS

    with tempfile.TemporaryDirectory(prefix="pvmap-victim-") as victim_dir:
        victims = {}
        for name in old_names:
            victim = os.path.join(victim_dir, os.path.basename(name) + ".victim")
            with open(victim, "wb") as f:
                f.write(b"the victim's file\n")
            victims[name] = victim
            if os.path.lexists(name):
                os.unlink(name)
            os.symlink(victim, name)
        saved = (rg.guests.kernel_dir, rg.Run.boot, rg.Run.report, sys.argv)
        rg.guests.kernel_dir = lambda kernel: victim_dir
        rg.Run.boot = fake_boot
        rg.Run.report = lambda run, status: 0 if status == rg.EXIT_PASS else 1
        sys.argv = ["run-guest", "--arch", "i386", "--pv", "--memory", "16M",
                    "--ivshmem-size", "1M", "--vga-mb", "0", "--qxl-mb", "0",
                    "--log", os.path.join(victim_dir, "guest.log")]
        try:
            rc = rg.main()
        finally:
            rg.guests.kernel_dir, rg.Run.boot, rg.Run.report, sys.argv = saved
        try:
            for name, victim in victims.items():
                with open(victim, "rb") as f:
                    body = f.read()
                c.check(f"{os.path.basename(name)}'s target untouched",
                        body == b"the victim's file\n",
                        f"the link's target now holds {len(body)} bytes: run-guest followed it")
                c.check(f"the link {name} left alone", os.path.islink(name),
                        "run-guest removed or replaced it")
        finally:
            for name in old_names:
                if os.path.islink(name):
                    os.unlink(name)
    c.check("run-guest reached QEMU's start", rc == 0 and "aperture" in seen and "ram" in seen,
            f"exit {rc}; {sorted(seen)}")
    for what in ("aperture", "ram"):
        if what not in seen:
            continue
        path, regular, mode, size, in_dir, dmode, duid = seen[what]
        parent = os.path.dirname(path)
        c.check(f"the {what} file is a new regular file of this run's, 0600",
                regular and mode == 0o600, f"{path}: regular {regular}, mode {mode:o}")
        c.check(f"the {what} file is in a directory of the run's own (0700) under /dev/shm",
                in_dir and dmode == 0o700 and duid == os.geteuid() and
                os.path.dirname(parent) == "/dev/shm" and path not in old_names and
                os.path.basename(parent).startswith(f"pvmap-{pid}-") and
                parent != f"/dev/shm/pvmap-{pid}",
                f"{path}: directory mode {dmode:o}, owner {duid}")
        c.check(f"QEMU is given the {what} file in that directory",
                any(f"mem-path={path}," in a for a in seen.get("cmd", [])),
                f"no mem-path={path} in QEMU's command")
        c.check("the run's directory is gone after it", not os.path.exists(parent), parent)
        c.notes.append(f"{what}: {path} ({size} bytes, mode {mode:o}, directory {dmode:o})")

    # creation itself never follows a link, dangling or not
    from pvmaplib import shm
    with tempfile.TemporaryDirectory(prefix="pvmap-links-") as d:
        target = os.path.join(d, "target")
        with open(target, "wb") as f:
            f.write(b"keep")
        for name, dest in (("to-file", target), ("dangling", os.path.join(d, "made"))):
            link = os.path.join(d, name)
            os.symlink(dest, link)
            try:
                shm.create_file(link, 1 << 20)
                refused = False
            except OSError:
                refused = True
            c.check(f"create_file() refuses a {name} link", refused and os.path.islink(link),
                    f"it created through {link}")
        with open(target, "rb") as f:
            c.check("the link's target untouched", f.read() == b"keep")
        c.check("nothing made through the dangling link",
                not os.path.exists(os.path.join(d, "made")))
        one, two = shm.private_dir("unit"), shm.private_dir("unit")
        try:
            c.check("each private directory is new, unpredictable and 0700",
                    one != two and stat.S_IMODE(os.stat(one).st_mode) == 0o700,
                    f"{one}, {two}")
        finally:
            shm.remove_dir(one)
            shm.remove_dir(two)


# --- pv_control_answer_lost ------------------------------------------------------------

class FakeControl:
    """pvmap-hv's control socket, answering each connection's command with what
    @answers maps it to (bytes, sent as they are, then the connection closed)."""

    def __init__(self, path, answers):
        self.answers = answers
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                command = data.split(b"\n", 1)[0].decode()
                answer = self.answers.get(command, self.answers.get("*", b""))
                try:
                    conn.sendall(answer)
                except OSError:
                    pass

    def close(self):
        try:  # wakes the accept() (a close() alone leaves it waiting)
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        self.thread.join(timeout=10)


def pv_half_verdict(env, cls, name, attrs, tag):
    """One host half of @cls, given @attrs as its guest lines would, answering
    handshake @tag: (verdict, diagnostics)."""
    half = cls(env, name)
    for k, v in attrs.items():
        setattr(half, k, v)
    if isinstance(tag, (list, tuple)):
        for t, extra in tag:
            for k, v in extra.items():
                setattr(half, k, v)
            half.sync(t)
    else:
        half.sync(tag)
    return half.verdict()


def test_control_answer_lost(c):
    """The PV host halves against a control socket that loses, cuts or garbles
    their answers; and against whole ones."""
    from pvmaplib import halves, hypervisor  # halves: it puts tests/host_halves on sys.path
    from host_halves import pv
    assert halves.REGISTRY["pv_refusals"] is pv.Refusals

    frame, va = 0x80000, 0xc0100000
    hit = f"revoke {frame:#x}: PTE of va {va:#x} (hypercall #7) still maps it\n".encode()
    refusal_lines = (b"refusal call=3 vcpu=0 op=mmu_update index=0 arg0=0x1000 arg1=0x80001063 "
                     b"rc=-1\nrefusal call=4 vcpu=0 op=mmu_update index=0 arg0=0x1000 "
                     b"arg1=0x80002263 rc=-22\n")
    counts = (b"counts calls=9 multicalls=4 entries=8 pte_writes=8 invlpg=1 tlb_flush=0 "
              b"refused=2 violations=0 shadow_mismatches=0 registered=4 register_calls=1 "
              b"unknown=0 tables=1 violations_dropped=0 abandoned=0\n")
    # what the guest of pv_refusals says it saw: wb accepted (UC), the other two refused
    refusals_res = {"res": {"ptr": "0x1000", "wb": "0x80000063:0:0x8000007b",
                            "outside": "0x80001063:-1:0", "reserved": "0x80002263:-22:0"}}
    cases = {  # how an answer goes wrong: what the socket sends of it
        "lost": lambda whole: b"",
        "cut short": lambda whole: whole[:whole.rstrip(b"\n").rfind(b"\n") + 1],
        "malformed": lambda whole: b"\x00\xffgarbage without an end",
        "an error": lambda whole: b"error answer of 5000000 bytes, over the limit of 4194304\n",
    }
    whole = {"refusals": refusal_lines + b"ok 2\n", f"revoke {frame:#x}": hit + b"ok 1\n",
             "counts": counts + b"ok\n", "violations": b"ok 0\n"}
    with tempfile.TemporaryDirectory(prefix="pvmap-ctl-") as d:
        env = type("Env", (), {})()
        env.args = type("Args", (), {"pv_unusable": False, "show_output": False})()
        hv = hypervisor.Hypervisor.__new__(hypervisor.Hypervisor)
        hv.lost, hv.granted = None, []
        env.hv = hv
        for case, spoil in [("whole", None)] + list(cases.items()):
            path = os.path.join(d, f"ctl-{len(os.listdir(d))}.sock")
            hv.ctl = path
            answers = {k: (v if spoil is None else spoil(v)) for k, v in whole.items()}
            server = FakeControl(path, answers)
            try:
                got = {
                    "pv_refusals": pv_half_verdict(env, pv.Refusals, "pv_refusals",
                                                   refusals_res, "pv-refusals"),
                    "pv_revoke_live": pv_half_verdict(
                        env, pv.Revoke, "pv_revoke_live", {},
                        [("pv-revoke", {"req": {"case": "live", "va": hex(va),
                                                "frame": hex(frame)}})]),
                }
                # pv_hazard_found: "normal" (after pvmap's unmap nothing may map the
                # frame: whole, "ok 0") gets the spoiled answer; "hazard" its whole one
                normal = b"ok 0\n"
                server.answers = dict(answers, **{f"revoke {frame:#x}":
                                                  spoil(normal) if spoil else normal})
                half = pv.Revoke(env, "pv_hazard_found")
                half.req = {"case": "normal", "va": hex(va), "frame": hex(frame)}
                half.sync("pv-revoke")
                server.answers = dict(whole)
                half.req = {"case": "hazard", "va": hex(va), "frame": hex(frame)}
                half.sync("pv-revoke")
                got["pv_hazard_found"] = half.verdict()
                server.answers = answers
                final = hv.final(False)
                got["pv_no_guest_pte_writes"] = (
                    "pass" if final and final[0][1] else "fail", final[0][2] if final else [])
            finally:
                server.close()
            for name, (verdict, diags) in got.items():
                text = " | ".join(diags)
                if spoil is None:
                    c.check(f"{name} passes on whole answers", verdict == "pass", text)
                else:
                    c.check(f"{name} fails, could not check, when the answer is {case}",
                            verdict == "fail" and "could not check" in text,
                            f"verdict {verdict}: {text[:300]}")
            if spoil is not None:
                c.notes.append(f"{case}: " + "; ".join(
                    f"{n} {v}" for n, (v, _) in got.items()))
        # and the reader itself: an answer longer than the daemon ever sends, never ended
        path = os.path.join(d, "ctl-long.sock")
        hv.ctl = path
        server = FakeControl(path, {"*": b"revoke 0x1: PTE of va 0x2 (hypercall #3)\n" * 200000})
        try:
            hv.control("revoke 0x1")
            err = None
        except OSError as e:
            err = str(e)
        server.close()
        c.check("an endless answer is refused", err and "could not check" in err, repr(err))


# --- vm_agent_flood --------------------------------------------------------------------

def test_agent_flood(c):
    """A reply line that never ends, and replies to other requests that never stop."""
    limit = getattr(vmlib, "AGENT_REPLY_MAX", 64 * MiB)
    # 1. one line without an end: refused once it is longer than the limit
    total = 4 * limit
    agent = FakeAgent(lambda a, ident, script:
                      bounded_flood(a, ident.encode() + b" 0 " + b"QUFB" * 65536, total, 120)
                      and None)
    vm = agent.vm()
    start = time.monotonic()
    try:
        vm.run("cat /dev/zero | base64 -w0", timeout=300)
        err = None
    except vmlib.VMError as e:
        err = str(e)
    took = time.monotonic() - start
    agent.close()
    c.check("an endless reply line is refused", err is not None,
            "run() returned, as if the line had ended")
    c.check("the host stops reading near the limit", agent.sent < limit + 16 * MiB,
            f"the VM sent {agent.sent >> 20} MiB before the host stopped reading "
            f"(limit {limit >> 20} MiB, the flood {total >> 20} MiB)")
    c.notes.append(f"endless line: {err!r} after {took:.1f} s, {agent.sent >> 20} MiB sent")

    # 2. complete lines, each a reply to some other request, for 30 s: the request's
    # deadline (2 s) ends it while the VM still sends
    flooding = threading.Event()

    def others(a, ident, script):
        flooding.set()
        bounded_flood(a, b"x1 0 \n" * 8192, 1 << 40, 30)
        flooding.clear()

    agent = FakeAgent(others)
    vm = agent.vm()
    start = time.monotonic()
    try:
        vm.run("true", timeout=2)
        err = None
    except vmlib.VMError as e:
        err = str(e)
    still = flooding.is_set()
    took = time.monotonic() - start
    agent.close()
    c.check("replies to other requests do not extend the deadline",
            err is not None and "no reply in 2 s" in err and still,
            f"run(timeout=2): {err!r} after {took:.1f} s, the VM "
            f"{'still' if still else 'no longer'} sending")
    c.notes.append(f"other requests' replies: {err!r} after {took:.1f} s, the VM "
                   f"{'still' if still else 'no longer'} sending ({agent.sent >> 20} MiB sent)")


# --- vm_fetch_bomb ---------------------------------------------------------------------

def gzip_of_zeros(size):
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(MiB)
    parts = [z.compress(block) for _ in range(size // MiB)]
    parts.append(z.flush())
    return b"".join(parts)


def test_fetch_bomb(c):
    """fetch() of 512 MiB of zeros gzipped (about 500 KiB on the wire): refused, the
    host never holding more than the sizes it allows."""
    bomb = gzip_of_zeros(512 * MiB)
    small = 1 * MiB  # what the VM says the file is

    def answer(a, ident, script):
        if "stat " in script:
            return 0, f"{small}\n".encode()
        return 0, base64.b64encode(bomb)  # the script's output: base64 of the gzip

    agent = FakeAgent(answer)
    vm = agent.vm()
    tracemalloc.start()
    try:
        data = vm.fetch("/root/root.xwd")
        err = None
    except vmlib.VMError as e:
        data, err = None, str(e)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    agent.close()
    c.check("the bomb is refused", err is not None and data is None,
            f"fetch() returned {len(data) if data is not None else 0} bytes")
    c.check("the host held no more than the bounds allow", peak < 64 * MiB,
            f"peak {peak >> 20} MiB allocated by Python during fetch()")
    c.notes.append(f"{len(bomb) >> 10} KiB of gzip for 512 MiB: {err!r}; "
                   f"peak {peak >> 20} MiB")

    # the VM says the file is larger than allowed: nothing is transferred
    big = FakeAgent(lambda a, ident, script: (0, b"2147483648\n") if "stat " in script
                    else (0, base64.b64encode(bomb)))
    vm = big.vm()
    try:
        vm.fetch("/vmlinuz")
        err = None
    except vmlib.VMError as e:
        err = str(e)
    big.close()
    c.check("a file larger than allowed is refused before it is sent",
            err is not None and len(big.scripts) == 1, f"{err!r}, {len(big.scripts)} requests")

    # an honest file still comes through, in pieces
    body = os.urandom(9 * MiB + 123)

    def honest(a, ident, script):
        if "stat " in script:
            return 0, f"{len(body)}\n".encode()
        k = int(script.split("skip=")[1].split()[0])
        piece = body[k * vmlib.FETCH_CHUNK:(k + 1) * vmlib.FETCH_CHUNK]
        z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return 0, base64.b64encode(z.compress(piece) + z.flush())

    agent = FakeAgent(honest)
    vm = agent.vm()
    try:
        got = vm.fetch("/boot/vmlinuz-x", max_size=16 * MiB)
    except vmlib.VMError as e:
        got = str(e).encode()
    agent.close()
    c.check("a file within the bound is fetched whole", got == body,
            f"{len(got)} bytes, want {len(body)}")


# --- vm_no_host_parse_of_vm_disk -------------------------------------------------------

# programs that read an ext2/3/4 file system from its bytes (e2fsprogs, e2tools,
# libguestfs, fuse2fs), and a loop mount: none may touch a disk a VM wrote
EXT_PARSERS = ("debugfs", "dumpe2fs", "e2fsck", "fsck.ext4", "e2cp", "e2ls", "e2cat",
               "e2tail", "e2mv", "e2rm", "e2mkdir", "e2ln", "fuse2fs", "guestmount",
               "guestfish", "virt-cat", "virt-copy-out")
VM_TOOLS = ("tools/host/pvmaplib/vm.py", "tests/packaging/vm-check", "tools/host/vm-bench",
            "tools/host/vm-image.sh")


def code_lines(path):
    """(number, line) of @path but its comment lines (a comment after code stays:
    strict rather than fooled by a '#' in a string)."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield n, line


def test_no_host_parse(c):
    import re
    word = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, EXT_PARSERS)) +
                      r")(?![\w.-])|mount\s+-o\s+\S*loop")
    for rel in VM_TOOLS:
        hits = [f"{rel}:{n}: {line.strip()}" for n, line in code_lines(os.path.join(TOP, rel))
                if word.search(line)]
        c.check(f"{rel} runs no file-system parser", not hits, "; ".join(hits[:5]))

    with tempfile.TemporaryDirectory(prefix="pvmap-vmboot-") as d:
        image = os.path.join(d, "image")
        fake = os.path.join(d, "bin")
        os.makedirs(image)
        os.makedirs(fake)
        for name, body in (("disk.img", b"\0" * 4096), ("vmlinuz", b"the image's kernel"),
                           ("initrd.img", b"the image's initrd"),
                           ("kernel", b"6.1.0-47-686-pae\n")):
            with open(os.path.join(image, name), "wb") as f:
                f.write(body)
        ran = os.path.join(d, "ran")
        for tool in EXT_PARSERS:
            with open(os.path.join(fake, tool), "w") as f:
                f.write(f"#!/bin/sh\necho \"{tool} $*\" >>{ran}\nexit 1\n")
            os.chmod(os.path.join(fake, tool), 0o755)
        argv = os.path.join(d, "qemu-argv")
        with open(os.path.join(fake, "qemu-system-i386"), "w") as f:
            f.write(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >{argv}\nexit 1\n")
        os.chmod(os.path.join(fake, "qemu-system-i386"), 0o755)
        path = os.environ["PATH"]
        os.environ["PATH"] = fake + os.pathsep + path
        try:
            vm = vmlib.VM(image, "i386", os.path.join(d, "work"), os.path.join(image, "disk.img"))
            try:
                vm.boot(timeout=30)
                err = None
            except vmlib.VMError as e:
                err = str(e)
        finally:
            os.environ["PATH"] = path
        tools = open(ran).read().splitlines() if os.path.exists(ran) else []
        c.check("no file-system parser ran on the VM's disk", not tools, "; ".join(tools[:3]))
        args = open(argv).read().splitlines() if os.path.exists(argv) else []
        kernel = args[args.index("-kernel") + 1] if "-kernel" in args else None
        initrd = args[args.index("-initrd") + 1] if "-initrd" in args else None
        c.check("QEMU boots the image's own kernel and initrd",
                kernel == os.path.join(image, "vmlinuz") and
                initrd == os.path.join(image, "initrd.img") and
                getattr(vm, "release", None) == "6.1.0-47-686-pae",
                f"-kernel {kernel}, -initrd {initrd}, release {getattr(vm, 'release', None)}; "
                f"boot: {err}")
        c.notes.append(f"boot with a fake QEMU: {err}")


# --- vm_kernel_fetch_bounded -----------------------------------------------------------

def test_kernel_fetch_bounded(c):
    import hashlib
    old, new = "6.1.0-47-686-pae", "6.1.0-50-686-pae"
    links = f"boot/vmlinuz-{new}\nboot/initrd.img-{new}\n".encode()
    files = {f"/boot/vmlinuz-{new}": os.urandom(3 * MiB + 5),
             f"/boot/initrd.img-{new}": os.urandom(9 * MiB + 7),
             f"/boot/vmlinuz-{old}": b"the image's kernel",
             f"/boot/initrd.img-{old}": b"the image's initrd"}

    def agent_for(sizes, link_answer=links):
        def answer(a, ident, script):
            if "readlink" in script:
                return 0, link_answer
            if "sha256sum" in script:
                paths = script.split("-- ", 1)[1].split()
                return 0, "".join(f"{hashlib.sha256(files.get(p, b'')).hexdigest()}  {p}\n"
                                  for p in paths).encode()
            for path, body in files.items():
                if path in script and "stat " in script:
                    return 0, f"{sizes.get(path, len(body))}\n".encode()
                if path in script:
                    k = int(script.split("skip=")[1].split()[0])
                    piece = body[k * vmlib.FETCH_CHUNK:(k + 1) * vmlib.FETCH_CHUNK]
                    z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
                    return 0, base64.b64encode(z.compress(piece) + z.flush())
            return 1, b"no such file\n"
        return FakeAgent(answer)

    with tempfile.TemporaryDirectory(prefix="pvmap-vmkernel-") as d:
        image = os.path.join(d, "image")
        os.makedirs(image)
        for name in ("vmlinuz", "initrd.img"):
            with open(os.path.join(image, name), "wb") as f:
                f.write(files[f"/boot/{name}-{old}"])
        work = os.path.join(d, "work")
        os.makedirs(work)

        def vm_on(agent):
            vm = agent.vm()
            vm.work, vm.release = work, old
            vm.kernel, vm.initrd = os.path.join(image, "vmlinuz"), os.path.join(image, "initrd.img")
            return vm

        # a sparse 2 GiB /vmlinuz: refused on its size, nothing transferred
        agent = agent_for({f"/boot/vmlinuz-{new}": 2 << 30})
        vm = vm_on(agent)
        try:
            vm.follow_default_kernel()
            err = None
        except vmlib.VMError as e:
            err = str(e)
        agent.close()
        c.check("a 2 GiB kernel is refused before it is sent",
                err is not None and not any("dd " in sc for sc in agent.scripts) and
                vm.kernel == os.path.join(image, "vmlinuz") and vm.release == old,
                f"{err!r}; requests {[sc.splitlines()[-1][:50] for sc in agent.scripts]}")
        c.notes.append(f"2 GiB /vmlinuz: {err}")

        # links that name no kernel of /boot's, or two different ones: refused
        for odd in (b"/etc/shadow\nboot/initrd.img-x\n",
                    f"boot/vmlinuz-{new}\nboot/initrd.img-6.1.0-1-x\n".encode(),
                    b"boot/vmlinuz-../../etc/shadow\nboot/initrd.img-../../etc/shadow\n"):
            agent = agent_for({}, odd)
            vm = vm_on(agent)
            try:
                vm.follow_default_kernel()
                err = None
            except vmlib.VMError as e:
                err = str(e)
            agent.close()
            c.check(f"links {odd[:40]!r} are refused", err is not None and len(agent.scripts) == 1,
                    f"{err!r}, {len(agent.scripts)} requests")

        # an honest new kernel: fetched, and the next boot's
        agent = agent_for({})
        vm = vm_on(agent)
        try:
            got = vm.follow_default_kernel()
        except vmlib.VMError as e:
            got = f"VMError: {e}"
        agent.close()
        ok = got == new and vm.release == new
        for path, attr in ((f"/boot/vmlinuz-{new}", "kernel"), (f"/boot/initrd.img-{new}", "initrd")):
            dest = getattr(vm, attr)
            ok &= dest.startswith(work + os.sep) and open(dest, "rb").read() == files[path]
        c.check("an honest kernel is fetched whole and booted next", ok,
                f"{got}; kernel {vm.kernel}, initrd {vm.initrd}")

        # the kernel booting now: nothing fetched
        same = f"boot/vmlinuz-{old}\nboot/initrd.img-{old}\n".encode()
        agent = agent_for({}, same)
        vm = vm_on(agent)
        vm.follow_default_kernel()
        agent.close()
        c.check("the running kernel is not fetched again",
                not any("dd " in sc for sc in agent.scripts) and
                vm.kernel == os.path.join(image, "vmlinuz") and
                vm.initrd == os.path.join(image, "initrd.img"), f"{len(agent.scripts)} requests")

        # its initrd rebuilt in the VM: that file alone is fetched
        files[f"/boot/initrd.img-{old}"] = b"an initrd the VM rebuilt"
        agent = agent_for({}, same)
        vm = vm_on(agent)
        vm.follow_default_kernel()
        agent.close()
        fetched = [sc for sc in agent.scripts if "dd " in sc]
        c.check("an initrd the VM rebuilt is fetched, the kernel is not",
                len(fetched) == 1 and f"initrd.img-{old}" in fetched[0] and
                vm.kernel == os.path.join(image, "vmlinuz") and
                open(vm.initrd, "rb").read() == b"an initrd the VM rebuilt",
                f"{len(fetched)} fetched; kernel {vm.kernel}, initrd {vm.initrd}")


# --- debootstrap_checks_gpg ------------------------------------------------------------

def test_debootstrap_gpg(c):
    import re
    import subprocess
    host = os.path.join(TOP, "tools", "host")
    packaging = os.path.join(TOP, "tests", "packaging")
    bare = re.compile(r"(^|[;&|({]|\bthen|\bdo|\belse)\s*debootstrap\s")
    scripts = [os.path.join(d, n) for d in (host, packaging) for n in sorted(os.listdir(d))]
    c.check("the scan finds scripts in tools/host/ and tests/packaging/",
            all(any(os.path.dirname(p) == d and p.endswith(".sh") for p in scripts)
                for d in (host, packaging)))
    for path in scripts:
        name = os.path.basename(path)
        if not os.path.isfile(path) or name == "debian-root.sh":
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        if not text.startswith("#!") or "sh" not in text.splitlines()[0]:
            continue
        hits = [f"{name}:{n}: {line.strip()}" for n, line in code_lines(path) if bare.search(line)]
        c.check(f"{name} runs debootstrap only through debian_debootstrap", not hits,
                "; ".join(hits[:3]))
    for name in (os.path.join(host, "vm-image.sh"),
                 os.path.join(packaging, "dkms-install-check.sh")):
        with open(name) as f:
            c.check(f"{os.path.basename(name)} makes its root with debian_debootstrap",
                    "debian_debootstrap " in f.read())
    with tempfile.TemporaryDirectory(prefix="pvmap-debootstrap-") as d:
        with open(os.path.join(d, "debootstrap"), "w") as f:
            f.write("#!/bin/sh\nfor a; do echo \"arg: $a\"; done\n")
        os.chmod(os.path.join(d, "debootstrap"), 0o755)
        res = subprocess.run(
            ["bash", "-c", '. "$1" && debian_debootstrap --arch=i386 --variant=minbase '
             'bookworm /nonexistent/root http://deb.debian.org/debian', "sh",
             os.path.join(host, "debian-root.sh")],
            env=dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"]),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    args = [ln[5:] for ln in res.stdout.splitlines() if ln.startswith("arg: ")]
    c.check("debian_debootstrap verifies the archive's signature",
            res.returncode == 0 and "--force-check-gpg" in args and
            "--keyring=/usr/share/keyrings/debian-archive-keyring.gpg" in args and
            args[-4:] == ["--variant=minbase", "bookworm", "/nonexistent/root",
                          "http://deb.debian.org/debian"][-4:],
            f"exit {res.returncode}: {res.stdout.strip()[-300:]}")
    c.notes.append("debootstrap " + " ".join(args))
    with open(os.path.join(TOP, "tools", "deps.sh")) as f:
        deps = f.read()
    c.check("deps.sh installs Debian's archive keyring and gpgv",
            re.search(r"\bdebian-archive-keyring\b", deps) and re.search(r"\bgpgv\b", deps))


TESTS = [("run_guest_shm_symlink", test_shm_symlink),
         ("pv_control_answer_lost", test_control_answer_lost),
         ("vm_agent_flood", test_agent_flood),
         ("vm_fetch_bomb", test_fetch_bomb),
         ("vm_no_host_parse_of_vm_disk", test_no_host_parse),
         ("vm_kernel_fetch_bounded", test_kernel_fetch_bounded),
         ("debootstrap_checks_gpg", test_debootstrap_gpg)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="run only this test (repeatable)")
    args = ap.parse_args()
    w = ktap.Writer("host-hardening")
    for name, fn in TESTS:
        if args.only and name not in args.only:
            continue
        c = Checks()
        try:
            fn(c)
        except Exception as e:  # noqa: BLE001 -- a test that breaks is a failure, never a pass
            c.failed.append(f"FAILED: {type(e).__name__}: {e}")
        w.add(name, not c.failed, *c.failed, *c.notes)
    return w.report()


if __name__ == "__main__":
    sys.exit(main())
