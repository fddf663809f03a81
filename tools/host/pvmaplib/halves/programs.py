# SPDX-License-Identifier: GPL-2.0
"""Host halves of the guest programs run with run-guest --run /bin/PROG, under
PROG's name: pvmap-demo (the hazard, shown) and pvmap-bench (whose pages the
host checks for tools/host/bench-report)."""

import json
import re

from .. import benchcheck
from . import host_half, kv
from .actions import read_backing
from .bases import Frame, Hazard, Trace, screendump

STALE_MSG = b"STALE WRITE through a pointer the guest had unmapped!!!!!"[:56]


@host_half("pvmap-demo")
class Demo(Hazard):
    """What the guest wrote, as the host reads it; the hazard scenario's rounds,
    side by side; a real stale write's page; pvmap_drm's screen."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.shows = []
        self.stale = None

    def line_show(self, text):
        f = kv(text)
        self.shows.append((int(f["off"], 16), int(f["len"], 16)))

    def sync_show(self):
        for off, length in self.shows:
            data = read_backing(self.env, off, length)
            print(f"host: read {len(data)} bytes at offset {off:#x} of {self.env.shm}:")
            for line in data.decode("utf-8", "replace").splitlines():
                print(f"host: | {line}")
            self.check("shown_from_backing_file", len(data) == length and b"pvmap" in data)
        self.shows = []

    def line_stale_write(self, text):
        f = kv(text)
        self.stale = (int(f["off"], 16), f["engine"], f["write"])

    def sync_stale_write_check(self):
        """Page A after an unmap and a write through the old pointer: did it land?"""
        off, engine, write = self.stale
        seen = read_backing(self.env, off, len(STALE_MSG)) == STALE_MSG
        if self.env.args.show_output:
            print(f"host: page A (aperture offset {off:#x}) after {engine}'s unmap "
                  f"{'HOLDS the stale write' if seen else 'does not hold the stale write'}",
                  flush=True)
        self.check(f"stale_write_{engine}", seen == (write == "landed"),
                   f"the guest says its write {write}; the host "
                   f"{'finds' if seen else 'does not find'} it in page A at {off:#x}")
        self.stale = None

    def sync_drm_screen(self):
        args = self.env.args
        path = args.screendump or re.sub(r"\.log$", "", args.log) + "-screen.png"
        shot = screendump(self.env, path)
        print(f"host: QMP screendump of pvmap_drm's screen: {path} ({shot.width}x{shot.height})")
        self.check("drm_screen_saved", shot.width > 0, path)

    def finish(self):
        if self.outcomes and self.env.args.show_output:
            print_outcomes(self.outcomes)


def print_outcomes(outcomes):
    """The hazard scenario's runs side by side, in plain words."""
    rows = [("", [f"{o['mode']} mode" for o in outcomes]),
            ("write through the old pointer", [o["write"] for o in outcomes]),
            ("host's sentinel in page A",
             ["intact" if o["sentinel_intact"] else "CORRUPTED" for o in outcomes]),
            ("pvmap-audit",
             ["clean (exit 0)" if o["audit_rc"] == 0 else
              f"stale mapping found (exit {o['audit_rc']})" for o in outcomes])]
    print("\nhost: the stale-mapping hazard, side by side:")
    for label, cells in rows:
        print(f"host:   {label:<31}" + "".join(f"{c:<34}" for c in cells))
    for o in outcomes:
        if o["audit_rc"] == 1:
            print(f"host: pvmap-audit's report in {o['mode']} mode:")
            for line in o["audit"].splitlines():
                print(f"host: | {line}")


@host_half("pvmap-bench")
class Bench(Frame, Trace):
    """Where each pass's bytes landed ('# pvmap-bench-verify:'), pvmap-hv's count
    of each PV pass's calls ('# pvmap-hv-bench:') and pvmap-drmfps's frames, into
    the console log for tools/host/bench-report, which judges them; the PTE trace
    of a 1 MiB PWRITE next to the log (tests/host/replay-traces replays it)."""

    def __init__(self, env, name):
        super().__init__(env, name)
        self.passes = 0

    def line_bench_verify(self, text):
        try:
            self.spec = json.loads(text)
        except ValueError:
            self.spec = None

    def sync_bench_verify(self):
        spec = self.spec or {}
        try:
            res = benchcheck.verify(self.env.shm, spec)
        except (OSError, ValueError, KeyError) as e:
            res = {"pages": 0, "wrong": -1, "error": str(e)}
        res.update({k: spec.get(k) for k in ("run", "workload", "engine", "cpus", "seed")})
        self.env.log.write(f"# pvmap-bench-verify: {json.dumps(res)}\n")
        self.passes += 1
        self.spec = None

    def sync_pv_counts(self):
        self.before = self.env.hv.counts()

    def line_pv_bench(self, text):
        self.pv_pass = kv(text)

    def sync_pv_bench(self):
        after, r = self.env.hv.counts(), self.pv_pass
        self.env.log.write("# pvmap-hv-bench: " + json.dumps({
            "run": int(r["run"]), "workload": r["workload"], "engine": r["engine"],
            "pages": int(r["pages"]),
            **{k: after[k] - self.before[k] for k in
               ("multicalls", "entries", "pte_writes", "invlpg", "refused")}}) + "\n")

    def finish(self):
        frames = sum(1 for label, _, _ in self.checks if label == "drm_fps_client")
        self.check("bench_passes_handed_over", self.passes or frames,
                   f"{self.passes} passes' pages and {frames} frames checked by the host, "
                   "into the log for tools/host/bench-report")
