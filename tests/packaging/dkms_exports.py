# SPDX-License-Identifier: GPL-2.0
"""What dkms-guest and dkms-every-kernel share: dkms-check.sh's run, and the check
that the module it built exports pvmap's io_mapping API and nothing else
(include/pvmap/io_mapping.h: the PTE layer is a test build's)."""

import glob
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pvmaplib import ktap  # noqa: E402: the caller put tools/host on sys.path


def dkms_check(out, *heads):
    """tests/packaging/dkms-check.sh --out @out @heads, its KTAP on our stdout: its status."""
    return subprocess.run([os.path.join(TOP, "tests", "packaging", "dkms-check.sh"), "--out", out,
                           *heads]).returncode


def dkms_exports(out):
    """Each pvmap.ko under @out (one per kernel) exports include/pvmap/io_mapping.h's API
    only: a KTAP Writer."""
    w = ktap.Writer("dkms-exports")
    with open(os.path.join(TOP, "include", "pvmap", "io_mapping.h")) as f:
        # what the header declares out of line: prototypes and extern variables
        api = set(re.findall(r"^(?!static)(?:extern\s+)?[a-z_][\w \t]*[\s*](pvmap_\w+)\s*[(;]",
                             f.read(), re.M))
    kos = sorted(glob.glob(os.path.join(out, "*", "pvmap.ko")))
    for ko in kos:
        syms = subprocess.run(["nm", ko], stdout=subprocess.PIPE, text=True).stdout
        exported = re.findall(r" __ksymtab_(\w+)$", syms, re.M)
        extra = sorted(set(exported) - api)
        release = os.path.basename(os.path.dirname(ko))
        name = "dkms_exports_io_mapping_api_only_" + re.sub(r"\W", "_", release)
        w.add(name,
              bool(exported) and not extra, *[f"exported beyond the API: {x}" for x in extra],
              *([] if exported else ["exports nothing: not pvmap.ko?"]))
    if not kos:
        w.add("dkms_exports_io_mapping_api_only", False, f"no pvmap.ko under {out}")
    return w
