# SPDX-License-Identifier: GPL-2.0
"""A minimal QMP client: JSON lines over a Unix socket."""

import json
import socket
import time


class QMPError(Exception):
    """QMP could not be reached, or a command returned an error."""


class QMP:
    def __init__(self, path, timeout=10.0):
        self.path = path
        self.timeout = timeout
        self.sock = None
        self.buf = b""
        self.events = []  # events that arrived while waiting for a reply

    def connect(self, wait=10.0):
        deadline = time.monotonic() + wait
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
                break
            except OSError as e:
                sock.close()
                if time.monotonic() >= deadline:
                    raise QMPError(f"cannot connect to QMP at {self.path}: {e}") from e
                time.sleep(0.05)
        self.sock = sock
        greeting = self._read()
        if "QMP" not in greeting:
            raise QMPError(f"not a QMP greeting: {greeting!r}")
        self.execute("qmp_capabilities")
        return self

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self):
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except OSError as e:
                raise QMPError(f"QMP read failed: {e}") from e
            if not chunk:
                raise QMPError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except ValueError as e:
            raise QMPError(f"malformed QMP reply: {line[:200]!r}") from e
        if not isinstance(msg, dict):
            raise QMPError(f"malformed QMP reply: {line[:200]!r}")
        return msg

    def execute(self, command, **arguments):
        req = {"execute": command}
        if arguments:
            req["arguments"] = arguments
        try:
            self.sock.sendall(json.dumps(req).encode() + b"\n")
        except OSError as e:
            raise QMPError(f"QMP write failed: {e}") from e
        while True:
            msg = self._read()
            if "event" in msg:
                self.events.append(msg)
                continue
            if "error" in msg:
                err = msg["error"]
                raise QMPError(f"{command}: {err.get('desc', err)}")
            if "return" in msg:
                return msg["return"]
            raise QMPError(f"unexpected QMP reply: {msg!r}")

    def wait_event(self, name, timeout=30.0, **data):
        """The first event @name whose data has @data (already seen, or awaited)."""
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events:
                if ev.get("event") == name and all(
                        ev.get("data", {}).get(k) == v for k, v in data.items()):
                    self.events.remove(ev)
                    return ev
            left = deadline - time.monotonic()
            if left <= 0:
                raise QMPError(f"no {name} event within {timeout} s")
            self.sock.settimeout(left)
            try:
                msg = self._read()
            finally:
                self.sock.settimeout(self.timeout)
            if "event" in msg:
                self.events.append(msg)

    def hmp(self, command_line):
        """A human-monitor command (info tlb, xp, ...); its text output."""
        return self.execute("human-monitor-command", **{"command-line": command_line})


def pci_memory_bars(query_pci_reply):
    """{(pci_name, bar): (base, size)} of every memory BAR in a query-pci reply."""
    bars = {}
    for bus in query_pci_reply:
        for dev in bus.get("devices", []):
            name = "0000:%02x:%02x.%x" % (dev["bus"], dev["slot"], dev["function"])
            for region in dev.get("regions", []):
                if region.get("type") == "memory":
                    bars[(name, region["bar"])] = (region["address"], region["size"])
    return bars
