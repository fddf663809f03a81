# SPDX-License-Identifier: GPL-2.0
"""Host halves of the virtio-gpu tests (run-guest --vgpu): the blobs the host
maps into the device's host-visible window, as QEMU's memory tree shows them."""

import os
import re
import tempfile

from pvmaplib.qmp import QMPError
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.actions import pattern_tool

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


@host_half("vgpu_blob_roundtrip")
class BlobRoundtrip(HostHalf):
    """The guest's blob, found in the window and its bytes read there."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.blob = None

    def line_vgpu_blob(self, text):
        f = kv(text)
        self.blob = int(f["size"], 16), int(f["seed"], 16)

    def sync_vgpu_blob(self):
        if not self.blob:
            self.check("vgpu_blob_in_window", False, "no vgpu-blob line before the handshake")
            return
        size, seed = self.blob
        try:
            mtree = self.env.qmp.hmp("info mtree")
        except QMPError as e:
            self.check("vgpu_blob_in_window", False, f"info mtree: {e}")
            return
        window, blobs = hostmem_blobs(mtree)
        found = [b for b in blobs if b[1] == size]
        ok = window is not None and len(found) == 1
        self.check("vgpu_blob_in_window", ok,
                   f"window {'%#x+%#x' % window if window else 'none'}: "
                   f"{len(blobs)} region(s) mapped, {len(found)} of {size:#x} bytes",
                   *([] if ok else [ln.strip() for ln in mtree.splitlines()
                                    if "virtio-gpu" in ln][:8]))
        if not ok:
            return
        base = found[0][0]
        with tempfile.TemporaryDirectory(prefix="pvmap-vgpu-") as tmp:
            path = os.path.join(tmp, "blob")
            try:
                self.env.qmp.execute("pmemsave", val=base, size=size, filename=path)
            except QMPError as e:
                self.check("vgpu_blob_bytes_host", False, f"pmemsave {base:#x}: {e}")
                return
            res = pattern_tool("verify", path, "0", hex(size), hex(seed))
        self.check("vgpu_blob_bytes_host", res.returncode == 0,
                   f"{size:#x} bytes at {base:#x}: {res.stdout.strip() or 'the guest pattern'}")
