# SPDX-License-Identifier: GPL-2.0
"""Host halves of the virtio-gpu tests (run-guest --vgpu): the blobs the host
maps into the device's host-visible window, as QEMU's memory tree shows them."""

import os
import re
import tempfile
import time

from pvmaplib.qmp import QMPError
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.actions import LiveHalf, audit_mappings, pattern_tool
from pvmaplib.halves.programs import STALE_MSG

# "    00000000e0000000-00000000efffffff (prio 0, container): virtio-gpu-hostmem";
# QEMU flags a region whose place wrapped around (mtree_print_mr(): 10.0 puts
# the flag before the indentation, older ones after it)
_RANGE = re.compile(r"^(\s*)((?:\[DETECTED OVERFLOW!\] )?)(\s*)([0-9a-f]+)-([0-9a-f]+) "
                    r"\(prio -?\d+, [^)]+\): (.*)$")


def hostmem_blobs(mtree):
    """(window, [(base, size, name)]) of virtio-gpu-hostmem in `info mtree`'s text:
    the window's (base, size) and each region mapped inside it, the name of one
    QEMU flags as overflowing marked so; (None, []) when there is no window."""
    window, blobs, depth = None, [], None
    for line in mtree.splitlines():
        m = _RANGE.match(line)
        if not m:
            continue
        indent = len(m.group(1)) + len(m.group(3))
        lo, hi = int(m.group(4), 16), int(m.group(5), 16)
        name = m.group(6) + (" (QEMU: DETECTED OVERFLOW)" if m.group(2) else "")
        if window is None:
            if name.startswith("virtio-gpu-hostmem"):
                window, depth = (lo, hi - lo + 1), indent
            continue
        if indent <= depth:
            break
        blobs.append((lo, hi - lo + 1, name))
    return window, blobs


def _hostmem(half, label):
    """(window, blobs) from `info mtree`, or None after a failed check: no
    window, or a region in it that QEMU flags as overflowing or that lies
    outside it (a guest that sent a wrapped offset), which no guest access
    reaches where the line says."""
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
    bad = [b for b in blobs if b[2].endswith("(QEMU: DETECTED OVERFLOW)") or
           b[0] < window[0] or b[0] + b[1] > window[0] + window[1]]
    if bad:
        half.check(label, False, f"window {window[0]:#x}+{window[1]:#x}: {len(bad)} region(s) "
                   "QEMU flags as overflowing or places outside it",
                   *[f"{b[0]:#x}+{b[1]:#x} {b[2]}" for b in bad][:8])
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


@host_half("vgpu_blob_roundtrip", "vgpu_pvmap_reads_blob", "vgpu_window_above_4g",
           "vgpu_blob_gpu_copy")
class BlobRoundtrip(HostHalf):
    """The guest's blob, found in the window at the window offset the guest
    names (at=; without it, the one blob of its size), and its bytes read
    there: the pattern of the seed at the position pos= names, else at that
    window offset (0 without at=)."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.blob = None
        self.place = None

    def line_vgpu_place(self, text):
        f = kv(text)
        self.place = tuple(int(f[k], 16) for k in ("window", "window_size", "phys", "size"))

    def sync_vgpu_place(self):
        """The guest's view of its blob against QEMU's: the window where the
        guest found it, and one blob of that size where the guest's map of it
        points (vgpu_window_above_4g: a 32-bit kernel that truncates the
        window maps something else, and QEMU maps the blob where the
        offset the guest gave it says)."""
        if not self.place:
            self.check("vgpu_blob_placed", False, "no vgpu-place line before the handshake")
            return
        base, size, phys, blob_size = self.place
        found = _hostmem(self, "vgpu_blob_placed")
        if not found:
            return
        window, blobs = found
        match = [b for b in blobs if b[0] == phys and b[1] == blob_size]
        self.check("vgpu_blob_placed", window == (base, size) and len(match) == 1,
                   f"the guest maps {phys:#x}+{blob_size:#x} in the window {base:#x}+{size:#x}; "
                   f"QEMU's window {window[0]:#x}+{window[1]:#x} holds {len(blobs)} region(s)",
                   *[f"{b[0]:#x}+{b[1]:#x} {b[2]}" for b in blobs][:8])

    def line_vgpu_blob(self, text):
        f = kv(text)
        at = int(f["at"], 16) if "at" in f else None
        pos = int(f["pos"], 16) if "pos" in f else at or 0
        self.blob = int(f["size"], 16), int(f["seed"], 16), at, pos

    def sync_vgpu_blob(self):
        if not self.blob:
            self.check("vgpu_blob_in_window", False, "no vgpu-blob line before the handshake")
            return
        size, seed, at, pos = self.blob
        found = _hostmem(self, "vgpu_blob_in_window")
        if not found:
            return
        window, blobs = found
        # no at= from a guest that did not look: the one blob of that size
        match = [b for b in blobs if b[1] == size and (at is None or b[0] == window[0] + at)]
        ok = len(match) == 1
        self.check("vgpu_blob_in_window", ok,
                   f"window {window[0]:#x}+{window[1]:#x}: {len(blobs)} region(s) mapped, "
                   f"{len(match)} of {size:#x} bytes" +
                   (f" at offset {at:#x}" if at is not None else ""),
                   *([] if ok else [f"{b[0]:#x}+{b[1]:#x} {b[2]}" for b in blobs][:8]))
        if not ok:
            return
        data = _read_window(self, "vgpu_blob_bytes_host", match[0][0], size)
        if data is None:
            return
        with tempfile.TemporaryDirectory(prefix="pvmap-vgpu-") as tmp:
            # the pattern's position (the window offset, unless the guest
            # names another): the bytes placed there
            path = os.path.join(tmp, "window")
            with open(path, "wb") as f:
                f.seek(pos)
                f.write(data)
            res = pattern_tool("verify", path, hex(pos), hex(size), hex(seed))
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


def _window_mappings(mappings, lo, hi):
    """pvmap-audit's mappings of guest-physical [lo, hi)."""
    return [m for m in mappings if m["pa"] < hi and lo < m["pa"] + m["size"]]


@host_half("audit_vgpu_clean")
class AuditVgpuClean(LiveHalf):
    """Two live blobs the guest maps (and its spinning processes with it):
    pvmap-audit, which takes the live blobs from info mtree, finds their user
    mappings and nothing stale."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.blobs = None

    def line_vgpu_clean(self, text):
        f = kv(text)
        self.blobs = [int(a, 16) for a in f["at"].split(",")], int(f["size"], 16)

    def sync_vgpu_audit(self):
        if not self.blobs:
            self.check("audit_vgpu_clean", False, "no vgpu-clean line before the handshake")
            return
        found = _hostmem(self, "audit_vgpu_clean")
        if not found:
            return
        (base, _), live_blobs = found
        ats, size = self.blobs
        missing = [a for a in ats if not any(b[0] == base + a and b[1] == size
                                             for b in live_blobs)]
        self.check("audit_vgpu_blobs_live", not missing,
                   f"{len(ats) - len(missing)} of the guest's {len(ats)} blobs in info mtree")
        live, self.live = self.live, []
        mappings, rc, out = audit_mappings(self.env, live)
        mappings = mappings or []
        users = [_window_mappings([m for m in mappings if m["kind"] == "user"],
                                  base + a, base + a + size) for a in ats]
        stale = [m for m in mappings if m["kind"] == "stale"]
        ok = rc == 0 and not stale and all(users)
        self.check("audit_vgpu_clean", ok,
                   f"pvmap-audit exit {rc}: {len(stale)} stale; user mappings of each blob: "
                   f"{[len(u) for u in users]}",
                   *([] if ok else out.strip().splitlines()[-12:]))


@host_half("audit_vgpu_stale")
class AuditVgpuStale(LiveHalf):
    """A kernel mapping the hazard engine left in a page of the window whose
    blob is gone: once info mtree shows no blob there, pvmap-audit lists it,
    stale and unbacked (exit 1)."""

    GONE_WAIT_S = 10

    def __init__(self, env, name):
        super().__init__(env, name)
        self.stale = None

    def line_vgpu_stale(self, text):
        f = kv(text)
        self.stale = int(f["va"], 16), int(f["at"], 16)

    def sync_vgpu_stale_audit(self):
        if not self.stale:
            self.check("audit_vgpu_stale", False, "no vgpu-stale line before the handshake")
            return
        va, at = self.stale
        deadline = time.monotonic() + self.GONE_WAIT_S
        while True:  # the guest's unmap of the blob reaches QEMU asynchronously
            found = _hostmem(self, "audit_vgpu_blob_gone")
            if not found:
                return
            (base, _), blobs = found
            there = [b for b in blobs if b[0] <= base + at < b[0] + b[1]]
            if not there or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.check("audit_vgpu_blob_gone", not there,
                   f"window offset {at:#x}: {'still a blob there' if there else 'no blob'}")
        if there:
            return
        live, self.live = self.live, []
        mappings, rc, out = audit_mappings(self.env, live)
        listed = [m for m in mappings or [] if m["va"] == va]
        ok = rc == 1 and len(listed) == 1 and listed[0]["kind"] == "stale" and \
            listed[0].get("unbacked") is True
        self.check("audit_vgpu_stale", ok,
                   f"pvmap-audit exit {rc}; va {va:#x} " +
                   (f"listed {listed[0]['kind']}, unbacked {listed[0].get('unbacked')}"
                    if listed else "not listed"),
                   *([] if ok else out.strip().splitlines()[-12:]))
