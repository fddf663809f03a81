# SPDX-License-Identifier: GPL-2.0
"""Host actions the host halves share, written once: the aperture's backing
file (patterns, reads, writes), pvmap-audit on the guest's QMP socket, and the
halves built on them (patterns the guest wrote, the live table it printed)."""

import json
import os
import subprocess
import tempfile

from ..qmp import QMP
from . import HostHalf, kv

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))


def host_tool(name, *args, timeout=None):
    """build/host/NAME ARGS: the CompletedProcess, output as text."""
    return subprocess.run([os.path.join(TOP, "build", "host", name), *args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def pattern_tool(*args):
    return host_tool("pvmap-pattern", *args)


def read_backing(env, off, length):
    """@length bytes at aperture offset @off, as the host's backing file holds them."""
    with open(env.shm, "rb") as f:
        f.seek(off)
        return f.read(length)


def write_backing(env, off, data):
    with open(env.shm, "r+b") as f:
        f.seek(off)
        f.write(data)


def run_audit(env, live, *options):
    """pvmap-audit @options on the guest's QMP socket, with the live table @live
    (lines) it printed: (exit status, output)."""
    with tempfile.NamedTemporaryFile("w", prefix="pvmap-live-", delete=False) as f:
        f.write("\n".join(live) + "\n")
        path = f.name
    env.qmp.close()  # QMP allows one client at a time: hand the socket over
    try:
        res = host_tool("pvmap-audit", *options, "--live", path, env.qmp_path, timeout=120)
    finally:
        os.unlink(path)
        env.qmp = QMP(env.qmp_path).connect()
    return res.returncode, res.stdout


def audit_mappings(env, live, *options):
    """pvmap-audit --json's aperture mappings: (list or None, exit status, output)."""
    rc, out = run_audit(env, live, "--json", *options)
    try:
        return [m for g in json.loads(out)["guests"] for m in g["mappings"]], rc, out
    except (ValueError, KeyError, TypeError):
        return None, rc, out


class LiveHalf(HostHalf):
    """A test that hands pvmap's live table to an audit ("# pvmap-host: live ...")."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.live = []

    def line_live(self, text):
        self.live.append(text)

    def audit(self, *options):
        """pvmap-audit with the live table printed so far, which it then forgets."""
        live, self.live = self.live, []
        return run_audit(self.env, live, *options)


class PatternHalf(HostHalf):
    """A test that writes patterns: each must be byte-exact at its offset of the
    backing file ("# pvmap-host: pattern off= len= seed=", then "pvmap-sync: pattern")."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.patterns = []

    def line_pattern(self, text):
        f = kv(text)
        self.patterns.append(tuple(int(f[k], 16) for k in ("off", "len", "seed")))

    def sync_pattern(self):
        for off, length, seed in self.patterns:
            res = pattern_tool("verify", self.env.shm, hex(off), hex(length), hex(seed))
            self.check("guest_pattern_in_backing_file", res.returncode == 0,
                       f"{length} bytes at {off:#x} seed {seed:#x}", res.stdout.strip())
        self.patterns = []

    def finish(self):
        if self.patterns:  # printed but never handed over with a handshake
            self.sync_pattern()
