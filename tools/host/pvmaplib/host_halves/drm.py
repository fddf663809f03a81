# SPDX-License-Identifier: GPL-2.0
"""Host halves of pvmap_drm's tests (run-guest --drm-vga-mb): the screen as QMP's
screendump shows it, VRAM as pmemsave reads it, the card's unplug."""

import json
import os
import re
import time

from .. import benchcheck, screen
from ..qmp import QMPError
from . import HostHalf, host_half, kv
from .actions import read_backing

DRM_VGA_ID = "drmvga"  # the qdev id of pvmap_drm's secondary-vga (run-guest's -device)


def screendump(env, path):
    """QMP screendump of pvmap_drm's screen into @path; the PNG, read back."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    env.qmp.execute("screendump", filename=os.path.abspath(path), format="png", device=DRM_VGA_ID)
    return screen.read_png(path)


class Frame(HostHalf):
    """The screendump against the buffer the guest read back through its mmap (or,
    from pvmap-drmfps, the frame it uploaded) and left at offset 0 of the ivshmem
    aperture; for modetest, against the SMPTE pattern too; for the console, its
    text rows must hold glyphs."""

    def line_drm_frame(self, text):
        self.frame = kv(text)

    def sync_drm_frame(self):
        f = self.frame
        what, width, height, pitch = f["what"], int(f["width"]), int(f["height"]), int(f["pitch"])
        png = re.sub(r"\.log$", "", self.env.args.log) + f"-{what}.png"
        shot = screendump(self.env, png)
        guest = screen.xrgb8888_to_rgb(read_backing(self.env, 0, pitch * height),
                                       width, height, pitch)
        ndiff, first = screen.compare(shot, guest)
        rows = [f"screendump {png}: {shot.width}x{shot.height}; the guest's buffer "
                f"{width}x{height} (mode {f['mode']}): {ndiff} pixels differ"
                + (f", first {first}" if first else "")]
        ok = ndiff == 0 and first is None
        if what == "smpte":
            # 5 points of each bar, then every pixel, against libdrm's fill_smpte_rgb32
            bad = screen.smpte_check(shot, size=(1024, 768), exact=True)
            rows.append("SMPTE: " + ("every pixel as libdrm's modetest draws it" if not bad
                                     else "; ".join(bad[:5])))
            self.check("drm_modetest_smpte", ok and not bad, *rows)
        elif what == "modeset":  # its own buffer at 800x600
            self.check("drm_modeset_scans_out_its_fb",
                       ok and (shot.width, shot.height) == (800, 600), *rows)
        elif what == "fps":  # pvmap-drmfps's last frame, as it meant it
            self.check("drm_fps_client", ok, *rows)
            # for tools/host/bench-report: where that engine's bytes landed
            self.env.log.write("# pvmap-drm-verify: " + json.dumps({
                "engine": f.get("engine"), "upload": f.get("upload"), "differ": ndiff}) + "\n")
        else:  # the console: fbcon's text, or after another driver's blank, unblanked
            top = shot.pixels[:shot.width * 32 * 3]
            lit = sum(1 for i in range(0, len(top), 3) if top[i:i + 3] != b"\0\0\0")
            rows.append(f"text rows (the first 32 lines): {lit} lit pixels")
            name = "drm_unblank_after_previous_driver" if what == "unblank" else "drm_fbcon"
            self.check(name, ok and lit > 500, *rows)


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
