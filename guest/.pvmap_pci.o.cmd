cmd_/work/main/guest/pvmap_pci.o := gcc -Wp,-MMD,/work/main/guest/.pvmap_pci.o.d -nostdinc -I/root/.cache/pvmap/linux-6.1.192-3/arch/x86/include -I./arch/x86/include/generated -I/root/.cache/pvmap/linux-6.1.192-3/include -I./include -I/root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi -I./arch/x86/include/generated/uapi -I/root/.cache/pvmap/linux-6.1.192-3/include/uapi -I./include/generated/uapi -include /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler-version.h -include /root/.cache/pvmap/linux-6.1.192-3/include/linux/kconfig.h -include /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler_types.h -D__KERNEL__ -fmacro-prefix-map=/root/.cache/pvmap/linux-6.1.192-3/= -DKBUILD_EXTRA_WARN1 -Wall -Wundef -Werror=strict-prototypes -Wno-trigraphs -fno-strict-aliasing -fno-common -fshort-wchar -fno-PIE -Werror=implicit-function-declaration -Werror=implicit-int -Werror=return-type -Wno-format-security -std=gnu11 -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -fcf-protection=none -m32 -msoft-float -mregparm=3 -freg-struct-return -fno-pic -mpreferred-stack-boundary=2 -march=i686 -Wa,-mtune=generic32 -ffreestanding -Wno-sign-compare -fno-asynchronous-unwind-tables -fno-delete-null-pointer-checks -Wno-frame-address -Wno-format-truncation -Wno-format-overflow -Wno-address-of-packed-member -Os -fno-allow-store-data-races -Wframe-larger-than=1024 -fno-stack-protector -Wno-main -Wno-unused-but-set-variable -Wno-unused-const-variable -Wno-dangling-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -ftrivial-auto-var-init=zero -fno-stack-clash-protection -Wvla -Wno-pointer-sign -Wcast-function-type -Wno-stringop-truncation -Wno-stringop-overflow -Wno-restrict -Wno-maybe-uninitialized -Wno-array-bounds -Wno-alloc-size-larger-than -Wimplicit-fallthrough=5 -fno-strict-overflow -fno-stack-check -fconserve-stack -Werror=date-time -Werror=incompatible-pointer-types -Werror=designated-init -fno-builtin-wcslen -Wno-packed-not-aligned -Wextra -Wunused -Wno-unused-parameter -Wmissing-declarations -Wmissing-format-attribute -Wmissing-prototypes -Wold-style-definition -Wmissing-include-dirs -Wunused-but-set-variable -Wunused-const-variable -Wpacked-not-aligned -Wstringop-truncation -Wno-missing-field-initializers -Wno-sign-compare -Wno-type-limits -Wno-shift-negative-value -I/work/main/guest/../include  -DMODULE  -DKBUILD_BASENAME='"pvmap_pci"' -DKBUILD_MODNAME='"pvmap"' -D__KBUILD_MODNAME=kmod_pvmap -c -o /work/main/guest/pvmap_pci.o /work/main/guest/pvmap_pci.c  

source_/work/main/guest/pvmap_pci.o := /work/main/guest/pvmap_pci.c

deps_/work/main/guest/pvmap_pci.o := \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler-version.h \
    $(wildcard include/config/CC_VERSION_TEXT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kconfig.h \
    $(wildcard include/config/CPU_BIG_ENDIAN) \
    $(wildcard include/config/BOOGER) \
    $(wildcard include/config/FOO) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler_types.h \
    $(wildcard include/config/DEBUG_INFO_BTF) \
    $(wildcard include/config/PAHOLE_HAS_BTF_TAG) \
    $(wildcard include/config/HAVE_ARCH_COMPILER_H) \
    $(wildcard include/config/CC_HAS_ASM_INLINE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler_attributes.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler-gcc.h \
    $(wildcard include/config/RETPOLINE) \
    $(wildcard include/config/GCC_ASM_GOTO_OUTPUT_WORKAROUND) \
    $(wildcard include/config/ARCH_USE_BUILTIN_BSWAP) \
    $(wildcard include/config/SHADOW_CALL_STACK) \
    $(wildcard include/config/KCOV) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/debugfs.h \
    $(wildcard include/config/DEBUG_FS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/fs.h \
    $(wildcard include/config/READ_ONLY_THP_FOR_FS) \
    $(wildcard include/config/SMP) \
    $(wildcard include/config/FS_POSIX_ACL) \
    $(wildcard include/config/SECURITY) \
    $(wildcard include/config/CGROUP_WRITEBACK) \
    $(wildcard include/config/IMA) \
    $(wildcard include/config/FILE_LOCKING) \
    $(wildcard include/config/FSNOTIFY) \
    $(wildcard include/config/FS_ENCRYPTION) \
    $(wildcard include/config/FS_VERITY) \
    $(wildcard include/config/PREEMPTION) \
    $(wildcard include/config/EPOLL) \
    $(wildcard include/config/UNICODE) \
    $(wildcard include/config/COMPAT) \
    $(wildcard include/config/MMU) \
    $(wildcard include/config/QUOTA) \
    $(wildcard include/config/FS_DAX) \
    $(wildcard include/config/BLOCK) \
    $(wildcard include/config/DEBUG_LOCK_ALLOC) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/linkage.h \
    $(wildcard include/config/ARCH_USE_SYM_ANNOTATIONS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stringify.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/export.h \
    $(wildcard include/config/MODVERSIONS) \
    $(wildcard include/config/HAVE_ARCH_PREL32_RELOCATIONS) \
    $(wildcard include/config/MODULES) \
    $(wildcard include/config/TRIM_UNUSED_KSYMS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/compiler.h \
    $(wildcard include/config/TRACE_BRANCH_PROFILING) \
    $(wildcard include/config/PROFILE_ALL_BRANCHES) \
    $(wildcard include/config/OBJTOOL) \
    $(wildcard include/config/64BIT) \
  arch/x86/include/generated/asm/rwonce.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/rwonce.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kasan-checks.h \
    $(wildcard include/config/KASAN_GENERIC) \
    $(wildcard include/config/KASAN_SW_TAGS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/types.h \
    $(wildcard include/config/HAVE_UID16) \
    $(wildcard include/config/UID16) \
    $(wildcard include/config/ARCH_DMA_ADDR_T_64BIT) \
    $(wildcard include/config/PHYS_ADDR_T_64BIT) \
    $(wildcard include/config/ARCH_32BIT_USTAT_F_TINODE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/types.h \
  arch/x86/include/generated/uapi/asm/types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/int-ll64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/int-ll64.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/bitsperlong.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitsperlong.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/bitsperlong.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/posix_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stddef.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/stddef.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/posix_types.h \
    $(wildcard include/config/X86_32) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/posix_types_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/posix_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kcsan-checks.h \
    $(wildcard include/config/KCSAN) \
    $(wildcard include/config/KCSAN_WEAK_MEMORY) \
    $(wildcard include/config/KCSAN_IGNORE_ATOMICS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/linkage.h \
    $(wildcard include/config/X86_64) \
    $(wildcard include/config/X86_ALIGNMENT_16) \
    $(wildcard include/config/RETHUNK) \
    $(wildcard include/config/SLS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/ibt.h \
    $(wildcard include/config/X86_KERNEL_IBT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/wait_bit.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/wait.h \
    $(wildcard include/config/LOCKDEP) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/list.h \
    $(wildcard include/config/DEBUG_LIST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/container_of.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/build_bug.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/err.h \
  arch/x86/include/generated/uapi/asm/errno.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/errno.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/errno-base.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/poison.h \
    $(wildcard include/config/ILLEGAL_POINTER_VALUE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/const.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/const.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/const.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/barrier.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/alternative.h \
    $(wildcard include/config/MITIGATION_ITS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/asm.h \
    $(wildcard include/config/KPROBES) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/extable_fixup_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/bug.h \
    $(wildcard include/config/GENERIC_BUG) \
    $(wildcard include/config/DEBUG_BUGVERBOSE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/instrumentation.h \
    $(wildcard include/config/NOINSTR_VALIDATION) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/objtool.h \
    $(wildcard include/config/FRAME_POINTER) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bug.h \
    $(wildcard include/config/BUG) \
    $(wildcard include/config/GENERIC_BUG_RELATIVE_POINTERS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/once_lite.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/panic.h \
    $(wildcard include/config/PANIC_TIMEOUT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/printk.h \
    $(wildcard include/config/MESSAGE_LOGLEVEL_DEFAULT) \
    $(wildcard include/config/CONSOLE_LOGLEVEL_DEFAULT) \
    $(wildcard include/config/CONSOLE_LOGLEVEL_QUIET) \
    $(wildcard include/config/EARLY_PRINTK) \
    $(wildcard include/config/PRINTK) \
    $(wildcard include/config/PRINTK_INDEX) \
    $(wildcard include/config/DYNAMIC_DEBUG) \
    $(wildcard include/config/DYNAMIC_DEBUG_CORE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stdarg.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/init.h \
    $(wildcard include/config/STRICT_KERNEL_RWX) \
    $(wildcard include/config/STRICT_MODULE_RWX) \
    $(wildcard include/config/LTO_CLANG) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kern_levels.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ratelimit_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bits.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/bits.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/param.h \
  arch/x86/include/generated/uapi/asm/param.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/param.h \
    $(wildcard include/config/HZ) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/param.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/spinlock_types_raw.h \
    $(wildcard include/config/DEBUG_SPINLOCK) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/spinlock_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/qspinlock_types.h \
    $(wildcard include/config/NR_CPUS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/qrwlock_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/byteorder.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/byteorder/little_endian.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/byteorder/little_endian.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/swab.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/swab.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/swab.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/byteorder/generic.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/lockdep_types.h \
    $(wildcard include/config/PROVE_RAW_LOCK_NESTING) \
    $(wildcard include/config/LOCK_STAT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/nops.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/barrier.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/spinlock.h \
    $(wildcard include/config/PREEMPT_RT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/typecheck.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/preempt.h \
    $(wildcard include/config/PREEMPT_COUNT) \
    $(wildcard include/config/DEBUG_PREEMPT) \
    $(wildcard include/config/TRACE_PREEMPT_TOGGLE) \
    $(wildcard include/config/PREEMPT_NOTIFIERS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/cleanup.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/preempt.h \
    $(wildcard include/config/PREEMPT_DYNAMIC) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/rmwcc.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/percpu.h \
    $(wildcard include/config/X86_64_SMP) \
    $(wildcard include/config/X86_CMPXCHG64) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kernel.h \
    $(wildcard include/config/PREEMPT_VOLUNTARY_BUILD) \
    $(wildcard include/config/HAVE_PREEMPT_DYNAMIC_CALL) \
    $(wildcard include/config/HAVE_PREEMPT_DYNAMIC_KEY) \
    $(wildcard include/config/PREEMPT_) \
    $(wildcard include/config/DEBUG_ATOMIC_SLEEP) \
    $(wildcard include/config/PROVE_LOCKING) \
    $(wildcard include/config/TRACING) \
    $(wildcard include/config/FTRACE_MCOUNT_RECORD) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/align.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/array_size.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/limits.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/limits.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/limits.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bitops.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/kernel.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/sysinfo.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/generic-non-atomic.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/bitops.h \
    $(wildcard include/config/X86_CMOV) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/fls64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/sched.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/arch_hweight.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cpufeatures.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/required-features.h \
    $(wildcard include/config/X86_MINIMUM_CPU_FAMILY) \
    $(wildcard include/config/MATH_EMULATION) \
    $(wildcard include/config/X86_PAE) \
    $(wildcard include/config/X86_P6_NOP) \
    $(wildcard include/config/MATOM) \
    $(wildcard include/config/PARAVIRT_XXL) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/disabled-features.h \
    $(wildcard include/config/X86_UMIP) \
    $(wildcard include/config/X86_INTEL_MEMORY_PROTECTION_KEYS) \
    $(wildcard include/config/X86_5LEVEL) \
    $(wildcard include/config/PAGE_TABLE_ISOLATION) \
    $(wildcard include/config/CPU_UNRET_ENTRY) \
    $(wildcard include/config/INTEL_IOMMU_SVM) \
    $(wildcard include/config/X86_SGX) \
    $(wildcard include/config/INTEL_TDX_GUEST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/const_hweight.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/instrumented-atomic.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/instrumented.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kmsan-checks.h \
    $(wildcard include/config/KMSAN) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/instrumented-non-atomic.h \
    $(wildcard include/config/KCSAN_ASSUME_PLAIN_WRITES_ATOMIC) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/instrumented-lock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/le.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/bitops/ext2-atomic-setbit.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kstrtox.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/log2.h \
    $(wildcard include/config/ARCH_HAS_ILOG2_U32) \
    $(wildcard include/config/ARCH_HAS_ILOG2_U64) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/math.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/div64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/minmax.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/static_call_types.h \
    $(wildcard include/config/HAVE_STATIC_CALL) \
    $(wildcard include/config/HAVE_STATIC_CALL_INLINE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/instruction_pointer.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/percpu.h \
    $(wildcard include/config/HAVE_SETUP_PER_CPU_AREA) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/threads.h \
    $(wildcard include/config/BASE_SMALL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/percpu-defs.h \
    $(wildcard include/config/DEBUG_FORCE_WEAK_PER_CPU) \
    $(wildcard include/config/AMD_MEM_ENCRYPT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/thread_info.h \
    $(wildcard include/config/THREAD_INFO_IN_TASK) \
    $(wildcard include/config/GENERIC_ENTRY) \
    $(wildcard include/config/HAVE_ARCH_WITHIN_STACK_FRAMES) \
    $(wildcard include/config/HARDENED_USERCOPY) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bug.h \
    $(wildcard include/config/BUG_ON_DATA_CORRUPTION) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/restart_block.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/time64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/math64.h \
    $(wildcard include/config/ARCH_SUPPORTS_INT128) \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/math64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/time64.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/time.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/time_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/errno.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/errno.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/current.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/thread_info.h \
    $(wildcard include/config/VM86) \
    $(wildcard include/config/X86_IOPL_IOPERM) \
    $(wildcard include/config/IA32_EMULATION) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/page.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/page_types.h \
    $(wildcard include/config/PHYSICAL_START) \
    $(wildcard include/config/PHYSICAL_ALIGN) \
    $(wildcard include/config/DYNAMIC_PHYSICAL_MASK) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mem_encrypt.h \
    $(wildcard include/config/ARCH_HAS_MEM_ENCRYPT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/mem_encrypt.h \
    $(wildcard include/config/X86_MEM_ENCRYPT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/cc_platform.h \
    $(wildcard include/config/ARCH_HAS_CC_PLATFORM) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/page_32_types.h \
    $(wildcard include/config/HIGHMEM4G) \
    $(wildcard include/config/HIGHMEM64G) \
    $(wildcard include/config/PAGE_OFFSET) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/page_32.h \
    $(wildcard include/config/DEBUG_VIRTUAL) \
    $(wildcard include/config/FLATMEM) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/string.h \
    $(wildcard include/config/BINARY_PRINTF) \
    $(wildcard include/config/FORTIFY_SOURCE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/overflow.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/string.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/string.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/string_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/range.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/memory_model.h \
    $(wildcard include/config/SPARSEMEM_VMEMMAP) \
    $(wildcard include/config/SPARSEMEM) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pfn.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/getorder.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cpufeature.h \
    $(wildcard include/config/X86_FEATURE_NAMES) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/processor.h \
    $(wildcard include/config/X86_VSMP) \
    $(wildcard include/config/X86_VMX_FEATURE_NAMES) \
    $(wildcard include/config/STACKPROTECTOR) \
    $(wildcard include/config/X86_DEBUGCTLMSR) \
    $(wildcard include/config/CPU_SUP_AMD) \
    $(wildcard include/config/XEN) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/processor-flags.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/processor-flags.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/math_emu.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/ptrace.h \
    $(wildcard include/config/PARAVIRT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/segment.h \
    $(wildcard include/config/XEN_PV) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/ptrace.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/ptrace-abi.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/paravirt_types.h \
    $(wildcard include/config/PGTABLE_LEVELS) \
    $(wildcard include/config/ZERO_CALL_USED_REGS) \
    $(wildcard include/config/PARAVIRT_DEBUG) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/desc_defs.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable_types.h \
    $(wildcard include/config/MEM_SOFT_DIRTY) \
    $(wildcard include/config/HAVE_ARCH_USERFAULTFD_WP) \
    $(wildcard include/config/PROC_FS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable_32_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable-3level_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/pgtable-nop4d.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/pgtable-nopud.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/nospec-branch.h \
    $(wildcard include/config/CPU_SRSO) \
    $(wildcard include/config/CPU_IBPB_ENTRY) \
    $(wildcard include/config/BPF_JIT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/static_key.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/jump_label.h \
    $(wildcard include/config/JUMP_LABEL) \
    $(wildcard include/config/HAVE_ARCH_JUMP_LABEL_RELATIVE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/atomic.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/atomic.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cmpxchg.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cmpxchg_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/atomic64_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/atomic/atomic-arch-fallback.h \
    $(wildcard include/config/GENERIC_ATOMIC64) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/atomic/atomic-long.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/atomic/atomic-instrumented.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/msr-index.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/unwind_hints.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/orc_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/proto.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/ldt.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/sigcontext.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/msr.h \
    $(wildcard include/config/TRACEPOINTS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/msr-index.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cpumask.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/cpumask.h \
    $(wildcard include/config/FORCE_NR_CPUS) \
    $(wildcard include/config/HOTPLUG_CPU) \
    $(wildcard include/config/DEBUG_PER_CPU_MAPS) \
    $(wildcard include/config/CPUMASK_OFFSTACK) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bitmap.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/find.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/gfp_types.h \
    $(wildcard include/config/KASAN_HW_TAGS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/numa.h \
    $(wildcard include/config/NODES_SHIFT) \
    $(wildcard include/config/NUMA_KEEP_MEMINFO) \
    $(wildcard include/config/NUMA) \
    $(wildcard include/config/HAVE_ARCH_NODE_DEV_GROUP) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/msr.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/ioctl.h \
  arch/x86/include/generated/uapi/asm/ioctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/ioctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/ioctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/shared/msr.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/tracepoint-defs.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/special_insns.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/irqflags.h \
    $(wildcard include/config/TRACE_IRQFLAGS) \
    $(wildcard include/config/IRQSOFF_TRACER) \
    $(wildcard include/config/PREEMPT_TRACER) \
    $(wildcard include/config/DEBUG_IRQFLAGS) \
    $(wildcard include/config/TRACE_IRQFLAGS_SUPPORT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/irqflags.h \
    $(wildcard include/config/DEBUG_ENTRY) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/fpu/types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/vmxfeatures.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/vdso/processor.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/personality.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/personality.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/cache.h \
    $(wildcard include/config/ARCH_HAS_CACHE_LINE_SIZE) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cache.h \
    $(wildcard include/config/X86_L1_CACHE_SHIFT) \
    $(wildcard include/config/X86_INTERNODE_CACHE_SHIFT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bottom_half.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/lockdep.h \
    $(wildcard include/config/DEBUG_LOCKING_API_SELFTESTS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/smp.h \
    $(wildcard include/config/UP_LATE_INIT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/smp_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/llist.h \
    $(wildcard include/config/ARCH_HAVE_NMI_SAFE_CMPXCHG) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/smp.h \
    $(wildcard include/config/X86_LOCAL_APIC) \
    $(wildcard include/config/DEBUG_NMI_SELFTEST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/debug_locks.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stacktrace.h \
    $(wildcard include/config/ARCH_STACKWALK) \
    $(wildcard include/config/STACKTRACE) \
    $(wildcard include/config/HAVE_RELIABLE_STACKTRACE) \
  arch/x86/include/generated/asm/mmiowb.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/mmiowb.h \
    $(wildcard include/config/MMIOWB) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/spinlock_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rwlock_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/spinlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/paravirt.h \
    $(wildcard include/config/PARAVIRT_SPINLOCKS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/frame.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/qspinlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/qspinlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/qrwlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/qrwlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rwlock.h \
    $(wildcard include/config/PREEMPT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/spinlock_api_smp.h \
    $(wildcard include/config/INLINE_SPIN_LOCK) \
    $(wildcard include/config/INLINE_SPIN_LOCK_BH) \
    $(wildcard include/config/INLINE_SPIN_LOCK_IRQ) \
    $(wildcard include/config/INLINE_SPIN_LOCK_IRQSAVE) \
    $(wildcard include/config/INLINE_SPIN_TRYLOCK) \
    $(wildcard include/config/INLINE_SPIN_TRYLOCK_BH) \
    $(wildcard include/config/UNINLINE_SPIN_UNLOCK) \
    $(wildcard include/config/INLINE_SPIN_UNLOCK_BH) \
    $(wildcard include/config/INLINE_SPIN_UNLOCK_IRQ) \
    $(wildcard include/config/INLINE_SPIN_UNLOCK_IRQRESTORE) \
    $(wildcard include/config/GENERIC_LOCKBREAK) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rwlock_api_smp.h \
    $(wildcard include/config/INLINE_READ_LOCK) \
    $(wildcard include/config/INLINE_WRITE_LOCK) \
    $(wildcard include/config/INLINE_READ_LOCK_BH) \
    $(wildcard include/config/INLINE_WRITE_LOCK_BH) \
    $(wildcard include/config/INLINE_READ_LOCK_IRQ) \
    $(wildcard include/config/INLINE_WRITE_LOCK_IRQ) \
    $(wildcard include/config/INLINE_READ_LOCK_IRQSAVE) \
    $(wildcard include/config/INLINE_WRITE_LOCK_IRQSAVE) \
    $(wildcard include/config/INLINE_READ_TRYLOCK) \
    $(wildcard include/config/INLINE_WRITE_TRYLOCK) \
    $(wildcard include/config/INLINE_READ_UNLOCK) \
    $(wildcard include/config/INLINE_WRITE_UNLOCK) \
    $(wildcard include/config/INLINE_READ_UNLOCK_BH) \
    $(wildcard include/config/INLINE_WRITE_UNLOCK_BH) \
    $(wildcard include/config/INLINE_READ_UNLOCK_IRQ) \
    $(wildcard include/config/INLINE_WRITE_UNLOCK_IRQ) \
    $(wildcard include/config/INLINE_READ_UNLOCK_IRQRESTORE) \
    $(wildcard include/config/INLINE_WRITE_UNLOCK_IRQRESTORE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/wait.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kdev_t.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/kdev_t.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dcache.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rculist.h \
    $(wildcard include/config/PROVE_RCU_LIST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcupdate.h \
    $(wildcard include/config/PREEMPT_RCU) \
    $(wildcard include/config/TINY_RCU) \
    $(wildcard include/config/RCU_STRICT_GRACE_PERIOD) \
    $(wildcard include/config/TASKS_RCU_GENERIC) \
    $(wildcard include/config/RCU_STALL_COMMON) \
    $(wildcard include/config/NO_HZ_FULL) \
    $(wildcard include/config/KVM_XFER_TO_GUEST_WORK) \
    $(wildcard include/config/RCU_NOCB_CPU) \
    $(wildcard include/config/TASKS_RCU) \
    $(wildcard include/config/TASKS_TRACE_RCU) \
    $(wildcard include/config/TASKS_RUDE_RCU) \
    $(wildcard include/config/TREE_RCU) \
    $(wildcard include/config/DEBUG_OBJECTS_RCU_HEAD) \
    $(wildcard include/config/PROVE_RCU) \
    $(wildcard include/config/ARCH_WEAK_RELEASE_ACQUIRE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/context_tracking_irq.h \
    $(wildcard include/config/CONTEXT_TRACKING_IDLE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcutree.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rculist_bl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/list_bl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/bit_spinlock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/seqlock.h \
    $(wildcard include/config/CC_IS_GCC) \
    $(wildcard include/config/GCC_VERSION) \
    $(wildcard include/config/KASAN) \
    $(wildcard include/config/UBSAN_ALIGNMENT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mutex.h \
    $(wildcard include/config/MUTEX_SPIN_ON_OWNER) \
    $(wildcard include/config/DEBUG_MUTEXES) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/osq_lock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/lockref.h \
    $(wildcard include/config/ARCH_USE_CMPXCHG_LOCKREF) \
  include/generated/bounds.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stringhash.h \
    $(wildcard include/config/DCACHE_WORD_ACCESS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/hash.h \
    $(wildcard include/config/HAVE_ARCH_HASH) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/path.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stat.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/stat.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/stat.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/time.h \
    $(wildcard include/config/POSIX_TIMERS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/time32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/timex.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/timex.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/timex.h \
    $(wildcard include/config/X86_TSC) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/tsc.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/time32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/time.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/uidgid.h \
    $(wildcard include/config/MULTIUSER) \
    $(wildcard include/config/USER_NS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/highuid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/list_lru.h \
    $(wildcard include/config/MEMCG_KMEM) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/nodemask.h \
    $(wildcard include/config/HIGHMEM) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/random.h \
    $(wildcard include/config/VMGENID) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/once.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/random.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/irqnr.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/irqnr.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/prandom.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/percpu.h \
    $(wildcard include/config/NEED_PER_CPU_EMBED_FIRST_CHUNK) \
    $(wildcard include/config/NEED_PER_CPU_PAGE_FIRST_CHUNK) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mmdebug.h \
    $(wildcard include/config/DEBUG_VM) \
    $(wildcard include/config/DEBUG_VM_IRQSOFF) \
    $(wildcard include/config/DEBUG_VM_PGFLAGS) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/archrandom.h \
    $(wildcard include/config/UML) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/shrinker.h \
    $(wildcard include/config/MEMCG) \
    $(wildcard include/config/SHRINKER_DEBUG) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/xarray.h \
    $(wildcard include/config/XARRAY_MULTI) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/gfp.h \
    $(wildcard include/config/ZONE_DMA) \
    $(wildcard include/config/ZONE_DMA32) \
    $(wildcard include/config/ZONE_DEVICE) \
    $(wildcard include/config/COMPACTION) \
    $(wildcard include/config/PM_SLEEP) \
    $(wildcard include/config/CONTIG_ALLOC) \
    $(wildcard include/config/CMA) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mmzone.h \
    $(wildcard include/config/ARCH_FORCE_MAX_ORDER) \
    $(wildcard include/config/MEMORY_ISOLATION) \
    $(wildcard include/config/ZSMALLOC) \
    $(wildcard include/config/SWAP) \
    $(wildcard include/config/NUMA_BALANCING) \
    $(wildcard include/config/TRANSPARENT_HUGEPAGE) \
    $(wildcard include/config/LRU_GEN) \
    $(wildcard include/config/LRU_GEN_STATS) \
    $(wildcard include/config/MEMORY_HOTPLUG) \
    $(wildcard include/config/PAGE_EXTENSION) \
    $(wildcard include/config/DEFERRED_STRUCT_PAGE_INIT) \
    $(wildcard include/config/HAVE_MEMORYLESS_NODES) \
    $(wildcard include/config/SPARSEMEM_EXTREME) \
    $(wildcard include/config/HAVE_ARCH_PFN_VALID) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pageblock-flags.h \
    $(wildcard include/config/HUGETLB_PAGE) \
    $(wildcard include/config/HUGETLB_PAGE_SIZE_VARIABLE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/page-flags-layout.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mm_types.h \
    $(wildcard include/config/HAVE_ALIGNED_STRUCT_PAGE) \
    $(wildcard include/config/ARCH_WANT_HUGE_PMD_SHARE) \
    $(wildcard include/config/USERFAULTFD) \
    $(wildcard include/config/HAVE_ARCH_COMPAT_MMAP_BASES) \
    $(wildcard include/config/MEMBARRIER) \
    $(wildcard include/config/FUTEX) \
    $(wildcard include/config/AIO) \
    $(wildcard include/config/MMU_NOTIFIER) \
    $(wildcard include/config/ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH) \
    $(wildcard include/config/IOMMU_SVA) \
    $(wildcard include/config/KSM) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mm_types_task.h \
    $(wildcard include/config/SPLIT_PTLOCK_CPUS) \
    $(wildcard include/config/ARCH_ENABLE_SPLIT_PMD_PTLOCK) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/tlbbatch.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/auxvec.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/auxvec.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/auxvec.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kref.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/refcount.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rbtree.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rbtree_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/maple_tree.h \
    $(wildcard include/config/MAPLE_RCU_DISABLED) \
    $(wildcard include/config/DEBUG_MAPLE_TREE_VERBOSE) \
    $(wildcard include/config/DEBUG_MAPLE_TREE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rwsem.h \
    $(wildcard include/config/RWSEM_SPIN_ON_OWNER) \
    $(wildcard include/config/DEBUG_RWSEMS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/completion.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/swait.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/uprobes.h \
    $(wildcard include/config/UPROBES) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/workqueue.h \
    $(wildcard include/config/DEBUG_OBJECTS_WORK) \
    $(wildcard include/config/FREEZER) \
    $(wildcard include/config/SYSFS) \
    $(wildcard include/config/WQ_WATCHDOG) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/timer.h \
    $(wildcard include/config/DEBUG_OBJECTS_TIMERS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ktime.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/jiffies.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/jiffies.h \
  include/generated/timeconst.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/vdso/ktime.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/timekeeping.h \
    $(wildcard include/config/GENERIC_CMOS_UPDATE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/clocksource_ids.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/debugobjects.h \
    $(wildcard include/config/DEBUG_OBJECTS) \
    $(wildcard include/config/DEBUG_OBJECTS_FREE) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/mmu.h \
    $(wildcard include/config/MODIFY_LDT_SYSCALL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/page-flags.h \
    $(wildcard include/config/ARCH_USES_PG_UNCACHED) \
    $(wildcard include/config/MEMORY_FAILURE) \
    $(wildcard include/config/PAGE_IDLE_FLAG) \
    $(wildcard include/config/HUGETLB_PAGE_OPTIMIZE_VMEMMAP) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/local_lock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/local_lock_internal.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/memory_hotplug.h \
    $(wildcard include/config/HAVE_ARCH_NODEDATA_EXTENSION) \
    $(wildcard include/config/ARCH_HAS_ADD_PAGES) \
    $(wildcard include/config/MEMORY_HOTREMOVE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/notifier.h \
    $(wildcard include/config/TREE_SRCU) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/srcu.h \
    $(wildcard include/config/TINY_SRCU) \
    $(wildcard include/config/SRCU) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcu_segcblist.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/srcutree.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcu_node_tree.h \
    $(wildcard include/config/RCU_FANOUT) \
    $(wildcard include/config/RCU_FANOUT_LEAF) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/topology.h \
    $(wildcard include/config/USE_PERCPU_NUMA_NODE_ID) \
    $(wildcard include/config/SCHED_SMT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/arch_topology.h \
    $(wildcard include/config/ACPI_CPPC_LIB) \
    $(wildcard include/config/GENERIC_ARCH_TOPOLOGY) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/topology.h \
    $(wildcard include/config/SCHED_MC_PRIO) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/topology.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kconfig.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/mm.h \
    $(wildcard include/config/ARCH_HAS_MEMBARRIER_CALLBACKS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched.h \
    $(wildcard include/config/VIRT_CPU_ACCOUNTING_NATIVE) \
    $(wildcard include/config/SCHED_INFO) \
    $(wildcard include/config/SCHEDSTATS) \
    $(wildcard include/config/SCHED_CORE) \
    $(wildcard include/config/FAIR_GROUP_SCHED) \
    $(wildcard include/config/RT_GROUP_SCHED) \
    $(wildcard include/config/RT_MUTEXES) \
    $(wildcard include/config/UCLAMP_TASK) \
    $(wildcard include/config/UCLAMP_BUCKETS_COUNT) \
    $(wildcard include/config/KMAP_LOCAL) \
    $(wildcard include/config/CGROUP_SCHED) \
    $(wildcard include/config/BLK_DEV_IO_TRACE) \
    $(wildcard include/config/COMPAT_BRK) \
    $(wildcard include/config/CGROUPS) \
    $(wildcard include/config/BLK_CGROUP) \
    $(wildcard include/config/PSI) \
    $(wildcard include/config/PAGE_OWNER) \
    $(wildcard include/config/EVENTFD) \
    $(wildcard include/config/CPU_SUP_INTEL) \
    $(wildcard include/config/TASK_DELAY_ACCT) \
    $(wildcard include/config/ARCH_HAS_SCALED_CPUTIME) \
    $(wildcard include/config/VIRT_CPU_ACCOUNTING_GEN) \
    $(wildcard include/config/POSIX_CPUTIMERS) \
    $(wildcard include/config/POSIX_CPU_TIMERS_TASK_WORK) \
    $(wildcard include/config/KEYS) \
    $(wildcard include/config/SYSVIPC) \
    $(wildcard include/config/DETECT_HUNG_TASK) \
    $(wildcard include/config/IO_URING) \
    $(wildcard include/config/AUDIT) \
    $(wildcard include/config/AUDITSYSCALL) \
    $(wildcard include/config/UBSAN) \
    $(wildcard include/config/UBSAN_TRAP) \
    $(wildcard include/config/TASK_XACCT) \
    $(wildcard include/config/CPUSETS) \
    $(wildcard include/config/X86_CPU_RESCTRL) \
    $(wildcard include/config/PERF_EVENTS) \
    $(wildcard include/config/RSEQ) \
    $(wildcard include/config/FAULT_INJECTION) \
    $(wildcard include/config/LATENCYTOP) \
    $(wildcard include/config/KUNIT) \
    $(wildcard include/config/FUNCTION_GRAPH_TRACER) \
    $(wildcard include/config/BCACHE) \
    $(wildcard include/config/VMAP_STACK) \
    $(wildcard include/config/LIVEPATCH) \
    $(wildcard include/config/BPF_SYSCALL) \
    $(wildcard include/config/GCC_PLUGIN_STACKLEAK) \
    $(wildcard include/config/RANDOMIZE_KSTACK_OFFSET) \
    $(wildcard include/config/X86_MCE) \
    $(wildcard include/config/KRETPROBES) \
    $(wildcard include/config/RETHOOK) \
    $(wildcard include/config/ARCH_HAS_PARANOID_L1D_FLUSH) \
    $(wildcard include/config/RV) \
    $(wildcard include/config/ARCH_TASK_STRUCT_ON_STACK) \
    $(wildcard include/config/PREEMPT_NONE) \
    $(wildcard include/config/PREEMPT_VOLUNTARY) \
    $(wildcard include/config/DEBUG_RSEQ) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/sched.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sem.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/sem.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ipc.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rhashtable-types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/ipc.h \
  arch/x86/include/generated/uapi/asm/ipcbuf.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/ipcbuf.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/sembuf.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/shm.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/shm.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/hugetlb_encode.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/shmbuf.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/shmbuf.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/shmparam.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kmsan_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/plist.h \
    $(wildcard include/config/DEBUG_PLIST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/hrtimer.h \
    $(wildcard include/config/HIGH_RES_TIMERS) \
    $(wildcard include/config/TIME_LOW_RES) \
    $(wildcard include/config/TIMERFD) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/hrtimer_defs.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/timerqueue.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/seccomp.h \
    $(wildcard include/config/SECCOMP) \
    $(wildcard include/config/HAVE_ARCH_SECCOMP_FILTER) \
    $(wildcard include/config/SECCOMP_FILTER) \
    $(wildcard include/config/CHECKPOINT_RESTORE) \
    $(wildcard include/config/SECCOMP_CACHE_DEBUG) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/seccomp.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/resource.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/resource.h \
  arch/x86/include/generated/uapi/asm/resource.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/resource.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/resource.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/latencytop.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/prio.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/signal_types.h \
    $(wildcard include/config/OLD_SIGACTION) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/signal.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/signal.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/signal.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/signal-defs.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/siginfo.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/siginfo.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/syscall_user_dispatch.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/task_io_accounting.h \
    $(wildcard include/config/TASK_IO_ACCOUNTING) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/posix-timers.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/alarmtimer.h \
    $(wildcard include/config/RTC_CLASS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/rseq.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kcsan.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rv.h \
    $(wildcard include/config/RV_REACTORS) \
  arch/x86/include/generated/asm/kmap_size.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/kmap_size.h \
    $(wildcard include/config/DEBUG_KMAP_LOCAL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sync_core.h \
    $(wildcard include/config/ARCH_HAS_SYNC_CORE_BEFORE_USERMODE) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/sync_core.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ioasid.h \
    $(wildcard include/config/IOASID) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/radix-tree.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/capability.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/capability.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/semaphore.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/fcntl.h \
    $(wildcard include/config/ARCH_32BIT_OFF_T) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/fcntl.h \
  arch/x86/include/generated/uapi/asm/fcntl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/asm-generic/fcntl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/openat2.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/migrate_mode.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/percpu-rwsem.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcuwait.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/signal.h \
    $(wildcard include/config/SCHED_AUTOGROUP) \
    $(wildcard include/config/BSD_PROCESS_ACCT) \
    $(wildcard include/config/TASKSTATS) \
    $(wildcard include/config/STACK_GROWSUP) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/signal.h \
    $(wildcard include/config/DYNAMIC_SIGFRAME) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/jobctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/task.h \
    $(wildcard include/config/HAVE_EXIT_THREAD) \
    $(wildcard include/config/ARCH_WANTS_DYNAMIC_TASK_STRUCT) \
    $(wildcard include/config/HAVE_ARCH_THREAD_STRUCT_WHITELIST) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/uaccess.h \
    $(wildcard include/config/ARCH_HAS_SUBPAGE_FAULTS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/fault-inject-usercopy.h \
    $(wildcard include/config/FAULT_INJECTION_USERCOPY) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/uaccess.h \
    $(wildcard include/config/CC_HAS_ASM_GOTO_OUTPUT) \
    $(wildcard include/config/CC_HAS_ASM_GOTO_TIED_OUTPUT) \
    $(wildcard include/config/ARCH_HAS_COPY_MC) \
    $(wildcard include/config/X86_INTEL_USERCOPY) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/smap.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/extable.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/access_ok.h \
    $(wildcard include/config/ALTERNATE_USER_ADDRESS_SPACE) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/uaccess_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/cred.h \
    $(wildcard include/config/DEBUG_CREDENTIALS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/key.h \
    $(wildcard include/config/KEY_NOTIFICATIONS) \
    $(wildcard include/config/NET) \
    $(wildcard include/config/SYSCTL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sysctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/sysctl.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/assoc_array.h \
    $(wildcard include/config/ASSOCIATIVE_ARRAY) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/user.h \
    $(wildcard include/config/VFIO_PCI_ZDEV_KVM) \
    $(wildcard include/config/IOMMUFD) \
    $(wildcard include/config/SECRETMEM) \
    $(wildcard include/config/WATCH_QUEUE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/percpu_counter.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ratelimit.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rcu_sync.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/delayed_call.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/uuid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/uuid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/errseq.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ioprio.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/rt.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/iocontext.h \
    $(wildcard include/config/BLK_ICQ) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/ioprio.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/fs_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mount.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mnt_idmapping.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/slab.h \
    $(wildcard include/config/DEBUG_SLAB) \
    $(wildcard include/config/FAILSLAB) \
    $(wildcard include/config/KFENCE) \
    $(wildcard include/config/SLAB) \
    $(wildcard include/config/SLUB) \
    $(wildcard include/config/SLOB) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/percpu-refcount.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kasan.h \
    $(wildcard include/config/KASAN_STACK) \
    $(wildcard include/config/KASAN_VMALLOC) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kasan-enabled.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/fs.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/quota.h \
    $(wildcard include/config/QUOTA_NETLINK_INTERFACE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/dqblk_xfs.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dqblk_v1.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dqblk_v2.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dqblk_qtree.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/projid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/quota.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/nfs_fs_i.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/seq_file.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/string_helpers.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ctype.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/idr.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/io.h \
    $(wildcard include/config/HAS_IOPORT_MAP) \
    $(wildcard include/config/PCI) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/io.h \
    $(wildcard include/config/MTRR) \
    $(wildcard include/config/X86_PAT) \
  arch/x86/include/generated/asm/early_ioremap.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/early_ioremap.h \
    $(wildcard include/config/GENERIC_EARLY_IOREMAP) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/shared/io.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/iomap.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/pci_iomap.h \
    $(wildcard include/config/NO_GENERIC_PCI_IOPORT_MAP) \
    $(wildcard include/config/GENERIC_PCI_IOMAP) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/io.h \
    $(wildcard include/config/GENERIC_IOMAP) \
    $(wildcard include/config/TRACE_MMIO_ACCESS) \
    $(wildcard include/config/GENERIC_IOREMAP) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/logic_pio.h \
    $(wildcard include/config/INDIRECT_PIO) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/fwnode.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/vmalloc.h \
    $(wildcard include/config/HAVE_ARCH_HUGE_VMALLOC) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/vmalloc.h \
    $(wildcard include/config/HAVE_ARCH_HUGE_VMAP) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable_areas.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable_32_areas.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/cpu_entry_area.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/intel_ds.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/miscdevice.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/major.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/device.h \
    $(wildcard include/config/GENERIC_MSI_IRQ_DOMAIN) \
    $(wildcard include/config/GENERIC_MSI_IRQ) \
    $(wildcard include/config/ENERGY_MODEL) \
    $(wildcard include/config/PINCTRL) \
    $(wildcard include/config/DMA_OPS) \
    $(wildcard include/config/DMA_DECLARE_COHERENT) \
    $(wildcard include/config/DMA_CMA) \
    $(wildcard include/config/SWIOTLB) \
    $(wildcard include/config/ARCH_HAS_SYNC_DMA_FOR_DEVICE) \
    $(wildcard include/config/ARCH_HAS_SYNC_DMA_FOR_CPU) \
    $(wildcard include/config/ARCH_HAS_SYNC_DMA_FOR_CPU_ALL) \
    $(wildcard include/config/DMA_OPS_BYPASS) \
    $(wildcard include/config/PM) \
    $(wildcard include/config/OF) \
    $(wildcard include/config/DEVTMPFS) \
    $(wildcard include/config/SYSFS_DEPRECATED) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dev_printk.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/energy_model.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kobject.h \
    $(wildcard include/config/UEVENT_HELPER) \
    $(wildcard include/config/DEBUG_KOBJECT_RELEASE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sysfs.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kernfs.h \
    $(wildcard include/config/KERNFS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kobject_ns.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/cpufreq.h \
    $(wildcard include/config/CPU_FREQ) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/topology.h \
    $(wildcard include/config/SCHED_DEBUG) \
    $(wildcard include/config/SCHED_CLUSTER) \
    $(wildcard include/config/SCHED_MC) \
    $(wildcard include/config/CPU_FREQ_GOV_SCHEDUTIL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/idle.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/sd_flags.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ioport.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/klist.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pm.h \
    $(wildcard include/config/VT_CONSOLE_SLEEP) \
    $(wildcard include/config/CXL_SUSPEND) \
    $(wildcard include/config/PM_CLK) \
    $(wildcard include/config/PM_GENERIC_DOMAINS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/device/bus.h \
    $(wildcard include/config/ACPI) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/device/class.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/device/driver.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/module.h \
    $(wildcard include/config/MODULES_TREE_LOOKUP) \
    $(wildcard include/config/STACKTRACE_BUILD_ID) \
    $(wildcard include/config/ARCH_USES_CFI_TRAPS) \
    $(wildcard include/config/MODULE_SIG) \
    $(wildcard include/config/ARCH_WANTS_MODULES_DATA_IN_VMALLOC) \
    $(wildcard include/config/KALLSYMS) \
    $(wildcard include/config/BPF_EVENTS) \
    $(wildcard include/config/EVENT_TRACING) \
    $(wildcard include/config/MODULE_UNLOAD) \
    $(wildcard include/config/CONSTRUCTORS) \
    $(wildcard include/config/FUNCTION_ERROR_INJECTION) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/buildid.h \
    $(wildcard include/config/CRASH_CORE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/kmod.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/umh.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/elf.h \
    $(wildcard include/config/ARCH_USE_GNU_PROPERTY) \
    $(wildcard include/config/ARCH_HAVE_ELF_PROT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/elf.h \
    $(wildcard include/config/X86_X32_ABI) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/user.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/user_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/fsgsbase.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/syscall.h \
    $(wildcard include/config/X86_X32_DISABLED) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/audit.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/elf-em.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/unistd.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/unistd.h \
  arch/x86/include/generated/uapi/asm/unistd_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/vdso.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/desc.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/fixmap.h \
    $(wildcard include/config/DEBUG_KMAP_LOCAL_FORCE_MAP) \
    $(wildcard include/config/X86_VSYSCALL_EMULATION) \
    $(wildcard include/config/PROVIDE_OHCI1394_DMA_INIT) \
    $(wildcard include/config/X86_IO_APIC) \
    $(wildcard include/config/PCI_MMCONFIG) \
    $(wildcard include/config/ACPI_APEI_GHES) \
    $(wildcard include/config/INTEL_TXT) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/apicdef.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/fixmap.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/irq_vectors.h \
    $(wildcard include/config/HAVE_KVM) \
    $(wildcard include/config/HYPERV) \
    $(wildcard include/config/PCI_MSI) \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/elf.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/moduleparam.h \
    $(wildcard include/config/ALPHA) \
    $(wildcard include/config/IA64) \
    $(wildcard include/config/PPC64) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/rbtree_latch.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/error-injection.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/error-injection.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/module.h \
    $(wildcard include/config/UNWINDER_ORC) \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/module.h \
    $(wildcard include/config/HAVE_MOD_ARCH_SPECIFIC) \
    $(wildcard include/config/MODULES_USE_ELF_REL) \
    $(wildcard include/config/MODULES_USE_ELF_RELA) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/orc_types.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/device.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pm_wakeup.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pci.h \
    $(wildcard include/config/PCI_IOV) \
    $(wildcard include/config/PCIEAER) \
    $(wildcard include/config/PCIEPORTBUS) \
    $(wildcard include/config/PCIEASPM) \
    $(wildcard include/config/HOTPLUG_PCI_PCIE) \
    $(wildcard include/config/PCIE_PTM) \
    $(wildcard include/config/PCIE_DPC) \
    $(wildcard include/config/PCI_ATS) \
    $(wildcard include/config/PCI_PRI) \
    $(wildcard include/config/PCI_PASID) \
    $(wildcard include/config/PCI_P2PDMA) \
    $(wildcard include/config/PCI_DOMAINS_GENERIC) \
    $(wildcard include/config/PCI_DOMAINS) \
    $(wildcard include/config/PCI_QUIRKS) \
    $(wildcard include/config/ACPI_MCFG) \
    $(wildcard include/config/HOTPLUG_PCI) \
    $(wildcard include/config/X86) \
    $(wildcard include/config/EEH) \
    $(wildcard include/config/S390) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mod_devicetable.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/interrupt.h \
    $(wildcard include/config/IRQ_FORCED_THREADING) \
    $(wildcard include/config/GENERIC_IRQ_PROBE) \
    $(wildcard include/config/IRQ_TIMINGS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/irqreturn.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/hardirq.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/context_tracking_state.h \
    $(wildcard include/config/CONTEXT_TRACKING_USER) \
    $(wildcard include/config/CONTEXT_TRACKING) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/ftrace_irq.h \
    $(wildcard include/config/HWLAT_TRACER) \
    $(wildcard include/config/OSNOISE_TRACER) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/vtime.h \
    $(wildcard include/config/VIRT_CPU_ACCOUNTING) \
    $(wildcard include/config/IRQ_TIME_ACCOUNTING) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/hardirq.h \
    $(wildcard include/config/KVM_INTEL) \
    $(wildcard include/config/X86_THERMAL_VECTOR) \
    $(wildcard include/config/X86_MCE_THRESHOLD) \
    $(wildcard include/config/X86_MCE_AMD) \
    $(wildcard include/config/X86_HV_CALLBACK_VECTOR) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/irq.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/sections.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/sections.h \
    $(wildcard include/config/HAVE_FUNCTION_DESCRIPTORS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/resource_ext.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/pci.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/pci_regs.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pci_ids.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dmapool.h \
    $(wildcard include/config/HAS_DMA) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/scatterlist.h \
    $(wildcard include/config/NEED_SG_DMA_LENGTH) \
    $(wildcard include/config/DEBUG_SG) \
    $(wildcard include/config/SGL_ALLOC) \
    $(wildcard include/config/ARCH_NO_SG_CHAIN) \
    $(wildcard include/config/SG_POOL) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mm.h \
    $(wildcard include/config/HAVE_ARCH_MMAP_RND_BITS) \
    $(wildcard include/config/HAVE_ARCH_MMAP_RND_COMPAT_BITS) \
    $(wildcard include/config/ARCH_USES_HIGH_VMA_FLAGS) \
    $(wildcard include/config/ARCH_HAS_PKEYS) \
    $(wildcard include/config/PPC) \
    $(wildcard include/config/PARISC) \
    $(wildcard include/config/SPARC64) \
    $(wildcard include/config/ARM64) \
    $(wildcard include/config/ARM64_MTE) \
    $(wildcard include/config/HAVE_ARCH_USERFAULTFD_MINOR) \
    $(wildcard include/config/SHMEM) \
    $(wildcard include/config/MIGRATION) \
    $(wildcard include/config/ARCH_HAS_PTE_SPECIAL) \
    $(wildcard include/config/ARCH_HAS_PTE_DEVMAP) \
    $(wildcard include/config/DEBUG_VM_RB) \
    $(wildcard include/config/HAVE_FAST_GUP) \
    $(wildcard include/config/PAGE_POISONING) \
    $(wildcard include/config/INIT_ON_ALLOC_DEFAULT_ON) \
    $(wildcard include/config/INIT_ON_FREE_DEFAULT_ON) \
    $(wildcard include/config/DEBUG_PAGEALLOC) \
    $(wildcard include/config/ARCH_WANT_HUGETLB_PAGE_OPTIMIZE_VMEMMAP) \
    $(wildcard include/config/HUGETLBFS) \
    $(wildcard include/config/MAPPING_DIRTY_HELPERS) \
    $(wildcard include/config/ANON_VMA_NAME) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/mmap_lock.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/page_ext.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/stackdepot.h \
    $(wildcard include/config/STACKDEPOT) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/page_ref.h \
    $(wildcard include/config/DEBUG_PAGE_REF) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sizes.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/pgtable.h \
    $(wildcard include/config/HIGHPTE) \
    $(wildcard include/config/ARCH_HAS_NONLEAF_PMD_YOUNG) \
    $(wildcard include/config/GUP_GET_PTE_LOW_HIGH) \
    $(wildcard include/config/HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD) \
    $(wildcard include/config/HAVE_ARCH_SOFT_DIRTY) \
    $(wildcard include/config/ARCH_ENABLE_THP_MIGRATION) \
    $(wildcard include/config/X86_ESPFIX64) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable.h \
    $(wildcard include/config/DEBUG_WX) \
    $(wildcard include/config/PAGE_TABLE_CHECK) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/x86_init.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/bootparam.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/screen_info.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/screen_info.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/apm_bios.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/apm_bios.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/edd.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/linux/edd.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/ist.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/uapi/asm/ist.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/video/edid.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/uapi/video/edid.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pkru.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/fpu/api.h \
    $(wildcard include/config/X86_DEBUG_FPU) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/coco.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/asm-generic/pgtable_uffd.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/page_table_check.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable_32.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable-3level.h \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pgtable-invert.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/memremap.h \
    $(wildcard include/config/DEVICE_PRIVATE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/huge_mm.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/sched/coredump.h \
    $(wildcard include/config/CORE_DUMP_DEFAULT_ELF_HEADERS) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/vmstat.h \
    $(wildcard include/config/VM_EVENT_COUNTERS) \
    $(wildcard include/config/DEBUG_TLBFLUSH) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/vm_event_item.h \
    $(wildcard include/config/MEMORY_BALLOON) \
    $(wildcard include/config/BALLOON_COMPACTION) \
    $(wildcard include/config/ZSWAP) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/pci.h \
    $(wildcard include/config/PCI_MSI_IRQ_DOMAIN) \
    $(wildcard include/config/VMD) \
  /root/.cache/pvmap/linux-6.1.192-3/arch/x86/include/asm/memtype.h \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dma-mapping.h \
    $(wildcard include/config/DMA_API_DEBUG) \
    $(wildcard include/config/NEED_DMA_MAP_STATE) \
  /root/.cache/pvmap/linux-6.1.192-3/include/linux/dma-direction.h \
  /work/main/guest/../include/uapi/pvmap.h \

/work/main/guest/pvmap_pci.o: $(deps_/work/main/guest/pvmap_pci.o)

$(deps_/work/main/guest/pvmap_pci.o):
