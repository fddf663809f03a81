# SPDX-License-Identifier: GPL-2.0
"""The test guests: which kernel each boots, with which apertures and options.

The guests are tests/matrix.list's [guests] (tools/host/run-guest --guest NAME),
and what make check, check-full, soak and bench run its [runs].
A guest's KTAP stream is announced as '# Subtest: guest-NAME'. Kernels are
named as tools/host/guest-kernel.sh names them; 'arch' picks QEMU and the guest's
user space (build/<arch>/).
"""

import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

def _read_kernels():
    """tools/host/kernels.list: name -> (arch, HIGHMEM, what it is, source, modules)."""
    kernels = {}
    with open(os.path.join(TOP, "tools", "host", "kernels.list")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, arch, source, modules, highmem, what = (x.strip() for x in line.split("|"))
                kernels[name] = (arch, highmem, what, source, modules)
    return kernels


# name: (arch, HIGHMEM, what it is, how it is made, which make target needs it first);
# the paging levels are the guest's report
KERNELS = _read_kernels()

# One CPU model for every guest, and make vm-check's VMs: an Intel family-6
# model 15 (Core 2 class).
# - MTRRs and PAT, so write-combining is real: qemu32/qemu64 lack MTRRs and
#   Linux then skips PAT ("MTRRs disabled") and WC becomes UC-; Intel models
#   below 15 lose PAT to the kernel's Pentium III/Core Duo erratum check.
# - GenuineIntel family 6: Debian's i386 kernels copy misaligned user
#   buffers with __copy_user_intel there (X86_INTEL_USERCOPY), and x86_64
#   kernels turn page-table isolation on (no RDCL_NO).
# - 36+ physical address bits and NX (a BAR above 4 GiB on PAE; vmap()
#   adds NX whatever the CPU has). `max` under TCG reports AuthenticAMD
#   (family 6 model 6 in qemu-system-i386, family 15 in qemu-system-x86_64):
#   vendor, family and model are overridden.
GUEST_CPU = "max,vendor=GenuineIntel,family=6,model=15"
# -icount: the virtual clock advances 1 ns per guest instruction (shift=0);
# sleep=off: an idle guest's clock jumps to its next timer instead of waiting
ICOUNT = "shift=0,sleep=off"

MATRIX = os.path.join(TOP, "tests", "matrix.list")
# $NAME in the matrix that it does not set itself
SOAK_SECONDS = os.environ.get("SOAK_SECONDS", "120")
# a SOAK_SECONDS that is not a number fails make soak's guests, not every import
BUILTINS = {"B": os.path.join(TOP, "build"), "PY": sys.executable,
            "SOAK_SECONDS": SOAK_SECONDS,
            "SOAK_TIMEOUT": str(int(SOAK_SECONDS) + 300) if SOAK_SECONDS.isdigit() else "0"}


class MatrixError(ValueError):
    pass


def _rows(path):
    """(line number, section, cells) of each row of @path; 'set' rows as ('set', [name, words])."""
    section, pending, start = None, "", 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip()  # a blank (or CR) after a \\ must not end the row there
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if not pending:
                start = n
            if pending and line.lstrip().startswith("#"):
                raise MatrixError(f"{path}:{n}: a comment inside a continued row")
            if line.endswith("\\"):  # joined to the next line, its leading blanks dropped
                pending += line[:-1] if not pending else line.lstrip()[:-1]
                continue
            line, pending = (pending + line.lstrip()) if pending else line, ""
            if line.startswith("["):
                section = line.strip("[] ")
            elif line.startswith("set "):
                name, eq, words = line[4:].partition("=")
                if not eq:
                    raise MatrixError(f"{path}:{start}: set NAME = words")
                yield start, "set", [name.strip(), words.strip()]
            else:
                yield start, section, [c.strip() for c in line.split("|")]
    if pending:
        raise MatrixError(f"{path}:{start}: the file ends inside a continued row")


def _expand(text, env, where):
    """$NAME (and ,$NAME, or $NAME,) in @text, from @env; an unknown one is an error."""
    def one(m):
        if m.group(1) not in env:
            raise MatrixError(f"{where}: ${m.group(1)} is not set")
        return env[m.group(1)]
    return re.sub(r"\$([A-Z_][A-Z0-9_]*)", one, text)


def read_matrix(path=MATRIX):
    """tests/matrix.list: ({guest: (kernel, run-guest args, whole suite in)},
    [(target, guest, label, tests, args)]), $NAMEs expanded, checked."""
    env, guests, runs = dict(BUILTINS), {}, []
    for n, section, cells in _rows(path):
        where = f"{path}:{n}"
        if section == "set":
            env[cells[0]] = _expand(cells[1], env, where)
        elif section == "guests":
            if len(cells) != 4 or cells[0] in guests or cells[2] not in ("check", "full", "-"):
                raise MatrixError(f"{where}: name | kernel | check, full or - | arguments, "
                                  "the name new")
            if cells[1] not in KERNELS:
                raise MatrixError(f"{where}: no kernel {cells[1]} in tools/host/kernels.list")
            guests[cells[0]] = (cells[1], _expand(cells[3], env, where).split(), cells[2])
        elif section == "runs" and cells[1:] == ["@suites"]:
            suite = {"guest": "check", "full": "full"}.get(cells[0])
            if suite is None:
                raise MatrixError(f"{where}: @suites only in guest and full")
            runs += [(cells[0], g, g, "*", []) for g, v in guests.items() if v[2] == suite]
        elif section == "runs":
            if len(cells) != 5:
                raise MatrixError(f"{where}: target | guest | label | tests | arguments")
            target, guest, label, tests, args = cells
            args = _expand(args, env, where).split()
            if tests == "cmd":
                if guest != "-" or not args:
                    raise MatrixError(f"{where}: a cmd row has guest - and a command")
            elif guest not in guests:
                raise MatrixError(f"{where}: no guest {guest} in [guests]")
            tests = _expand(tests, env, where)
            runs.append((target, guest, guest if label == "-" and guest != "-" else label,
                         tests, args))
        else:
            raise MatrixError(f"{where}: a row outside [guests] and [runs]")
    labels = [(r[0], r[2]) for r in runs if r[2] != "-"]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise MatrixError(f"{path}: a label twice in one target: {sorted(dup)}")
    return guests, runs


_GUESTS, RUNS = read_matrix()
# name: (kernel, extra tools/host/run-guest arguments)
GUESTS = {name: (kernel, args) for name, (kernel, args, _) in _GUESTS.items()}


def run_argv(run, log_dir=None):
    """The command of a [runs] row: a host program's, or run-guest's for a guest
    (its log in @log_dir, build/logs by default)."""
    target, guest, label, tests, args = run
    if tests == "cmd":  # a path under TOP made absolute: the runner may run anywhere
        return [os.path.join(TOP, a) if not a.startswith("-") and
                os.path.exists(os.path.join(TOP, a)) else a for a in args]
    log_dir = log_dir or os.path.join(TOP, "build", "logs")
    return [os.path.join(TOP, "tools", "host", "run-guest"), "--guest", guest, "--name", label,
            *(["--test", tests] if tests != "*" else []), *args,
            "--log", os.path.join(log_dir, f"{label}.log")]


def runs(target):
    """The [runs] rows of @target, in order."""
    return [r for r in RUNS if r[0] == target]


DEBIAN_KERNELS = [k for k, v in KERNELS.items() if v[3] == "debian"]


def arch_of(guest):
    return KERNELS[GUESTS[guest][0]][0]


def xen_hypervisor():
    """Xen's multiboot ELF (tools/host/guest-kernel.sh --xen); fetches it if needed."""
    out = subprocess.run([os.path.join(TOP, "tools", "host", "guest-kernel.sh"), "--xen"],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


def vgpu_qemu():
    """(path, None) of trixie's QEMU with virtio-gpu blobs (tools/host/vgpu-qemu.sh),
    fetched if needed, or (None, why) when it cannot be had here."""
    res = subprocess.run([os.path.join(TOP, "tools", "host", "vgpu-qemu.sh")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode:
        why = [ln for ln in res.stderr.splitlines() if ln.startswith("vgpu-qemu.sh:")]
        return None, (why[-1] if why else res.stderr.strip()[-200:] or "vgpu-qemu.sh failed")
    return res.stdout.strip().splitlines()[-1], None


def source_dir(version):
    """Debian's linux-source-VERSION, unpacked in the cache if it is not yet."""
    out = subprocess.run([os.path.join(TOP, "tools", "host", "guest-kernel.sh"), "--source", version],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


def kernel_dir(kernel):
    """The kernel's build (or headers) directory; builds or fetches it if needed."""
    out = subprocess.run([os.path.join(TOP, "tools", "host", "guest-kernel.sh"), kernel],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


# The pv tests of the whole suite: in a guest booted --pv with a channel it can
# use, each must pass, not skip (a channel dead before them would skip them all,
# and the run read as clean). Those asked for by --test, likewise.
PV_SUITE_TESTS = ["pv_channel_up", "pv_pwrite_hypercalls", "pv_refusals", "pv_revoke_live",
                  "pv_hazard_found", "pv_daemon_garbage", "pv_daemon_killed"]
