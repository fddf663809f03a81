# SPDX-License-Identifier: GPL-2.0
# pvmap: top-level build. `make help` lists the targets.

# The release: the DKMS package's version (make deb).
PVMAP_VERSION := 0.3.0

PVMAP_CACHE ?= $(HOME)/.cache/pvmap
export PVMAP_CACHE

ARCHES := i386 x86_64
# Guest kernels (tools/host/kernels.list, which guest-kernel.sh and guests.py read
# too): the project's own debug kernels, Linux 6.12 LTS, NOHIGHMEM i386 kernels
# (6.12's with docs/upstream/'s fix) and Debian's own. make builds pvmap for
# its "check" ones (make check-full, demo and bench build the rest when they
# need them).
KERNEL_LIST := tools/host/kernels.list
kernel_field = $(shell awk -F' *[|] *' '!/^\#/ && NF > 1 && $$1 == "$(1)" { print $$$(2) }' \
	$(KERNEL_LIST))
KERNELS := $(shell awk -F' *[|] *' '!/^\#/ && NF > 1 && $$4 == "check" { print $$1 }' \
	$(KERNEL_LIST))
ALL_KERNELS := $(shell awk -F' *[|] *' '!/^\#/ && NF > 1 { print $$1 }' $(KERNEL_LIST))
arch_of = $(call kernel_field,$(1),2)
B := build
NPROC := $(shell nproc)
KERNEL_DIR = $$(tools/host/guest-kernel.sh $(1))

# Guest programs are static: the initramfs has no libc.
GUEST_CFLAGS := -static -O2 -std=gnu11 -Wall -Wextra -Werror -Iinclude -Itools/guest/lib
# the guest test suites: their harness and shared test headers too
GUEST_TEST_CFLAGS := $(GUEST_CFLAGS) -Itests/guest
GUEST_CC_i386 := gcc -m32
GUEST_CC_x86_64 := gcc -m64
HOST_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -Iinclude
SAN_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

GUEST_LIB := tools/guest/lib/guest.c tools/guest/lib/guest.h
# tests/guest/harness.h: the kernel's kselftest harness, from Debian's linux-source-6.12
KSFT_DIR = $$(tools/host/guest-kernel.sh --source 6.12 | tail -n 1)/tools/testing/selftests
# the kernel's DRM uapi (virtgpu_drm.h: bookworm's libdrm headers lack the blob ioctls)
UAPI_DRM = $$(tools/host/guest-kernel.sh --source 6.12 | tail -n 1)/include/uapi/drm
# the unit tests print KTAP through the same kernel's kselftest.h
UNIT_INC = -Itests/unit -isystem $(KSFT_DIR)
# the kernel's DRM uapi headers as libdrm-dev installs them (pkg-config --cflags libdrm)
DRM_CFLAGS := -I/usr/include/libdrm
UAPI := include/uapi/pvmap.h include/uapi/pvmap_pattern.h include/uapi/pvmap_kind.h \
	include/uapi/pvmap_test.h include/uapi/pvmap_partial.h

.PHONY: all help deps guest-kernels modules guests host lint unit check check-build check-full demo vm vm-check vm-bench \
	bench catalog \
	soak fuzz \
	clean clean-cache FORCE

all: host guests

help:
	@echo "make demo           the aperture problem pvmap solves, on Debian's kernel; then mainline's bug"
	@echo "make check          static checks, unit tests, every guest of the kernel matrix; ends 'N passed, N failed'"
	@echo "make check-full     make check, then what needs more time or Debian's archive (make vm-check too)"
	@echo "make vm             the Debian bookworm i386 and amd64 VM images (cached)"
	@echo "make vm-check       pvmap installed with apt in those VMs, booted from their disks: autoload, KMS, Xorg, weston"
	@echo "make vm-bench       x11perf with Xorg on pvmap_drm and on bochs in those VMs: ratios"
	@echo "make soak           mixed load, 100k fuzzed ioctls, repeated hot-unplug (SOAK_SECONDS=120)"
	@echo "make bench          benchmarks on production kernels, bytes verified: table, JSON, plot, targets"
	@echo "make guest-kernels  build, fetch or find cached every guest kernel ($(words $(KERNELS)))"
	@echo "make modules        build guest/'s modules for every guest kernel (W=1, -Werror)"
	@echo "make lint           checkpatch --strict and sparse (C=2) on the module"
	@echo "make catalog        write docs/test-catalog.md (make check fails when it is stale)"
	@echo "make unit           user-space unit tests (ASan + UBSan), a short fuzz run"
	@echo "make fuzz           fuzz the stub's trace and hypercall decoders (FUZZ_SECONDS=300)"
	@echo "make deb            build/deb/pvmap-dkms_$(PVMAP_VERSION)_all.deb, for Debian guests (DKMS)"
	@echo "make deps           install the Debian packages (root)"
	@echo "make clean          remove build/; make clean-cache removes $(PVMAP_CACHE)"
	@echo "tools/host/run-guest --help   boot one guest by hand (one test, interactive, ...)"

deps:
	@tools/deps.sh

guest-kernels: deps
	@for k in $(KERNELS); do tools/host/guest-kernel.sh $$k || exit 1; done

# --- the modules, built out of tree for each guest kernel ------------------
# guest/ is copied (mtimes kept, its include links followed) so the kernels
# do not share objects; the modules are copied out with fresh mtimes, so
# that the initramfs follows a change of either.
modules: $(KERNELS:%=$(B)/%/pvmap.ko)

$(B)/%/pvmap.ko: FORCE | deps
	@mkdir -p $(B)/$*/guest
	@cp -rpL guest/. $(B)/$*/guest/
	@kdir=$(call KERNEL_DIR,$*) && \
		$(MAKE) -s -j$(NPROC) -C $$kdir M=$(CURDIR)/$(B)/$*/guest CONFIG_PVMAP=m \
			CONFIG_PVMAP_TEST=m CONFIG_PVMAP_DRM=m CONFIG_PVMAP_TEST_HOOKS=y \
			W=1 KCFLAGS=-Werror modules
	@cp $(B)/$*/guest/pvmap/pvmap.ko $(B)/$*/guest/pvmap_test/pvmap_test.ko \
		$(B)/$*/guest/pvmap_test/pvmap_bench.ko $(B)/$*/
	@# pvmap_kunit.ko where the kernel has KUnit (guest/pvmap_test/Kbuild)
	@rm -f $(B)/$*/pvmap_kunit.ko
	@if [ -f $(B)/$*/guest/pvmap_test/pvmap_kunit.ko ]; then \
		cp $(B)/$*/guest/pvmap_test/pvmap_kunit.ko $(B)/$*/; fi
	@# pvmap_drm.ko where the kernel has DRM (guest/pvmap_drm/Kbuild)
	@rm -f $(B)/$*/pvmap_drm.ko
	@if [ -f $(B)/$*/guest/pvmap_drm/pvmap_drm.ko ]; then \
		cp $(B)/$*/guest/pvmap_drm/pvmap_drm.ko $(B)/$*/; fi

# --- guest user space (per arch) and initramfs (per kernel) -------------------
guests: $(KERNELS:%=$(B)/%/initramfs.cpio)

$(B)/%/init: tools/guest/init.c $(GUEST_LIB) | deps
	@mkdir -p $(@D)
	$(GUEST_CC_$*) $(GUEST_CFLAGS) -o $@ $< tools/guest/lib/guest.c

# The two suites: a harness program per feature file, in their feature_list.h's order
# (tests/guest/run_features.h), each with its main() renamed NAME_main() and every other
# global it defines made its own (the harness's: kselftest_harness.h keeps its list of
# tests, and FIXTURE_SETUP() its functions, in globals), linked with the suite's runner.
# i386's PIC thunks stay global: they are COMDAT, one copy for the whole program.
features_of = $(shell sed -n 's/^FEATURE(\([a-z0-9_]*\)).*/\1/p' $(1))
# $(call build_features,ARCH,OBJDIR,SRCDIR,FEATURES,CFLAGS): OBJDIR/NAME.o of each
define build_features
	@mkdir -p $(2)
	@for f in $(4); do echo "  CC      $(2)/$$f.o"; \
		$(GUEST_CC_$(1)) $(GUEST_TEST_CFLAGS) -isystem $(KSFT_DIR) $(5) -Dmain=$${f}_main \
			-c -o $(2)/$$f.o $(3)/$$f.c && \
		objcopy $$(nm -g --defined-only $(2)/$$f.o | awk -v keep=$${f}_main \
			'$$3 != keep && $$3 !~ /^__x86\.get_pc_thunk\./ { print "--localize-symbol=" $$3 }') \
			$(2)/$$f.o || exit 1; done
endef

GUEST_FEATURES := $(call features_of,tests/guest/feature_list.h)
GUEST_TESTS := $(wildcard tests/guest/*.[ch]) guest/pvmap_test/pvmap_api_cases.h
$(B)/%/pvmap-tests: $(GUEST_TESTS) $(GUEST_LIB) $(UAPI) | deps
	$(call build_features,$*,$(@D)/pvmap-tests.d,tests/guest,$(GUEST_FEATURES),\
		-isystem $(UAPI_DRM) $(if $(filter x86_64,$*),$(STUB_INC)))
	$(GUEST_CC_$*) $(GUEST_TEST_CFLAGS) -o $@ tests/guest/pvmap-tests.c \
		$(GUEST_FEATURES:%=$(@D)/pvmap-tests.d/%.o) tests/guest/suite.c tools/guest/lib/guest.c \
		$(if $(filter x86_64,$*),$(STUB_INC) $(STUB_SRC))

$(B)/%/pvmap-demo: tools/guest/pvmap-demo.c $(GUEST_LIB) $(UAPI) | deps
	@mkdir -p $(@D)
	$(GUEST_CC_$*) $(GUEST_CFLAGS) -o $@ $< tools/guest/lib/guest.c

DRM_FEATURES := $(call features_of,tests/guest/drm/feature_list.h)
$(B)/%/pvmap-drm-tests: $(wildcard tests/guest/drm/*.[ch]) tests/guest/run_features.h $(GUEST_LIB) \
		$(UAPI) include/uapi/pvmap_drm.h tests/guest/result.h tests/guest/harness.h | deps
	$(call build_features,$*,$(@D)/pvmap-drm-tests.d,tests/guest/drm,$(DRM_FEATURES),$(DRM_CFLAGS))
	$(GUEST_CC_$*) $(GUEST_TEST_CFLAGS) $(DRM_CFLAGS) -isystem $(KSFT_DIR) -o $@ \
		tests/guest/drm/pvmap-drm-tests.c tests/guest/drm/drm_common.c \
		$(DRM_FEATURES:%=$(@D)/pvmap-drm-tests.d/%.o) tools/guest/lib/guest.c

# the libdrm client: static, as every guest program (libdrm-dev ships libdrm.a)
$(B)/%/pvmap-drmfps: tools/guest/pvmap-drmfps.c $(GUEST_LIB) $(UAPI) include/uapi/pvmap_drm.h | deps
	@mkdir -p $(@D)
	$(GUEST_CC_$*) $(GUEST_CFLAGS) $(DRM_CFLAGS) -o $@ $< tools/guest/lib/guest.c -ldrm

$(B)/%/pvmap-bench: tools/guest/pvmap-bench.c $(GUEST_LIB) $(UAPI) | deps
	@mkdir -p $(@D)
	$(GUEST_CC_$*) $(GUEST_CFLAGS) -o $@ $< tools/guest/lib/guest.c

$(B)/%/pvmapctl: tools/guest/pvmapctl.c $(UAPI) | deps
	@mkdir -p $(@D)
	$(GUEST_CC_$*) $(GUEST_CFLAGS) -o $@ $<

# Debian's headers have no usr/gen_init_cpio: one host build from the source.
$(B)/host/gen_init_cpio: | deps
	@mkdir -p $(@D)
	@src=$$(tools/host/guest-kernel.sh --source 6.1 | tail -n 1) && \
		gcc -O2 -o $@ $$src/usr/gen_init_cpio.c

USER_PROGS = $(foreach p,init pvmap-tests pvmap-demo pvmapctl pvmap-bench pvmap-drm-tests \
	pvmap-drmfps,$(B)/$(1)/$(p))
deb_arch = $(if $(filter x86_64,$(1)),amd64,i386)

.SECONDEXPANSION:
$(B)/%/initramfs.cpio: tools/host/initramfs.list $$(call USER_PROGS,$$(call arch_of,$$*)) \
		$(B)/%/pvmap.ko $(B)/host/gen_init_cpio
	@sed -e 's|@ARCHDIR@|$(B)/$(call arch_of,$*)|' -e 's|@KDIR@|$(B)/$*|' $< >$(B)/$*/initramfs.list
	@# a kernel with KUnit: the API's KUnit suite
	@if [ -f $(B)/$*/pvmap_kunit.ko ]; then \
		echo "file /lib/modules/pvmap_kunit.ko $(B)/$*/pvmap_kunit.ko 0644 0 0"; \
	fi >>$(B)/$*/initramfs.list
	@# a kernel with DRM: pvmap_drm, its tests and Debian's modetest with its libraries
	@if [ -f $(B)/$*/pvmap_drm.ko ]; then \
		echo "file /lib/modules/pvmap_drm.ko $(B)/$*/pvmap_drm.ko 0644 0 0" && \
		echo "file /bin/pvmap-drm-tests $(B)/$(call arch_of,$*)/pvmap-drm-tests 0755 0 0" && \
		echo "file /bin/pvmap-drmfps $(B)/$(call arch_of,$*)/pvmap-drmfps 0755 0 0" && \
		tools/host/debian-userland.sh $(call deb_arch,$(call arch_of,$*)) && \
		kdir=$(call KERNEL_DIR,$*) && \
		if [ -d $$kdir/pvmap-drm-modules ]; then \
			echo "dir /lib/modules/drm 0755 0 0" && \
			for m in $$kdir/pvmap-drm-modules/*.ko; do \
				echo "file /lib/modules/drm/$${m##*/} $$m 0644 0 0"; \
			done; \
		fi; \
		if [ -d $$kdir/pvmap-vgpu-modules ]; then \
			echo "dir /lib/modules/vgpu 0755 0 0" && \
			for m in $$kdir/pvmap-vgpu-modules/*.ko; do \
				echo "file /lib/modules/vgpu/$${m##*/} $$m 0644 0 0"; \
			done; \
		fi; \
	fi >>$(B)/$*/initramfs.list
	@$(B)/host/gen_init_cpio $(B)/$*/initramfs.list >$@

# --- the hypervisor stub --------------------------------------------------------
# hypervisor_stub/: the model library (libpvstub/) and the daemon (pvmap-hv/);
# the slot core's shims and test backend are tests/unit/slot_core/, the fuzzers tests/fuzz/
MODEL := hypervisor_stub/libpvstub
DAEMON := hypervisor_stub/pvmap-hv
SLOT_CORE := tests/unit/slot_core
STUB_INC := -I$(MODEL) -I$(DAEMON)
# libpvstub by concern (pvstub_internal.h ties them): the domain, its hash map, PTE
# validation, the page tables, a live guest's registered entries, the TLBs, the
# hypercalls, multicalls, revocation, the audit; and the trace replayer
STUB_SRC := $(addprefix $(MODEL)/,pvstub.c pvstub_map.c pvstub_validate.c pvstub_pagetable.c \
	pvstub_shadow.c pvstub_tlb.c pvstub_hypercall.c pvstub_multicall.c pvstub_revoke.c \
	pvstub_audit.c pvstub_trace.c)
STUB_OBJ := $(STUB_SRC:$(MODEL)/%.c=$(B)/host/stub/%.o)
STUB_HDR := $(wildcard $(MODEL)/*.h $(DAEMON)/*.h) include/uapi/pvmap_trace.h
# guest/pvmap/pvmap_slots.c, unchanged, over the stub's PTE layer and the shims; configured
# as Debian's kernels are, with preempt notifiers (the shim's tasks and scheduler: preempt.h);
# warned as the kernel's W=1 warns, which leaves out -Wunused-parameter (callbacks' arguments)
CORE_SRC := guest/pvmap/pvmap_slots.c $(SLOT_CORE)/pvmap_pte_stub.c $(SLOT_CORE)/shim/shim.c
CORE_HDR := $(wildcard guest/pvmap/*.h $(SLOT_CORE)/*.h $(SLOT_CORE)/shim/linux/*.h) $(STUB_HDR) $(UAPI)
CORE_INC := -DPVMAP_PTE_STUB -DCONFIG_PREEMPT_NOTIFIERS -Wno-unused-parameter -I$(SLOT_CORE)/shim -Iinclude -Iguest/pvmap -I$(SLOT_CORE) $(STUB_INC) \
	$(UNIT_INC)

$(B)/host/stub/%.o: $(MODEL)/%.c $(STUB_HDR)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) $(STUB_INC) -c $< -o $@

# x86_64's pvmap-tests runs libpvstub beside real Xen (tests_xen_fidelity.c)
$(B)/x86_64/pvmap-tests: $(STUB_SRC) $(STUB_HDR)

$(B)/host/libpvstub.a: $(STUB_OBJ)
	rm -f $@
	ar rcs $@ $^

# the daemon: its sockets (pvmap_hv.c) around its request path (HV_SRC)
HV_SRC := $(DAEMON)/pvmap_hv_core.c

$(B)/host/pvmap-hv: $(DAEMON)/pvmap_hv.c $(HV_SRC) include/uapi/pvmap_hv.h \
		$(B)/host/libpvstub.a $(STUB_HDR)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) $(STUB_INC) -o $@ $< $(HV_SRC) $(B)/host/libpvstub.a

$(B)/host/pvstub-replay: tools/host/pvstub-replay.c $(B)/host/libpvstub.a $(STUB_HDR)
	gcc $(HOST_CFLAGS) $(STUB_INC) -o $@ $< $(B)/host/libpvstub.a

# Kernel C needs GNU C (statement expressions): gnu11 for the shimmed build.
# the stub's own tests, and the slot core's against interrupts and misuse, its local maps
# against task switches too, and all of them against address-space changes (PCIDs)
TEST_STUB := tests/unit/test_stub.c tests/unit/test_stub_core.c tests/unit/test_stub_local.c \
	tests/unit/test_stub_space.c
$(B)/unit/test_stub: $(TEST_STUB) tests/unit/test_stub.h $(STUB_SRC) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	gcc $(subst -std=c11,-std=gnu11,$(SAN_CFLAGS)) $(CORE_INC) -Itests/unit -o $@ $(TEST_STUB) \
		$(STUB_SRC) $(CORE_SRC)

$(B)/unit/test_stub_plain: $(TEST_STUB) tests/unit/test_stub.h $(STUB_SRC) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror $(CORE_INC) -Itests/unit -o $@ $(TEST_STUB) \
		$(STUB_SRC) $(CORE_SRC)

$(B)/fuzz/fuzz_decoders: tests/fuzz/fuzz_decoders.c $(STUB_SRC) $(STUB_HDR) | deps
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -Wall -Wextra -Werror -Iinclude $(STUB_INC) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< $(STUB_SRC)

# pvmap-hv's request path: programs of requests, the model's invariants after each
$(B)/fuzz/fuzz_hv_requests: tests/fuzz/fuzz_hv_requests.c $(HV_SRC) $(STUB_SRC) $(STUB_HDR) \
		include/uapi/pvmap_hv.h | deps
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -Wall -Wextra -Werror -Iinclude $(STUB_INC) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< $(HV_SRC) \
		$(STUB_SRC)

FUZZ_SECONDS ?= 300
fuzz: $(B)/fuzz/fuzz_decoders $(B)/fuzz/fuzz_hv_requests $(B)/fuzz/fuzz_audit
	@mkdir -p $(B)/fuzz/corpus
	$(B)/fuzz/fuzz_decoders -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		$(B)/fuzz/corpus tests/fuzz/fuzz_seeds
	@mkdir -p $(B)/fuzz/corpus-hv
	$(B)/fuzz/fuzz_hv_requests -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		$(B)/fuzz/corpus-hv tests/fuzz/fuzz_seeds_hv
	@mkdir -p $(B)/fuzz/corpus-audit
	$(B)/fuzz/fuzz_audit -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		$(B)/fuzz/corpus-audit tools/host/audit/fuzz_seeds

# --- the host auditor --------------------------------------------------------------
# the auditor's parsers (API: audit_parse.h): the QMP stream, JSON strings, `info pci`/
# `cpus`/`registers`/`xp`, `info tlb`, pvmap's live table; the page-table walk; guest RAM
# (`info pci`'s BARs, `info mtree`), where alone tables are read
AUDIT_SRC := $(addprefix tools/host/audit/,audit_qmp.c audit_json.c audit_info.c audit_tlb.c \
	audit_live.c audit_walk.c audit_ram.c)
AUDIT_HDR := tools/host/audit/audit_parse.h tools/host/audit/audit_internal.h

# the program: the audit, its command line, its report (audit_guest.h)
AUDIT_MAIN := $(addprefix tools/host/audit/,pvmap-audit.c audit_cli.c audit_report.c)
$(B)/host/pvmap-audit: $(AUDIT_MAIN) $(AUDIT_SRC) $(AUDIT_HDR) tools/host/audit/audit_guest.h
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -o $@ $(AUDIT_MAIN) $(AUDIT_SRC)

# pvmap-audit under ASan + UBSan, against tests/unit/test_audit.py's fake QMP servers
$(B)/unit/pvmap-audit-san: $(AUDIT_MAIN) $(AUDIT_SRC) $(AUDIT_HDR) tools/host/audit/audit_guest.h
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) -o $@ $(AUDIT_MAIN) $(AUDIT_SRC)

# the parsers and the QMP reader, one KTAP test per behaviour (and for valgrind: _plain)
# (test_audit.c: the reader, JSON, monitor text; _tlb.c: info tlb and the walk; _ram.c: guest RAM)
TEST_AUDIT := $(addprefix tests/unit/,test_audit.c test_audit_tlb.c test_audit_ram.c)
$(B)/unit/test_audit: $(TEST_AUDIT) tests/unit/test_audit.h $(AUDIT_SRC) $(AUDIT_HDR)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) -Itools/host/audit $(UNIT_INC) -o $@ $(TEST_AUDIT) $(AUDIT_SRC)

$(B)/unit/test_audit_plain: $(TEST_AUDIT) tests/unit/test_audit.h $(AUDIT_SRC) $(AUDIT_HDR)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -g -Itools/host/audit $(UNIT_INC) -o $@ $(TEST_AUDIT) $(AUDIT_SRC)

$(B)/fuzz/fuzz_audit: tools/host/audit/fuzz_audit.c $(AUDIT_SRC) $(AUDIT_HDR) | deps
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -Wall -Wextra -Werror -Itools/host/audit \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< $(AUDIT_SRC)

# test_audit.py's real guest: a multiboot kernel that pages in the mode its command line
# names, for QEMU's own `info tlb` (gcc -m32, as the guest programs)
$(B)/unit/audit-paging-guest: tests/unit/audit_paging_guest.c
	@mkdir -p $(@D)
	gcc -m32 -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-pie -no-pie \
		-fno-stack-protector -mgeneral-regs-only -nostdlib -static \
		-Wl,-Ttext-segment=0x100000 -Wl,--build-id=none -o $@ $< -lgcc

# what tests/check's unit suite runs of the auditor's, built by make unit and make check
AUDIT_UNIT_BINS := $(B)/unit/pvmap-audit-san $(B)/unit/test_audit $(B)/unit/test_audit_plain \
	$(B)/unit/audit-paging-guest
unit: $(AUDIT_UNIT_BINS)

# --- host tools and unit tests -----------------------------------------------
host: $(B)/host/pvmap-pattern $(B)/host/pvstub-replay $(B)/host/pvmap-audit $(B)/host/pvmap-hv

$(B)/host/pvmap-pattern: tools/host/pvmap-pattern.c $(UAPI)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -o $@ $<

$(B)/unit/test_pattern: tests/unit/test_pattern.c $(UAPI)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) $(UNIT_INC) -o $@ $<

# Static, so that qemu-i386-static runs it without an i386 root (tests/check).
$(B)/unit/test_pattern32: tests/unit/test_pattern.c $(UAPI)
	@mkdir -p $(@D)
	gcc -m32 -static $(HOST_CFLAGS) $(UNIT_INC) -o $@ $<

# Without sanitizers, for valgrind.
$(B)/unit/test_pattern_plain: tests/unit/test_pattern.c $(UAPI)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -g $(UNIT_INC) -o $@ $<

# libpvstub against Xen's own behaviour, one test per behaviour
$(B)/unit/test_xen_fidelity: tests/unit/test_xen_fidelity.c $(STUB_SRC) $(STUB_HDR)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) $(STUB_INC) $(UNIT_INC) -o $@ $< $(STUB_SRC)

$(B)/unit/test_xen_fidelity_plain: tests/unit/test_xen_fidelity.c $(STUB_SRC) \
		$(STUB_HDR)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -g $(STUB_INC) $(UNIT_INC) -o $@ $< $(STUB_SRC)

# pvmap-hv's request path as a guest drives it: ASan+UBSan, valgrind, and 32-bit
# (static, for qemu-i386-static) where a count times a size can wrap
HV_TEST_DEPS := tests/unit/test_hv_daemon.c tests/unit/test_hv_replay.c tests/unit/test_hv_daemon.h \
	$(HV_SRC) $(STUB_SRC) $(STUB_HDR) include/uapi/pvmap_hv.h
HV_TEST_SRC := tests/unit/test_hv_daemon.c tests/unit/test_hv_replay.c $(HV_SRC) $(STUB_SRC)

$(B)/unit/test_hv_daemon: $(HV_TEST_DEPS)
	@mkdir -p $(@D)
	gcc $(SAN_CFLAGS) $(STUB_INC) $(UNIT_INC) -o $@ $(HV_TEST_SRC)

$(B)/unit/test_hv_daemon_plain: $(HV_TEST_DEPS)
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -g $(STUB_INC) $(UNIT_INC) -o $@ $(HV_TEST_SRC)

$(B)/unit/test_hv_daemon32: $(HV_TEST_DEPS)
	@mkdir -p $(@D)
	gcc -m32 -static $(HOST_CFLAGS) $(STUB_INC) $(UNIT_INC) -o $@ $(HV_TEST_SRC)

# tests/guest/result.h's words, as the guest suites build them, with ASan + UBSan
$(B)/unit/result_vocab: tests/unit/result_vocab.c tests/guest/result.h tests/guest/harness.h \
		$(GUEST_LIB) | deps
	@mkdir -p $(@D)
	gcc $(filter-out -static,$(GUEST_TEST_CFLAGS)) -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -isystem $(KSFT_DIR) -o $@ $<

UNIT_BINS := $(B)/unit/result_vocab $(B)/unit/test_pattern $(B)/unit/test_pattern32 $(B)/unit/test_pattern_plain \
	$(B)/unit/test_stub $(B)/unit/test_stub_plain $(B)/unit/test_xen_fidelity \
	$(B)/unit/test_xen_fidelity_plain \
	$(B)/unit/test_hv_daemon $(B)/unit/test_hv_daemon_plain $(B)/unit/test_hv_daemon32 \
	$(B)/fuzz/fuzz_decoders $(B)/fuzz/fuzz_hv_requests $(B)/fuzz/fuzz_audit

unit: $(UNIT_BINS) host
	@tests/check --only unit

lint: modules
	@tests/check --only lint

# docs/test-catalog.md from the guest tests and the host halves' registry
catalog:
	tools/host/test-catalog > docs/test-catalog.md

# --- the two commands of the README ------------------------------------------
# What make check runs, built one job per CPU: make check's own time budget
# (docs/testing.md). Kernel builds still go one at a time (guest-kernel.sh's lock).
CHECK_BUILD = deps host guests deb $(UNIT_BINS) $(AUDIT_UNIT_BINS)

check-build:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(CHECK_BUILD)

check: check-build
	@tests/check

# make check, then what needs the network or more time (tests/matrix.list's full rows)
check-full: check-build
	@$(MAKE) --no-print-directory -j$(NPROC) $(ALL_KERNELS:%=$(B)/%/initramfs.cpio)
	@tests/check --full

# Debian VMs booted from their own disks, pvmap installed in them with apt
# (docs/install.md; tests/packaging/vm-check says what each test runs)
vm: deps
	@# the image's directory is the last line; a failed build prints none
	@for a in i386 amd64; do d=$$(tools/host/vm-image.sh $$a | tail -n 1); \
		[ -d "$$d" ] || exit 1; echo "$$d"; done

vm-check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) deb host $(B)/i386/pvmapctl $(B)/x86_64/pvmapctl
	@tests/packaging/vm-check

# x11perf on pvmap_drm against bochs, same VM, same device (docs/drm.md)
vm-bench: deps
	@$(MAKE) --no-print-directory -j$(NPROC) deb
	@tools/host/vm-bench

# The main job first, on Debian's own 686-pae kernel (fetched, not built),
# then pvmap_drm's screen on it; then mainline's io_mapping on Linux 6.12
# NOHIGHMEM as released and with docs/upstream/'s fix, the two kernels it
# builds (tools/host/demo says what each scene shows).
demo:
	+@MAKE='$(MAKE)' tools/host/demo

# Soak: minutes of mixed load on every vCPU, 100k fuzzed ioctls per arch,
# repeated hot-unplug; SOAK_SECONDS per soak guest (default 120).
soak: deps host guests $(B)/x86_64/initramfs.cpio
	@tests/check --only soak

# Benchmarks on production kernels (the debug kernels are for the tests):
# Debian's 686-pae and amd64 (hygiene=0 and 1) and production NOHIGHMEM
# i386 kernels (Linux 6.12 as released, and with docs/upstream/'s fix, where
# mainline's io_mapping flushes, 2-level and with PAE), 4 vCPUs each; every engine and workload, interleaved, 7 times,
# every pass's bytes checked by the host; then deb-686-pae against pvmap-hv,
# pvmap natively and through the hypervisor side by side (pvtest.bench=pv).
# BENCH_README=1 also rewrites the
# summary in docs/benchmarks.md and docs/bench-results.md and docs/bench-results.png from the results.
# The runs are tests/matrix.list's bench rows (the instruction passes among
# them: one vCPU, the guest's clock counting instructions, repeatable where
# TCG's times are not; docs/bench-results.md); their labels, in order:
BENCH_CONFIGS := $(shell awk -F' *[|] *' '/^\[/ { s = $$0 } s == "[runs]" && $$1 == "bench" \
	{ print ($$3 == "-" ? $$2 : $$3) }' tests/matrix.list)

bench: deps host guests $(B)/i386-nohighmem-6.12-prod/initramfs.cpio
	@mkdir -p $(B)/bench
	@for c in $(BENCH_CONFIGS); do \
		tools/host/run-guest --row bench:$$c --log $(B)/bench/$$c.log || exit 1; done
	tools/host/bench-report $(if $(BENCH_README),--readme docs/benchmarks.md) $(B)/bench \
		$(foreach c,$(BENCH_CONFIGS),$(c)=$(B)/bench/$(c).log)
	$(if $(BENCH_README),cp $(B)/bench/table.md docs/bench-results.md && cp $(B)/bench/bench.png docs/bench-results.png)

# --- the DKMS package, for Debian guests (docs/install.md) ----------------------
# /usr/src/pvmap-<version>/: guest/'s Kbuild with its pvmap/ and pvmap_drm/
# (not tests/), and a copy of include/, which each module's include link
# points to. tests/packaging/dkms-check.sh builds it; make vm-check installs it.
DEB := $(B)/deb/pvmap-dkms_$(PVMAP_VERSION)_all.deb
DEB_ROOT := $(B)/deb/root
DEB_SRC_PVMAP := guest/pvmap/Kbuild $(wildcard guest/pvmap/*.[ch])
# pvmap_drm_engines.c is the bench's (CONFIG_PVMAP_TEST_HOOKS): not shipped
DEB_SRC_DRM := guest/pvmap_drm/Kbuild \
	$(filter-out %/pvmap_drm_engines.c,$(wildcard guest/pvmap_drm/*.[ch]))
# pvmap_partial.h is the partial-copy test cases, shared by the guest suite
# and pvmap-pattern: not part of the module source
DEB_INC := $(filter-out %/pvmap_partial.h,$(wildcard include/pvmap/*.h include/uapi/*.h))
DEB_SED := sed -e 's/@PVMAP_VERSION@/$(PVMAP_VERSION)/'

.PHONY: deb
deb: $(DEB)

$(DEB): packaging/dkms/dkms.conf $(wildcard packaging/deb/*) guest/Kbuild $(DEB_SRC_PVMAP) \
		$(DEB_SRC_DRM) $(DEB_INC)
	@rm -rf $(B)/deb
	@src=$(DEB_ROOT)/usr/src/pvmap-$(PVMAP_VERSION) && \
		install -d $$src/pvmap $$src/pvmap_drm $$src/include/pvmap $$src/include/uapi \
			$(DEB_ROOT)/DEBIAN && \
		install -m 0644 guest/Kbuild $$src/ && \
		install -m 0644 $(DEB_SRC_PVMAP) $$src/pvmap/ && \
		install -m 0644 $(DEB_SRC_DRM) $$src/pvmap_drm/ && \
		ln -s ../include $$src/pvmap/include && ln -s ../include $$src/pvmap_drm/include && \
		install -m 0644 $(filter include/pvmap/%,$(DEB_INC)) $$src/include/pvmap/ && \
		install -m 0644 $(filter include/uapi/%,$(DEB_INC)) $$src/include/uapi/ && \
		$(DEB_SED) packaging/dkms/dkms.conf >$$src/dkms.conf
	@install -D -m 0644 packaging/deb/copyright $(DEB_ROOT)/usr/share/doc/pvmap-dkms/copyright
	@$(DEB_SED) -e "s/@INSTALLED_SIZE@/$$(du -sk $(DEB_ROOT)/usr | cut -f1)/" \
		packaging/deb/control >$(DEB_ROOT)/DEBIAN/control
	@$(DEB_SED) packaging/deb/postinst >$(DEB_ROOT)/DEBIAN/postinst
	@$(DEB_SED) packaging/deb/prerm >$(DEB_ROOT)/DEBIAN/prerm
	@chmod 0755 $(DEB_ROOT)/DEBIAN/postinst $(DEB_ROOT)/DEBIAN/prerm
	dpkg-deb --build --root-owner-group $(DEB_ROOT) $@

clean:
	rm -rf $(B)

clean-cache:
	rm -rf $(PVMAP_CACHE)

FORCE:

# Keep the guest programs the initramfs rules build through pattern rules.
.SECONDARY:
