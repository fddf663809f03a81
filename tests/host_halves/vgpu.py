# SPDX-License-Identifier: GPL-2.0
"""Host halves of the virtio-gpu tests (run-guest --vgpu): the blobs the host
maps into the device's host-visible window, as QEMU's memory tree shows them."""

import os
import re
import tempfile

from pvmaplib.qmp import QMPError
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.actions import pattern_tool
from pvmaplib.halves.programs import STALE_MSG

# "    00000000e0000000-00000000efffffff (prio 0, container): virtio-gpu-hostmem"
_RANGE = re.compile(r"^(\s*)([0-9a-f]+)-([0-9a-f]+) \(prio -?\d+, [^)]+\): (.*)$")


def hostmem_blobs(mtree):
    """(window, [(base, size, name)]) of virtio-gpu-hostmem in `info mtree`'s text:
    the window's (base, size) and each region mapped inside it; (None, [])
    when there is no window."""
    window, blobs, depth = None, [], None
    for line in mtree.splitlines():
        m = _RANGE.match(line)
        if not m:
            continue
        indent, lo, hi, name = len(m.group(1)), int(m.group(2), 16), int(m.group(3), 16), m.group(4)
        if window is None:
            if name.startswith("virtio-gpu-hostmem"):
                window, depth = (lo, hi - lo + 1), indent
            continue
        if indent <= depth:
            break
        blobs.append((lo, hi - lo + 1, name))
    return window, blobs


def _hostmem(half, label):
    """(window, blobs) from `info mtree`, or None after a failed check."""
    try:
        mtree = half.env.qmp.hmp("info mtree")
    except QMPError as e:
        half.check(label, False, f"info mtree: {e}")
        return None
    window, blobs = hostmem_blobs(mtree)
    if window is None:
        half.check(label, False, "no virtio-gpu-hostmem in info mtree",
                   *[ln.strip() for ln in mtree.splitlines() if "virtio-gpu" in ln][:8])
        return None
    return window, blobs


def _read_window(half, label, addr, size):
    """@size bytes at guest-physical @addr (pmemsave), or None after a failed check."""
    with tempfile.TemporaryDirectory(prefix="pvmap-vgpu-") as tmp:
        path = os.path.join(tmp, "bytes")
        try:
            half.env.qmp.execute("pmemsave", val=addr, size=size, filename=path)
        except QMPError as e:
            half.check(label, False, f"pmemsave {addr:#x}+{size:#x}: {e}")
            return None
        with open(path, "rb") as f:
            return f.read()


@host_half("vgpu_blob_roundtrip", "vgpu_pvmap_reads_blob")
class BlobRoundtrip(HostHalf):
    """The guest's blob, found in the window at the window offset the guest
    names (at=, 0 when it does not know it), and its bytes read there: the
    pattern of the seed at that window offset (at 0 when at=0)."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.blob = None

    def line_vgpu_blob(self, text):
        f = kv(text)
        self.blob = int(f["size"], 16), int(f["seed"], 16), int(f.get("at", "0"), 16)

    def sync_vgpu_blob(self):
        if not self.blob:
            self.check("vgpu_blob_in_window", False, "no vgpu-blob line before the handshake")
            return
        size, seed, at = self.blob
        found = _hostmem(self, "vgpu_blob_in_window")
        if not found:
            return
        window, blobs = found
        # at=0 from a guest that did not look: the one blob of that size
        match = [b for b in blobs if b[1] == size and (not at or b[0] == window[0] + at)]
        ok = len(match) == 1
        self.check("vgpu_blob_in_window", ok,
                   f"window {window[0]:#x}+{window[1]:#x}: {len(blobs)} region(s) mapped, "
                   f"{len(match)} of {size:#x} bytes" + (f" at offset {at:#x}" if at else ""),
                   *([] if ok else [f"{b[0]:#x}+{b[1]:#x} {b[2]}" for b in blobs][:8]))
        if not ok:
            return
        data = _read_window(self, "vgpu_blob_bytes_host", match[0][0], size)
        if data is None:
            return
        with tempfile.TemporaryDirectory(prefix="pvmap-vgpu-") as tmp:
            # the pattern's position is the window offset: the bytes placed there
            path = os.path.join(tmp, "window")
            with open(path, "wb") as f:
                f.seek(at)
                f.write(data)
            res = pattern_tool("verify", path, hex(at), hex(size), hex(seed))
        self.check("vgpu_blob_bytes_host", res.returncode == 0,
                   f"{size:#x} bytes at {match[0][0]:#x}: "
                   f"{res.stdout.strip() or 'the guest pattern'}")


@host_half("vgpu_blob_reuse_hazard")
class BlobReuse(HostHalf):
    """After each run of the hazard: blob B is live in the window at the offset
    blob A had, and holds the stale message exactly when the guest says the
    write through the old pointer landed."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.run = None

    def line_vgpu_reuse(self, text):
        f = kv(text)
        self.run = int(f["at"], 16), f["landed"] == "1"

    def sync_vgpu_reuse(self):
        if not self.run:
            self.check("vgpu_reuse_blob_b", False, "no vgpu-reuse line before the handshake")
            return
        at, landed = self.run
        self.run = None
        found = _hostmem(self, "vgpu_reuse_blob_b")
        if not found:
            return
        window, blobs = found
        addr = window[0] + at
        live = [b for b in blobs if b[0] <= addr < b[0] + b[1]]
        self.check("vgpu_reuse_blob_b", len(live) == 1,
                   f"window offset {at:#x}: {len(live)} live blob(s) there",
                   *([] if len(live) == 1 else [f"{b[0]:#x}+{b[1]:#x} {b[2]}" for b in blobs][:8]))
        if len(live) != 1:
            return
        data = _read_window(self, "vgpu_reuse_bytes", addr, len(STALE_MSG))
        if data is None:
            return
        self.check("vgpu_reuse_bytes", (data == STALE_MSG) == landed,
                   f"blob B at {addr:#x} {'holds' if data == STALE_MSG else 'does not hold'} "
                   f"the stale message; the guest says the write "
                   f"{'landed' if landed else 'faulted'}")
