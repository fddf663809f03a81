# SPDX-License-Identifier: GPL-2.0
"""The test guests: which kernel each boots, with which apertures and options.

One table for make check, make check-full and tools/host/run-guest --guest NAME.
A guest's KTAP stream is announced as '# Subtest: guest-NAME'. Kernels are
named as tools/host/guest-kernel.sh names them; 'arch' picks QEMU and the guest's
user space (build/<arch>/).
"""

import subprocess
import os

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

# name: (kernel, extra tools/host/run-guest arguments)
GUESTS = {
    "i386": ("i386", []),
    # four vCPUs, more than this 2-core host has: interrupt floors per host core.
    # acpi=noirq: PCI interrupts routed by the PIRQ table, not ACPI's AML, which
    # this debug kernel interprets for 3-4 s (all vCPUs stalled) each time qxl's
    # interrupt link is enabled, at boot and at every rebind (docs/testing.md)
    "i386-smp4": ("i386", ["--smp", "4", "--append", "acpi=noirq"]),
    "x86_64": ("x86_64", []),
    # x86_64 with the slot engine instead of the whole-aperture mapping
    "x86_64-hygiene": ("x86_64", ["--modparams", "hygiene=1"]),
    # a 4 GiB aperture, which SeaBIOS places above 4 GiB: PAE must reach it
    "i386-4g": ("i386", ["--ivshmem-size", "4G", "--vga-mb", "0", "--qxl-mb", "0"]),
    "i386-nohighmem": ("i386-nohighmem", []),
    # mainline's io_mapping without HIGHMEM, upstream as released (make bench,
    # check-full, demo) and with docs/upstream/'s patch (make check, bench, demo)
    "i386-nohighmem-6.12-prod": ("i386-nohighmem-6.12-prod", []),
    "i386-nohighmem-6.12-fixed": ("i386-nohighmem-6.12-fixed", []),
    # the same pair with PAE: what an old 686-pae config becomes since 6.15
    "i386-nohighmem-pae-6.12-prod": ("i386-nohighmem-pae-6.12-prod", []),
    "i386-nohighmem-pae-6.12-fixed": ("i386-nohighmem-pae-6.12-fixed", []),
    "i386-6.12": ("i386-6.12", []),
    # 64 of its 512 MiB highmem, for kmap_local_kunit's kmap_local_page() half
    # (tests/check runs the two kmap_local tests alone). One vCPU: the test's two
    # halves must run on one CPU to compare their slots. kmemleak=off: the initrd,
    # at the top of memory, is then moved into lowmem by relocate_initrd(), whose
    # memblock block kmemleak tracks by its physical address; freeing the initrd
    # unmaps it (DEBUG_PAGEALLOC) and tells kmemleak by virtual address only, and
    # the next scan faults on it: seen on 6.1, and 6.12 has the same code
    # (docs/upstream-fix.md)
    "i386-6.12-highmem": ("i386-6.12", ["--smp", "1", "--append", "highmem=64M",
                                        "--append", "kmemleak=off"]),
    "x86_64-6.12": ("x86_64-6.12", []),
    "deb-686-pae": ("deb-686-pae", []),
    "deb-686": ("deb-686", []),
    "deb-amd64": ("deb-amd64", []),
    # the slot engine under page-table isolation (kernel PTEs not global)
    "deb-amd64-hygiene": ("deb-amd64", ["--modparams", "hygiene=1", "--expect-pti"]),
    # against pvmap-hv: every PTE update a Xen multicall over an ivshmem doorbell
    "i386-pv": ("i386", ["--pv"]),
    # a channel this kernel cannot use (no PAE): pvmap runs natively and says why
    "i386-nohighmem-pv": ("i386-nohighmem", ["--pv", "--pv-unusable"]),
    "deb-686-pv": ("deb-686", ["--pv", "--pv-unusable"]),
    "i386-nohighmem-6.12-fixed-pv": ("i386-nohighmem-6.12-fixed", ["--pv", "--pv-unusable"]),
    "x86_64-hygiene-pv": ("x86_64", ["--modparams", "hygiene=1", "--pv"]),
    "deb-686-pae-pv": ("deb-686-pae", ["--pv"]),
    # its clock the tick, as a guest whose TSC TCG made look unstable and that has
    # no HPET or ACPI PM timer falls back to: pv_daemon_stalled_jiffies
    "deb-686-pae-pv-jiffies": ("deb-686-pae", ["--pv", "--append",
                                               "clocksource=refined-jiffies"]),
    # pvmap_drm on a secondary-vga (pvmap keeps ivshmem and qxl): its tests only
    "i386-drm": ("i386", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                          "--drm-vga-mb", "512", "--append", "acpi=noirq"]),
    "x86_64-drm": ("x86_64", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                              "--drm-vga-mb", "512"]),
    # and on 6.12 (guest-kernel.sh gives these two kernels DRM), pvmap_drm's
    # version differences in include/pvmap/compat.h
    "i386-6.12-drm": ("i386-6.12", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                                    "--drm-vga-mb", "512", "--append", "acpi=noirq"]),
    "x86_64-6.12-drm": ("x86_64-6.12", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                                        "--drm-vga-mb", "512"]),
    "deb-686-pae-drm": ("deb-686-pae", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                                        "--drm-vga-mb", "512"]),
    "deb-amd64-drm": ("deb-amd64", ["--run", "/bin/pvmap-drm-tests", "--vga-mb", "0",
                                    "--drm-vga-mb", "512"]),
    "deb-amd64-hygiene-pv": ("deb-amd64", ["--modparams", "hygiene=1", "--expect-pti", "--pv"]),
    # Debian's amd64 kernel as a Xen PV dom0 under Debian's Xen 4.17
    # (run-guest --xen): PTE writes are hypercalls, ivshmem and the VGAs dom0's
    "xen-dom0": ("deb-amd64", ["--xen"]),
    # the slots under Xen: the xen_ tests must run here, not skip
    "xen-dom0-hygiene": ("deb-amd64", ["--xen", "--modparams", "hygiene=1", "--expect-ran",
                                       "xen_pwrite_multicalls,xen_stale_faults,"
                                       "xen_hazard_demo,xen_fidelity_diff"]),
    # pvmap.ko as `dkms build` made it from `make deb`'s package (tests/check)
    "deb-686-pae-dkms": ("deb-686-pae", ["--initrd", os.path.join(
        TOP, "build", "deb-686-pae-dkms", "initramfs.cpio")]),
}

DEBIAN_KERNELS = [k for k, v in KERNELS.items() if v[3] == "debian"]


def arch_of(guest):
    return KERNELS[GUESTS[guest][0]][0]


def xen_hypervisor():
    """Xen's multiboot ELF (tools/host/guest-kernel.sh --xen); fetches it if needed."""
    out = subprocess.run([os.path.join(TOP, "tools", "host", "guest-kernel.sh"), "--xen"],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


def kernel_dir(kernel):
    """The kernel's build (or headers) directory; builds or fetches it if needed."""
    out = subprocess.run([os.path.join(TOP, "tools", "host", "guest-kernel.sh"), kernel],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


# make check boots these with the whole suite, within its budget (docs/testing.md):
# Debian's production kernels, the project's i386 debug kernel on four vCPUs (the
# microscope: lockdep, DEBUG_PAGEALLOC, kmemleak), 6.12 with the upstream
# fix (2-level, and 3-level with PAE), PV through pvmap-hv on Debian's 686-pae,
# pvmap_drm.
CHECK = ["i386-smp4", "deb-686-pae", "deb-amd64", "deb-amd64-hygiene",
         "i386-nohighmem-6.12-fixed", "i386-nohighmem-pae-6.12-fixed", "deb-686-pae-pv",
         "i386-drm"]

# make check-full adds these: the project's other kernels and variants
CHECK_FULL = ["i386", "x86_64", "x86_64-hygiene", "i386-4g", "i386-nohighmem", "i386-6.12",
              "x86_64-6.12", "deb-686", "i386-pv", "x86_64-hygiene-pv", "i386-nohighmem-pv",
              "x86_64-drm", "i386-6.12-drm", "x86_64-6.12-drm"]
# the PV guest on Debian's amd64 kernel
CHECK_FULL_PV = ["deb-amd64-hygiene-pv"]
# The pv tests of the whole suite: in a guest booted --pv with a channel it can
# use, each must pass, not skip (a channel dead before them would skip them all,
# and the run read as clean). Those asked for by --test, likewise.
PV_SUITE_TESTS = ["pv_channel_up", "pv_pwrite_hypercalls", "pv_refusals", "pv_revoke_live",
                  "pv_hazard_found", "pv_daemon_garbage", "pv_daemon_killed"]
# make check runs these alone in deb-686-pae-pv, each leaving the channel dead
# (test, the label's suffix); and pv_daemon_stalled_jiffies in deb-686-pae-pv-jiffies
PV_ALONE = [("pv_daemon_slow", "slow"), ("pv_refused_clear", "refused-clear"),
            ("pv_daemon_fake_acks", "fake-acks"), ("pv_doorbell_removed", "doorbell-removed")]
# and pv_daemon_stalled alone in these (make check: its tick-clock variant)
CHECK_FULL_STALLED = ["deb-686-pae-pv", "i386-pv", "deb-amd64-hygiene-pv"]
# and pvmap_drm's tests on Debian's production kernels
CHECK_FULL_DRM = ["deb-686-pae-drm", "deb-amd64-drm"]
# make check: Debian's amd64 kernel as real Xen 4.17's PV dom0, every PTE write
# Xen's to validate: the slot engine with the whole suite (the xen_ tests count
# its hypercalls), and the default whole-aperture mapping with XEN_DOM0_TESTS
CHECK_XEN = ["xen-dom0-hygiene"]
# what the whole mapping does differently under Xen: every aperture ioremapped
# through Xen (at each bind and rebind), PWRITE/PREAD/mmap and the API's cases
# through that mapping. Memory types under Xen's PAT and unplug are the
# slots' run's (xen-dom0-hygiene); make check-full runs the whole suite here
# too (107 s: each rebind has Xen validate 1.6 GiB of PTEs, and the audits
# read them all back through QMP)
XEN_DOM0_TESTS = [
    "module_loaded", "debug_facilities", "binds_every_aperture", "info_matches_bar",
    "unmap_mode", "whole_aperture_ioremap", "reads_host_pattern", "writes_guest_pattern",
    "pwrite_random_offsets", "pread_host_pattern", "mmap_write", "mmap_read_host_pattern",
    "pwrite_partial_fault", "stats_1mib_pwrite", "kernel_range16", "kernel_sleepable1m",
    "unbind_rebind",
]
# and the upstream kmap_local bug on 6.12 as released (the expected failure)
CHECK_FULL_UPSTREAM = ["i386-nohighmem-6.12-prod", "i386-nohighmem-pae-6.12-prod"]
