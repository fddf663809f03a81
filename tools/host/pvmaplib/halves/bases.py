# SPDX-License-Identifier: GPL-2.0
"""Host halves that both a guest test and a program's own half are built on:
the hazard scenario (the hazard_scenario test, and make demo), the screen
against the guest's frame (the pvmap_drm tests, and make bench's DRM rows) and
the PTE trace copy (trace_1mib_pwrite, and make bench). The tests register them
under their names in tests/host_halves/; programs.py subclasses them."""

import json
import os
import re

from .. import screen
from . import HostHalf, kv
from .actions import TOP, LiveHalf, PatternHalf, read_backing, write_backing

SENTINEL = b"HOST SENTINEL: page A now belongs to someone else. ".ljust(64, b"#")

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


class Hazard(LiveHalf):
    """The hypervisor hands page A to another owner (a sentinel marks it), then:
    normal mode: the write through the old pointer faults, the sentinel stays and
    the audit is clean; hazard mode: it lands and the audit finds the stale va."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.hazard = None
        self.write = None
        self.outcomes = []  # one dict per scenario run

    def line_hazard(self, text):
        f = kv(text)
        self.hazard = (int(f["off"], 16), int(f["va"], 16), f["mode"])

    def line_hazard_write(self, text):
        self.write = text.split()[0] if text else None

    def sync_hazard_reassign(self):
        write_backing(self.env, self.hazard[0], SENTINEL)

    def sync_hazard_check(self):
        off, va, mode = self.hazard
        intact = read_backing(self.env, off, len(SENTINEL)) == SENTINEL
        rc, out = self.audit()
        found = f"STALE: va {va:#x}" in out
        self.outcomes.append({"mode": mode, "write": self.write, "sentinel_intact": intact,
                              "audit_rc": rc, "audit": out.strip(), "va": va})
        if mode == "hazard":
            ok = not intact and rc == 1 and found
        else:
            ok = intact and rc == 0
        self.check(f"hazard_outcome_{mode}", ok,
                   f"write through the old pointer: {self.write}; host sentinel "
                   f"{'intact' if intact else 'CORRUPTED'}; pvmap-audit exit {rc}"
                   f"{' (the stale va found)' if found else ''}",
                   *out.strip().splitlines()[:12])
        self.hazard = None


class Trace(PatternHalf):
    """Copy the PTE trace the guest left in the aperture next to the log."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.traces = []

    def line_trace(self, text):
        f = kv(text)
        self.traces.append((int(f["off"], 16), int(f["len"], 16)))

    def sync_trace(self):
        for off, length in self.traces:
            data = read_backing(self.env, off, length)
            path = re.sub(r"\.log$", "", self.env.args.log) + "-trace.txt"
            with open(path, "wb") as out:
                out.write(data)
            # tracefs's trace file (pvmap:pvmap_pte events; none where x86_64 maps whole)
            self.check("trace_saved", data.startswith(b"# tracer: "),
                       f"{len(data)} bytes to {os.path.relpath(path, TOP)}")
        if not self.traces:
            self.check("trace_saved", False, "no trace line before the handshake")
        self.traces = []
