# SPDX-License-Identifier: GPL-2.0
"""test_audit.py's harness: a fake QMP server for a guest of audit_guest_model.py
(hostile when a hook says so), pvmap-audit run over such servers, and the
sub-checks of one KTAP test."""

import json
import os
import socket
import subprocess
import tempfile
import threading
import time

def qmp_line(obj):
    return (json.dumps(obj) + "\r\n").encode()


# what pvmap-audit must never send a guest, each a fake server got: (socket, command line)
FORBIDDEN_SENT = []


def forbidden(line):
    """Why pvmap-audit must never send the human-monitor command @line, or None. `info
    mtree -f` (the flat view): after it QEMU 7.2 never completes a later device_del."""
    words = (line or "").split()
    if words[:2] == ["info", "mtree"] and any(w.startswith("-") and "f" in w for w in words[2:]):
        return "after `info mtree -f` QEMU 7.2 never completes a later device_del"
    return None


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
            why = forbidden(line)
            if why:  # never answered, hook or not; the test that ran it fails
                FORBIDDEN_SENT.append((self.path, line))
                conn.sendall(qmp_line({"error": {"class": "GenericError",
                                                 "desc": f"{line!r}: never to be sent: {why}"}}))
                continue
            hooked = self.hook(cmd.get("execute"), line, cpu) if self.hook else None
            if hooked is not None:
                data, action = hooked if isinstance(hooked, tuple) else (hooked, None)
                if action == "shut":
                    # before the reply: the auditor's next write, which only the reply
                    # lets it make, must meet a closed end, not land in a buffer
                    conn.shutdown(socket.SHUT_RD)
                conn.sendall(data)
                if action == "close":
                    return
                if action == "shut":
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
