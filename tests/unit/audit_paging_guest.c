// SPDX-License-Identifier: GPL-2.0
/*
 * A guest for tests/unit/test_audit.py's audit_real_qemu_paging: a 32-bit
 * multiboot kernel (qemu-system-x86_64 -kernel, -append MODE) that builds
 * page tables in the paging mode its command line names (2level, pae,
 * 4level, 5level), with 4 KiB, 2 MiB, 4 MiB and 1 GiB pages of the test's
 * apertures, user and kernel, turns paging on and halts: so that
 * pvmap-audit reads what QEMU itself prints in `info tlb`, not a model of
 * it. "xenpat" (audit_pat_bit) is 4-level paging under Xen's PAT table,
 * with mappings that select its entries through PWT, PCD and the PAT bit.
 * The first 4 MiB are identity-mapped: this code runs on after paging is
 * on (in compatibility mode under 4- and 5-level paging).
 */
#include <stdint.h>

#define PG_P	0x1ULL
#define PG_W	0x2ULL
#define PG_U	0x4ULL
#define PG_PWT	0x8ULL
#define PG_PCD	0x10ULL
#define PG_A	0x20ULL
#define PG_D	0x40ULL
#define PG_PS	0x80ULL
#define PG_G	0x100ULL
#define PG_PAT	0x80ULL		/* in a 4 KiB entry */
#define PG_PAT_LARGE 0x1000ULL	/* in a 2 MiB or 1 GiB one */
#define PG_NX	(1ULL << 63)

/*
 * Xen's PAT (XEN_MSR_PAT, xen/arch/x86/include/asm/processor.h, "an ABI
 * with PV guests"): WB WT UC- UC WC WP UC UC. WC is entry 4: the PAT bit
 * alone, which is how a Xen PV guest's WC mapping looks.
 */
#define XEN_MSR_PAT	0x0000050100070406ULL

#define KERN	(PG_P | PG_W | PG_A | PG_D | PG_G)
#define USER	(PG_P | PG_W | PG_A | PG_D | PG_U)

#define KiB	(1ULL << 10)
#define MiB	(1ULL << 20)
#define GiB	(1ULL << 30)

__asm__(".section .text\n"
	".align 4\n"
	"multiboot_header:\n"
	".long 0x1badb002\n"		/* magic */
	".long 0\n"			/* flags: an ELF, loaded as its headers say */
	".long -0x1badb002\n"		/* checksum */
	".globl _start\n"
	"_start:\n"
	"cli\n"
	"mov $stack_top, %esp\n"
	"push %ebx\n"			/* the multiboot information */
	"call guest_main\n"
	"1: hlt\n"
	"jmp 1b\n");

static uint8_t stack[16384] __attribute__((aligned(16), used));
__asm__(".globl stack_top\n.set stack_top, stack + 16384\n");

static uint64_t pool[48][512] __attribute__((aligned(4096)));
static uint64_t pdpt_pae[4] __attribute__((aligned(32)));
static int used;

static uint64_t *new_table(void)
{
	return pool[used++];
}

static uint64_t *table_at(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & 0xfffff000ULL);
}

/* A leaf of 1 << @leaf at @va in 64-bit-entry tables from @root (@top: its shift). */
static void map64(uint64_t *root, int top, uint64_t va, uint64_t pa, int leaf, uint64_t flags)
{
	uint64_t *t = root;

	for (int shift = top; ; shift -= 9) {
		int idx = (int)((va >> shift) & (shift == 30 && top == 30 ? 3 : 511));

		if (shift == leaf) {
			t[idx] = pa | flags | (leaf > 12 ? PG_PS : 0);
			return;
		}
		if (!(t[idx] & PG_P))
			/* PAE's PDPTEs: present only; elsewhere what Linux's user tables allow */
			t[idx] = (uint32_t)(uintptr_t)new_table() |
				 (top == 30 && shift == 30 ? PG_P : PG_P | PG_W | PG_U | PG_A);
		t = table_at(t[idx]);
	}
}

static void map_2level(uint32_t *pd, uint64_t va, uint64_t pa, int leaf, uint32_t flags)
{
	uint32_t idx = (uint32_t)(va >> 22);

	if (leaf == 22) {	/* PSE-36: address bits 32-39 in 13-20 */
		pd[idx] = (uint32_t)(pa & 0xffc00000) | (uint32_t)((pa >> 32) & 0xff) << 13 |
			  flags | (uint32_t)PG_PS;
		return;
	}
	if (!(pd[idx] & PG_P))
		pd[idx] = (uint32_t)(uintptr_t)new_table() | (uint32_t)(PG_P | PG_W | PG_U | PG_A);
	((uint32_t *)(uintptr_t)(pd[idx] & 0xfffff000))[(va >> 12) & 1023] = (uint32_t)pa | flags;
}

static int has(const char *s, const char *word)
{
	for (; s && *s; s++) {
		int i = 0;

		while (word[i] && s[i] == word[i])
			i++;
		if (!word[i])
			return 1;
	}
	return 0;
}

static void wrmsr_efer(uint32_t set)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0xc0000080));
	lo |= set;
	__asm__ volatile("wrmsr" : : "a"(lo), "d"(hi), "c"(0xc0000080));
}

static void wrmsr_pat(uint64_t pat)
{
	__asm__ volatile("wrmsr" : : "a"((uint32_t)pat), "d"((uint32_t)(pat >> 32)), "c"(0x277));
}

static void paging_on(uint32_t cr3, uint32_t cr4)
{
	uint32_t cr0;

	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4));
	__asm__ volatile("mov %0, %%cr3" : : "r"(cr3));
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	cr0 |= 0x80010000;	/* PG, WP */
	__asm__ volatile("mov %0, %%cr0" : : "r"(cr0) : "memory");
}

void guest_main(const uint32_t *mbi);

void guest_main(const uint32_t *mbi)
{
	const char *cmdline = (mbi[0] & 4) ? (const char *)(uintptr_t)mbi[4] : "";

	if (has(cmdline, "2level")) {
		uint32_t *pd = (uint32_t *)new_table();

		map_2level(pd, 0, 0, 22, (uint32_t)KERN);		/* identity: this code */
		for (uint64_t k = 0; k < 8; k++)	/* VMSPLIT_2G's direct map */
			map_2level(pd, 0x80000000 + k * 4 * MiB, k * 4 * MiB, 22, (uint32_t)KERN);
		map_2level(pd, 0xa0000000, 0xd0000000, 22, (uint32_t)KERN);
		map_2level(pd, 0xa0400000, 0x1e0000000ULL, 22, (uint32_t)KERN);
		map_2level(pd, 0x90000000, 0xe0000000, 12, (uint32_t)(KERN | PG_PCD));
		map_2level(pd, 0x40000000, 0xe0001000, 12, (uint32_t)USER);
		map_2level(pd, 0x50000000, 0xe0c00000, 22, (uint32_t)USER);
		paging_on((uint32_t)(uintptr_t)pd, 0x10);	/* PSE */
	} else if (has(cmdline, "pae")) {
		map64(pdpt_pae, 30, 0, 0, 21, KERN);
		map64(pdpt_pae, 30, 2 * MiB, 2 * MiB, 21, KERN);
		map64(pdpt_pae, 30, 0xf8000000, 0xd0000000, 21, KERN | PG_NX);
		map64(pdpt_pae, 30, 0xb8000000, 0xe0000000, 12, KERN | PG_PCD | PG_NX);
		map64(pdpt_pae, 30, 0xa0000000, 0xe0001000, 12, USER);
		map64(pdpt_pae, 30, 0x60000000, 0xe0200000, 21, USER);
		wrmsr_efer(1u << 11);				/* NXE */
		paging_on((uint32_t)(uintptr_t)pdpt_pae, 0x20);	/* PAE */
	} else if (has(cmdline, "xenpat")) {
		uint64_t *root = new_table();

		wrmsr_pat(XEN_MSR_PAT);
		map64(root, 39, 0, 0, 21, KERN);
		map64(root, 39, 2 * MiB, 2 * MiB, 21, KERN);
		/* under Xen's table: WC (the PAT bit alone), WT, WB; WC and UC, 2 MiB */
		map64(root, 39, 0xffffc90000400000ULL, 0x800000000ULL, 12, KERN | PG_PAT);
		map64(root, 39, 0xffffc90000401000ULL, 0x800001000ULL, 12, KERN | PG_PWT);
		map64(root, 39, 0xffffc90000402000ULL, 0x800002000ULL, 12, KERN);
		map64(root, 39, 0xffffc90000600000ULL, 0x800200000ULL, 21, KERN | PG_PAT_LARGE);
		map64(root, 39, 0xffffc90000800000ULL, 0x800400000ULL, 21,
		      KERN | PG_PWT | PG_PCD);
		wrmsr_efer(1u << 8 | 1u << 11);			/* LME, NXE */
		paging_on((uint32_t)(uintptr_t)root, 0x20);
	} else if (has(cmdline, "4level") || has(cmdline, "5level")) {
		int la57 = has(cmdline, "5level"), top = la57 ? 48 : 39;
		uint64_t *root = new_table();

		map64(root, top, 0, 0, 21, KERN);
		map64(root, top, 2 * MiB, 2 * MiB, 21, KERN);
		if (!la57) {
			map64(root, top, 0xffff888100000000ULL, 0x100000000ULL, 30, KERN | PG_NX);
			map64(root, top, 0xffffc90040000000ULL, 0x140000000ULL, 21, KERN | PG_NX);
			map64(root, top, 0xffffc90040200000ULL, 0x1000, 12, KERN | PG_NX);
			map64(root, top, 0xffffc90080000000ULL, 0x180000000ULL, 21, KERN | PG_NX);
			map64(root, top, 0x400000, 0x800001000ULL, 12, KERN & ~PG_G);
			map64(root, top, 0x00007f0000000000ULL, 0x800000000ULL, 12, USER);
			map64(root, top, 0x00007f0000200000ULL, 0x800200000ULL, 21, USER);
		} else {
			map64(root, top, 0xffa0000000400000ULL, 0x800000000ULL, 12, KERN | PG_PCD);
			map64(root, top, 0xff11000100000000ULL, 0x100000000ULL, 30, KERN | PG_NX);
			map64(root, top, 0xff20000000000000ULL, 0x800002000ULL, 12, USER);
			map64(root, top, 0x00ff000000000000ULL, 0x800001000ULL, 12, USER);
		}
		wrmsr_efer(1u << 8 | 1u << 11);			/* LME, NXE */
		paging_on((uint32_t)(uintptr_t)root, 0x20 | (la57 ? 0x1000 : 0));
	}
}
