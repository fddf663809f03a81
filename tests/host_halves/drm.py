# SPDX-License-Identifier: GPL-2.0
"""Host halves of pvmap_drm's tests (run-guest --drm-vga-mb): the screen as QMP's
screendump shows it, VRAM as pmemsave reads it, the card's unplug."""

import os
import time

from pvmaplib import benchcheck
from pvmaplib.qmp import QMPError
from pvmaplib.halves import HostHalf, host_half, kv
from pvmaplib.halves.bases import DRM_VGA_ID, Frame

host_half("drm_fbcon", "drm_unblank_after_previous_driver", "drm_modeset_scans_out_its_fb",
          "drm_modetest_smpte", "drm_fps_client")(Frame)


def vga_bar(qmp):
    """The guest-physical base of pvmap_drm's VRAM BAR, from query-pci."""
    for bus in qmp.execute("query-pci"):
        for dev in bus.get("devices", []):
            if dev.get("qdev_id") == DRM_VGA_ID:
                for r in dev.get("regions", []):
                    if r.get("bar") == 0:
                        return r["address"]
    raise KeyError(f"no BAR0 of {DRM_VGA_ID} in query-pci")


@host_half("drm_vram_beyond_vmalloc")
class Vram(HostHalf):
    """Each buffer's first and last page, as QMP pmemsave reads them from VRAM,
    hold the pattern the guest wrote through its mmap."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.bos = []

    def line_drm_bo(self, text):
        f = kv(text)
        self.bos.append((int(f["off"], 16), int(f["size"], 16), int(f["seed"], 16)))

    def sync_drm_vram(self):
        base = vga_bar(self.env.qmp)
        bad, tmp = [], self.env.shm + ".pmem"
        for off, size, seed in self.bos:
            for page in (0, size - 4096):
                self.env.qmp.execute("pmemsave", val=base + off + page, size=4096, filename=tmp)
                with open(tmp, "rb") as f:
                    data = f.read()
                if data != benchcheck.pattern_bytes(seed, page, 4096):
                    bad.append(f"VRAM {off + page:#x}: not the guest's pattern")
        if os.path.exists(tmp):
            os.unlink(tmp)
        top = max((off + size for off, size, _ in self.bos), default=0)
        self.check("drm_vram_beyond_vmalloc", bool(self.bos) and not bad,
                   f"{len(self.bos)} buffers up to VRAM {top:#x} (BAR at {base:#x}): "
                   f"{2 * len(self.bos) - len(bad)} of {2 * len(self.bos)} pages "
                   "hold the guest's pattern", *bad[:5])
        self.bos = []


@host_half("drm_unplug")
class Unplug(HostHalf):
    """device_del of the secondary-vga while the guest holds a mapping of VRAM."""

    def sync_drm_unplug(self):
        self.env.qmp.execute("device_del", id=DRM_VGA_ID)
        self.env.qmp.wait_event("DEVICE_DELETED", timeout=30, device=DRM_VGA_ID)
        self.check("drm_unplug", True, f"device_del {DRM_VGA_ID}: DEVICE_DELETED")


@host_half("device_del_during_stalled_upload")
class UnplugStalled(HostHalf):
    """device_del of the secondary-vga while an UPLOAD's source page stalls in the
    guest: DEVICE_DELETED within 10 s, or the unplug waits on a user fault."""

    def sync_drm_unplug_stalled(self):
        start = time.monotonic()
        self.env.qmp.execute("device_del", id=DRM_VGA_ID)
        try:
            self.env.qmp.wait_event("DEVICE_DELETED", timeout=10, device=DRM_VGA_ID)
            ok, what = True, f"DEVICE_DELETED after {time.monotonic() - start:.1f} s"
        except QMPError as e:
            ok, what = False, f"no DEVICE_DELETED in 10 s ({e}): the unplug waits on the UPLOAD"
        self.check("device_del_during_stalled_upload", ok, f"device_del {DRM_VGA_ID}: {what}")
