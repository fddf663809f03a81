// SPDX-License-Identifier: GPL-2.0
/*
 * Where pvmap-audit may read page tables: guest RAM as QEMU 7.2's `info mtree`
 * and `info pci` describe it (every BAR left out). test_audit.c prints the
 * results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "test_audit.h"

/* --- guest RAM: info pci's BARs, info mtree ------------------------------------------ */

/*
 * QEMU 7.2, running SeaBIOS: -M pc,memory-backend=pvram -m 64M, an
 * ivshmem-plain (memdev pvshm, 1 MiB), the default VGA and e1000
 */
static const char real_pci[] =
	"  Bus  0, device   0, function 0:\r\n"
	"    Host bridge: PCI device 8086:1237\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   1, function 0:\r\n"
	"    ISA bridge: PCI device 8086:7000\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   1, function 1:\r\n"
	"    IDE controller: PCI device 8086:7010\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      BAR4: I/O at 0xc040 [0xc04f].\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   1, function 3:\r\n"
	"    Bridge: PCI device 8086:7113\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      IRQ 9, pin A\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   2, function 0:\r\n"
	"    VGA controller: PCI device 1234:1111\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      BAR0: 32 bit prefetchable memory at 0xfd000000 [0xfdffffff].\r\n"
	"      BAR2: 32 bit memory at 0xfebf0000 [0xfebf0fff].\r\n"
	"      BAR6: 32 bit memory at 0xffffffffffffffff [0x0000fffe].\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   3, function 0:\r\n"
	"    Ethernet controller: PCI device 8086:100e\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      IRQ 11, pin A\r\n"
	"      BAR0: 32 bit memory at 0xfebc0000 [0xfebdffff].\r\n"
	"      BAR1: I/O at 0xc000 [0xc03f].\r\n"
	"      BAR6: 32 bit memory at 0xffffffffffffffff [0x0003fffe].\r\n"
	"      id \"\"\r\n"
	"  Bus  0, device   4, function 0:\r\n"
	"    RAM controller: PCI device 1af4:1110\r\n"
	"      PCI subsystem 1af4:1100\r\n"
	"      BAR0: 32 bit memory at 0xfebf1000 [0xfebf10ff].\r\n"
	"      BAR2: 64 bit prefetchable memory at 0xfe000000 [0xfe0fffff].\r\n"
	"      id \"\"\r\n";

/* `info mtree` of the same machine, verbatim but for the I/O address space's lines (a few) */
static const char real_mtree[] =
	"address-space: e1000\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"    0000000000000000-ffffffffffffffff (prio 0, i/o): alias bus master @system 0000000000000000-ffffffffffffffff\r\n"
	"\r\n"
	"address-space: piix3-ide\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"address-space: VGA\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"address-space: I/O\r\n"
	"  0000000000000000-000000000000ffff (prio 0, i/o): io\r\n"
	"    0000000000000000-0000000000000007 (prio 0, i/o): dma-chan\r\n"
	"    0000000000000008-000000000000000f (prio 0, i/o): dma-cont\r\n"
	"    0000000000000600-000000000000063f (prio 0, i/o): piix4-pm\r\n"
	"      0000000000000600-0000000000000603 (prio 0, i/o): acpi-evt\r\n"
	"      0000000000000604-0000000000000605 (prio 0, i/o): acpi-cnt\r\n"
	"      0000000000000608-000000000000060b (prio 0, i/o): acpi-tmr\r\n"
	"\r\n"
	"address-space: cpu-smm-0\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): memory\r\n"
	"    0000000000000000-00000000ffffffff (prio 1, i/o): alias smram @smram 0000000000000000-00000000ffffffff\r\n"
	"    0000000000000000-ffffffffffffffff (prio 0, i/o): alias memory @system 0000000000000000-ffffffffffffffff\r\n"
	"\r\n"
	"address-space: PIIX3\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"address-space: PIIX4_PM\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"address-space: cpu-memory-0\r\n"
	"address-space: memory\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): system\r\n"
	"    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram 0000000000000000-0000000003ffffff\r\n"
	"    0000000000000000-ffffffffffffffff (prio -1, i/o): pci\r\n"
	"      00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\r\n"
	"      00000000000c0000-00000000000dffff (prio 1, rom): pc.rom\r\n"
	"      00000000000e0000-00000000000fffff (prio 1, rom): alias isa-bios @pc.bios 0000000000020000-000000000003ffff\r\n"
	"      00000000fd000000-00000000fdffffff (prio 1, ram): vga.vram\r\n"
	"      00000000fe000000-00000000fe0fffff (prio 1, ram): pvshm\r\n"
	"      00000000febc0000-00000000febdffff (prio 1, i/o): e1000-mmio\r\n"
	"      00000000febf0000-00000000febf0fff (prio 1, i/o): vga.mmio\r\n"
	"        00000000febf0000-00000000febf017f (prio 0, i/o): edid\r\n"
	"        00000000febf0400-00000000febf041f (prio 0, i/o): vga ioports remapped\r\n"
	"        00000000febf0500-00000000febf0515 (prio 0, i/o): bochs dispi interface\r\n"
	"        00000000febf0600-00000000febf0607 (prio 0, i/o): qemu extended regs\r\n"
	"      00000000febf1000-00000000febf10ff (prio 1, i/o): ivshmem-mmio\r\n"
	"      00000000fffc0000-00000000ffffffff (prio 0, rom): pc.bios\r\n"
	"    00000000000a0000-00000000000bffff (prio 1, i/o): alias smram-region @pci 00000000000a0000-00000000000bffff\r\n"
	"    00000000000c0000-00000000000c3fff (prio 1, ram): alias pam-rom @pvram 00000000000c0000-00000000000c3fff\r\n"
	"    00000000000c4000-00000000000c7fff (prio 1, ram): alias pam-rom @pvram 00000000000c4000-00000000000c7fff\r\n"
	"    00000000000c8000-00000000000cbfff (prio 1, ram): alias pam-rom @pvram 00000000000c8000-00000000000cbfff\r\n"
	"    00000000000cb000-00000000000cdfff (prio 1000, ram): alias kvmvapic-rom @pvram 00000000000cb000-00000000000cdfff\r\n"
	"    00000000000cc000-00000000000cffff (prio 1, ram): alias pam-rom @pvram 00000000000cc000-00000000000cffff\r\n"
	"    00000000000d0000-00000000000d3fff (prio 1, ram): alias pam-rom @pvram 00000000000d0000-00000000000d3fff\r\n"
	"    00000000000d4000-00000000000d7fff (prio 1, ram): alias pam-rom @pvram 00000000000d4000-00000000000d7fff\r\n"
	"    00000000000d8000-00000000000dbfff (prio 1, ram): alias pam-rom @pvram 00000000000d8000-00000000000dbfff\r\n"
	"    00000000000dc000-00000000000dffff (prio 1, ram): alias pam-rom @pvram 00000000000dc000-00000000000dffff\r\n"
	"    00000000000e0000-00000000000e3fff (prio 1, ram): alias pam-rom @pvram 00000000000e0000-00000000000e3fff\r\n"
	"    00000000000e4000-00000000000e7fff (prio 1, ram): alias pam-rom @pvram 00000000000e4000-00000000000e7fff\r\n"
	"    00000000000e8000-00000000000ebfff (prio 1, ram): alias pam-ram @pvram 00000000000e8000-00000000000ebfff\r\n"
	"    00000000000ec000-00000000000effff (prio 1, ram): alias pam-ram @pvram 00000000000ec000-00000000000effff\r\n"
	"    00000000000f0000-00000000000fffff (prio 1, ram): alias pam-rom @pvram 00000000000f0000-00000000000fffff\r\n"
	"    00000000fec00000-00000000fec00fff (prio 0, i/o): ioapic\r\n"
	"    00000000fed00000-00000000fed003ff (prio 0, i/o): hpet\r\n"
	"    00000000fee00000-00000000feefffff (prio 4096, i/o): apic-msi\r\n"
	"\r\n"
	"address-space: i440FX\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"address-space: ivshmem-plain\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): bus master container\r\n"
	"\r\n"
	"memory-region: system\r\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): system\r\n"
	"    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram 0000000000000000-0000000003ffffff\r\n"
	"    0000000000000000-ffffffffffffffff (prio -1, i/o): pci\r\n"
	"      00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\r\n"
	"      00000000000c0000-00000000000dffff (prio 1, rom): pc.rom\r\n"
	"      00000000000e0000-00000000000fffff (prio 1, rom): alias isa-bios @pc.bios 0000000000020000-000000000003ffff\r\n"
	"      00000000fd000000-00000000fdffffff (prio 1, ram): vga.vram\r\n"
	"      00000000fe000000-00000000fe0fffff (prio 1, ram): pvshm\r\n"
	"      00000000febc0000-00000000febdffff (prio 1, i/o): e1000-mmio\r\n"
	"      00000000febf0000-00000000febf0fff (prio 1, i/o): vga.mmio\r\n"
	"        00000000febf0000-00000000febf017f (prio 0, i/o): edid\r\n"
	"        00000000febf0400-00000000febf041f (prio 0, i/o): vga ioports remapped\r\n"
	"        00000000febf0500-00000000febf0515 (prio 0, i/o): bochs dispi interface\r\n"
	"        00000000febf0600-00000000febf0607 (prio 0, i/o): qemu extended regs\r\n"
	"      00000000febf1000-00000000febf10ff (prio 1, i/o): ivshmem-mmio\r\n"
	"      00000000fffc0000-00000000ffffffff (prio 0, rom): pc.bios\r\n"
	"    00000000000a0000-00000000000bffff (prio 1, i/o): alias smram-region @pci 00000000000a0000-00000000000bffff\r\n"
	"    00000000000c0000-00000000000c3fff (prio 1, ram): alias pam-rom @pvram 00000000000c0000-00000000000c3fff\r\n"
	"    00000000000c4000-00000000000c7fff (prio 1, ram): alias pam-rom @pvram 00000000000c4000-00000000000c7fff\r\n"
	"    00000000000c8000-00000000000cbfff (prio 1, ram): alias pam-rom @pvram 00000000000c8000-00000000000cbfff\r\n"
	"    00000000000cb000-00000000000cdfff (prio 1000, ram): alias kvmvapic-rom @pvram 00000000000cb000-00000000000cdfff\r\n"
	"    00000000000cc000-00000000000cffff (prio 1, ram): alias pam-rom @pvram 00000000000cc000-00000000000cffff\r\n"
	"    00000000000d0000-00000000000d3fff (prio 1, ram): alias pam-rom @pvram 00000000000d0000-00000000000d3fff\r\n"
	"    00000000000d4000-00000000000d7fff (prio 1, ram): alias pam-rom @pvram 00000000000d4000-00000000000d7fff\r\n"
	"    00000000000d8000-00000000000dbfff (prio 1, ram): alias pam-rom @pvram 00000000000d8000-00000000000dbfff\r\n"
	"    00000000000dc000-00000000000dffff (prio 1, ram): alias pam-rom @pvram 00000000000dc000-00000000000dffff\r\n"
	"    00000000000e0000-00000000000e3fff (prio 1, ram): alias pam-rom @pvram 00000000000e0000-00000000000e3fff\r\n"
	"    00000000000e4000-00000000000e7fff (prio 1, ram): alias pam-rom @pvram 00000000000e4000-00000000000e7fff\r\n"
	"    00000000000e8000-00000000000ebfff (prio 1, ram): alias pam-ram @pvram 00000000000e8000-00000000000ebfff\r\n"
	"    00000000000ec000-00000000000effff (prio 1, ram): alias pam-ram @pvram 00000000000ec000-00000000000effff\r\n"
	"    00000000000f0000-00000000000fffff (prio 1, ram): alias pam-rom @pvram 00000000000f0000-00000000000fffff\r\n"
	"    00000000fec00000-00000000fec00fff (prio 0, i/o): ioapic\r\n"
	"    00000000fed00000-00000000fed003ff (prio 0, i/o): hpet\r\n"
	"    00000000fee00000-00000000feefffff (prio 4096, i/o): apic-msi\r\n"
	"\r\n"
	"memory-region: smram\r\n"
	"  0000000000000000-00000000ffffffff (prio 0, i/o): smram\r\n"
	"    00000000000a0000-00000000000bffff (prio 0, ram): alias smram-low @pvram 00000000000a0000-00000000000bffff\r\n"
	"\r\n"
	"memory-region: pvram\r\n"
	"  0000000000000000-0000000003ffffff (prio 0, ram): pvram\r\n"
	"\r\n"
	"memory-region: pc.bios\r\n"
	"  00000000fffc0000-00000000ffffffff (prio 0, rom): pc.bios\r\n"
	"\r\n"
	"memory-region: pci\r\n"
	"  0000000000000000-ffffffffffffffff (prio -1, i/o): pci\r\n"
	"    00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\r\n"
	"    00000000000c0000-00000000000dffff (prio 1, rom): pc.rom\r\n"
	"    00000000000e0000-00000000000fffff (prio 1, rom): alias isa-bios @pc.bios 0000000000020000-000000000003ffff\r\n"
	"    00000000fd000000-00000000fdffffff (prio 1, ram): vga.vram\r\n"
	"    00000000fe000000-00000000fe0fffff (prio 1, ram): pvshm\r\n"
	"    00000000febc0000-00000000febdffff (prio 1, i/o): e1000-mmio\r\n"
	"    00000000febf0000-00000000febf0fff (prio 1, i/o): vga.mmio\r\n"
	"      00000000febf0000-00000000febf017f (prio 0, i/o): edid\r\n"
	"      00000000febf0400-00000000febf041f (prio 0, i/o): vga ioports remapped\r\n"
	"      00000000febf0500-00000000febf0515 (prio 0, i/o): bochs dispi interface\r\n"
	"      00000000febf0600-00000000febf0607 (prio 0, i/o): qemu extended regs\r\n"
	"    00000000febf1000-00000000febf10ff (prio 1, i/o): ivshmem-mmio\r\n"
	"    00000000fffc0000-00000000ffffffff (prio 0, rom): pc.bios\r\n"
	"\r\n";

/* the tree of "memory", vCPU 0's too, its root; the RAM aliases; their target's tree */
#define MT_HEAD	"address-space: cpu-memory-0\r\naddress-space: memory\r\n" \
		"  0000000000000000-ffffffffffffffff (prio 0, i/o): system\r\n"
#define MT_BELOW "    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram " \
		 "0000000000000000-0000000003ffffff\r\n"
#define MT_ABOVE "    0000000100000000-000000013fffffff (prio 0, ram): alias ram-above-4g @pvram " \
		 "0000000004000000-0000000043ffffff\r\n"
#define MT_PVRAM(end) "\r\nmemory-region: pvram\r\n" \
		      "  0000000000000000-" end " (prio 0, ram): pvram\r\n"
#define MT_TAIL	MT_PVRAM("0000000003ffffff")

/* a tree of "memory" of @lines lines (AUDIT_MAX_TREE at most), its target's after it */
static char *long_mtree(size_t lines)
{
	static const char deep[] =
		"      00000000fe000000-00000000fe0fffff (prio 1, ram): pvshm\r\n";
	size_t head = strlen(MT_HEAD MT_BELOW), tail = strlen(MT_TAIL);
	char *text = malloc(head + (lines - 2) * strlen(deep) + tail + 1), *p = text;

	if (!text)
		return NULL;
	memcpy(p, MT_HEAD MT_BELOW, head);
	p += head;
	for (size_t i = 2; i < lines; i++, p += strlen(deep))
		memcpy(p, deep, strlen(deep));
	memcpy(p, MT_TAIL, tail + 1);
	return text;
}

void guest_ram_from_mtree(void)
{
	static const struct {
		const char *text;
		int rc;		/* RAM ranges, or -1 */
	} mtree[] = {
		/* RAM above 4 GiB: the target's rest */
		{ MT_HEAD MT_BELOW MT_ABOVE MT_PVRAM("0000000043ffffff"), 3 },
		/* mapped beside RAM at its priority (q35's MMCONFIG, placed by the guest) or above */
		{ MT_HEAD MT_BELOW
		  "    0000000002000000-0000000002ffffff (prio 0, i/o): pcie-mmcfg-mmio\r\n"
		  "    0000000003ff0000-0000000003ffffff (prio 1, i/o): lpc-rcrb-mmio\r\n" MT_TAIL, 3 },
		/* below it (the PCI address space, a BAR in it): hidden by RAM */
		{ MT_HEAD MT_BELOW
		  "    0000000000000000-ffffffffffffffff (prio -1, i/o): pci\r\n"
		  "      0000000002000000-0000000002ffffff (prio 1, ram): pvshm\r\n" MT_TAIL, 2 },
		/* a disabled region is not printed, the regions in it are, deeper by a level */
		{ MT_HEAD MT_BELOW
		  "        0000000002000000-0000000002ffffff (prio 5, i/o): acpi-evt\r\n" MT_TAIL, 2 },
		/* below the legacy window only, adjacent ranges merged; none outside it */
		{ MT_HEAD "    0000000000000000-000000000007ffff (prio 0, ram): alias ram-below-4g "
		  "@pvram 0000000000000000-000000000007ffff\r\n" MT_TAIL, 1 },
		{ MT_HEAD "    0000000000000000-00000000000fffff (prio 0, ram): alias ram-below-4g "
		  "@pvram 0000000000000000-00000000000fffff\r\n"
		  "    0000000000000000-000000000009ffff (prio 0, i/o): hole\r\n" MT_TAIL, -1 },
		/* refused: no machine RAM, or not where or as pc_memory_init() puts it */
		{ MT_HEAD MT_TAIL, -1 },
		{ MT_HEAD MT_ABOVE MT_PVRAM("0000000043ffffff"), -1 },
		{ MT_HEAD "  " MT_BELOW MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW MT_BELOW MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, rom): alias ram-below-4g @pvram "
		  "0000000000000000-0000000003ffffff\r\n" MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, nv-ram): alias ram-below-4g "
		  "@pvram 0000000000000000-0000000003ffffff\r\n" MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram "
		  "0000000000000000-0000000003fffffe\r\n" MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram "
		  "0000000000001000-0000000004000fff\r\n" MT_PVRAM("0000000043ffffff"), -1 },
		{ MT_HEAD "    0000000000100000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pvram "
		  "0000000000000000-0000000003efffff\r\n" MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-00000001ffffffff (prio 0, ram): alias ram-below-4g @pvram "
		  "0000000000000000-00000001ffffffff\r\n" MT_PVRAM("00000001ffffffff"), -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g @pv ram "
		  "0000000000000000-0000000003ffffff\r\n" MT_TAIL, -1 },
		{ MT_HEAD "    0000000000000000-0000000003ffffff (prio 0, ram): alias ram-below-4g "
		  "0000000000000000-0000000003ffffff\r\n" MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "    0000000100000000-000000013fffffff (prio 0, ram): alias "
		  "ram-above-4g @pvram 0000000008000000-0000000047ffffff\r\n"
		  MT_PVRAM("0000000047ffffff"), -1 },
		{ MT_HEAD MT_BELOW "    0000000100000000-000000013fffffff (prio 0, ram): alias "
		  "ram-above-4g @pc.ram 0000000004000000-0000000043ffffff\r\n"
		  MT_PVRAM("0000000043ffffff"), -1 },
		{ MT_HEAD MT_BELOW "    0000000003000000-0000000042ffffff (prio 0, ram): alias "
		  "ram-above-4g @pvram 0000000004000000-0000000043ffffff\r\n"
		  MT_PVRAM("0000000043ffffff"), -1 },
		/* refused: the target not once one RAM region holding the aliases', nothing in it */
		{ MT_HEAD MT_BELOW, -1 },
		{ MT_HEAD MT_BELOW MT_TAIL MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW MT_TAIL
		  "    0000000001000000-0000000001000fff (prio 1, i/o): mmio\r\n", -1 },
		{ MT_HEAD MT_BELOW MT_PVRAM("0000000003fffffe"), -1 },
		{ MT_HEAD MT_BELOW MT_ABOVE MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "\r\nmemory-region: pvram\r\n"
		  "  0000000000000000-0000000003ffffff (prio 0, i/o): pvram\r\n", -1 },
		{ MT_HEAD MT_BELOW "\r\nmemory-region: pvram\r\n"
		  "  0000000000000000-0000000003ffffff (prio 0, ram): pvram2\r\n", -1 },
		{ MT_HEAD MT_BELOW "\r\nmemory-region: pvram\r\n"
		  "  0000000000001000-0000000003ffffff (prio 0, ram): pvram\r\n", -1 },
		{ MT_HEAD MT_BELOW "\r\nmemory-region: pvram\r\n\r\n", -1 },
		/* refused: not QEMU's lines */
		{ MT_HEAD MT_BELOW "  garbage\r\n" MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "   0000000004000000-0000000004ffffff (prio 0, i/o): odd\r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    000000004000000-0000000004ffffff (prio 0, i/o): x\r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    0000000004000000-0000000004ffffff (prio x, i/o): x\r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    0000000004000000-0000000004ffffff (prio 2147483648, i/o): x\r\n"
		  MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "    0000000004000000-0000000004ffffff (prio 0, io): x\r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    0000000004000000-0000000004ffffff (prio 0, i/o): \r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    0000000004000000-0000000004ffffff (prio 0, i/o): x\x01\r\n"
		  MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "    0000000005000000-0000000004ffffff (prio 0, i/o): x\r\n" MT_TAIL,
		  -1 },
		{ MT_HEAD MT_BELOW "    [DETECTED OVERFLOW!] ffffffffffff0000-000000000000ffff (prio 0, "
		  "i/o): x\r\n" MT_TAIL, -1 },
		/* refused: the tree without its root, with two, empty; not vCPU 0's; twice; none */
		{ "address-space: cpu-memory-0\r\naddress-space: memory\r\n" MT_BELOW MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "  0000000000000000-ffffffffffffffff (prio 0, i/o): system\r\n"
		  MT_TAIL, -1 },
		{ "address-space: cpu-memory-0\r\naddress-space: memory\r\n" MT_TAIL, -1 },
		{ "address-space: memory\r\n  0000000000000000-ffffffffffffffff (prio 0, i/o): system\r\n"
		  MT_BELOW MT_TAIL, -1 },
		{ MT_HEAD MT_BELOW "\r\n" MT_HEAD MT_BELOW MT_TAIL, -1 },
		{ "address-space: I/O\r\n  0000000000000000-000000000000ffff (prio 0, i/o): io\r\n"
		  MT_TAIL, -1 },
		{ "", -1 },
		/* `info mtree -f`'s flat view is not the tree */
		{ "FlatView #0\r\n AS \"memory\", root: system\r\n AS \"cpu-memory-0\", root: system\r\n"
		  " Root memory region: system\r\n"
		  "  0000000000000000-000000000009ffff (prio 0, ram): pvram\r\n"
		  "  0000000000100000-0000000003ffffff (prio 0, ram): pvram @0000000000100000\r\n\r\n",
		  -1 },
	};
	struct phys_range bar[8], ram[4];
	char err[256], *text;
	int before = failures, n;

	/* every mapped memory BAR, of every device; I/O and the unmapped ROMs (BAR6) left out */
	CHECK(parse_pci_bars(real_pci, bar, 8) == 5);
	CHECK(bar[0].start == 0xfd000000 && bar[0].end == 0xfdffffff &&
	      bar[2].start == 0xfebc0000 && bar[4].start == 0xfe000000 && bar[4].end == 0xfe0fffff);
	CHECK(parse_pci_bars(real_pci, bar, 2) == 5 && bar[1].end == 0xfebf0fff);
	CHECK(parse_pci_bars("      BAR2: 64 bit memory at 0xzz [0x1].\n", bar, 8) == -1);
	/* QEMU 10: no period after the range, and "(not mapped)" for an unmapped BAR */
	CHECK(parse_pci_bars("      BAR2: 64 bit memory at 0x1000 [0x1fff]\n", bar, 8) == 1);
	CHECK(parse_pci_bars("      BAR2: 64 bit memory at 0x1000 [0x1fff]x\n", bar, 8) == -1);
	CHECK(parse_pci_bars("      BAR6: 32 bit memory (not mapped)\r\n"
			     "      BAR4: I/O (not mapped)\r\n", bar, 8) == 0);
	CHECK(parse_pci_bars("      BAR6: 32 bit memory (not mapped) x\n", bar, 8) == -1);
	CHECK(parse_pci_bars("      BAR9: 64 bit memory at 0x1000 [0x1fff].\n", bar, 8) == -1);
	CHECK(parse_pci_bars("      BAR0: 32 bit memory at 0x1000 [0x1fff]. \r\n", bar, 8) == 1);

	/* QEMU's own: ram-below-4g's pvram, less the legacy window; vga.vram and pvshm never */
	CHECK(parse_pci_bars(real_pci, bar, 8) == 5);
	n = parse_mtree_ram(real_mtree, bar, 5, ram, 4, err, sizeof(err));
	if (n != 2)
		printf("# real mtree: %d (%s)\n", n, err);
	CHECK(n == 2 && ram[0].start == 0 && ram[0].end == 0x9ffff && ram[1].start == 0x100000 &&
	      ram[1].end == 0x3ffffff);
	/* no BARs known: the same (device RAM is never the machine's) */
	n = parse_mtree_ram(real_mtree, bar, 0, ram, 4, err, sizeof(err));
	CHECK(n == 2 && ram[1].end == 0x3ffffff);
	/* more ranges of RAM than room for: refused, never fewer */
	CHECK(parse_mtree_ram(real_mtree, bar, 5, ram, 1, err, sizeof(err)) == -1 && err[0]);
	/* a BAR over RAM (hidden by it): left out all the same */
	bar[5] = (struct phys_range){ 0x2000000, 0x2ffffff };
	n = parse_mtree_ram(real_mtree, bar, 6, ram, 4, err, sizeof(err));
	CHECK(n == 3 && ram[1].end == 0x1ffffff && ram[2].start == 0x3000000 &&
	      ram[2].end == 0x3ffffff);
	for (size_t i = 0; i < sizeof(mtree) / sizeof(mtree[0]); i++) {
		n = parse_mtree_ram(mtree[i].text, bar, 5, ram, 4, err, sizeof(err));
		if (n != mtree[i].rc || (n < 0 && !err[0]))
			printf("# mtree case %zu: %d (%s)\n", i, n, err);
		CHECK(n == mtree[i].rc && (n >= 0 || err[0]));
	}
	n = parse_mtree_ram(mtree[0].text, bar, 5, ram, 4, err, sizeof(err));
	CHECK(n == 3 && ram[1].start == 0x100000 && ram[1].end == 0x3ffffff &&
	      ram[2].start == 0x100000000ULL && ram[2].end == 0x13fffffffULL);
	n = parse_mtree_ram(mtree[1].text, bar, 5, ram, 4, err, sizeof(err));
	CHECK(n == 3 && ram[1].end == 0x1ffffff && ram[2].start == 0x3000000 &&
	      ram[2].end == 0x3feffff);
	/* at most AUDIT_MAX_TREE lines in the tree of "memory" */
	text = long_mtree(AUDIT_MAX_TREE);
	CHECK(text && parse_mtree_ram(text, bar, 5, ram, 4, err, sizeof(err)) == 2);
	free(text);
	text = long_mtree(AUDIT_MAX_TREE + 1);
	CHECK(text && parse_mtree_ram(text, bar, 5, ram, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "more than"));
	free(text);

	/* what lies wholly in one range */
	ram[0] = (struct phys_range){ 0, 0x9ffff };
	ram[1] = (struct phys_range){ 0x100000, 0x3ffffff };
	CHECK(ram_holds(ram, 2, 0x3fff000, 0x1000) && ram_holds(ram, 2, 0, 0xa0000));
	CHECK(!ram_holds(ram, 2, 0x3fff000, 0x2000) && !ram_holds(ram, 2, 0x9f000, 0x2000));
	CHECK(!ram_holds(ram, 2, 0xa0000, 8) && !ram_holds(ram, 2, 0x1000, 0));
	CHECK(!ram_holds(ram, 2, UINT64_MAX - 7, 16) && !ram_holds(ram, 0, 0x1000, 8));
	test_result(failures == before, "guest_ram_from_mtree");
}

/*
 * QEMU 10.0.13 (trixie's, run-guest --vgpu 256M): virtio-gpu-gl-pci's window
 * with one 1 MiB blob, as the tree of "memory" and the pci region show it
 */
#define VG_WINDOW	"      00000000e0000000-00000000efffffff (prio 1, i/o): virtio-gpu-hostmem\r\n"
#define VG_BLOB(a, b)	"        00000000" a "-00000000" b " (prio 0, ram): mr\r\n"
#define VG_AFTER	"      00000000f0000000-00000000f0003fff (prio 1, i/o): virtio-pci\r\n" \
			"        00000000f0000000-00000000f0000fff (prio 0, i/o): " \
			"virtio-pci-common-virtio-gpu\r\n"
#define VG_TREE(blobs)	MT_HEAD "    0000000080000000-00000000ffffffff (prio -1, i/o): pci\r\n" \
			VG_WINDOW blobs VG_AFTER MT_TAIL

void vgpu_window_from_mtree(void)
{
	static const struct {
		const char *text;
		int rc;
	} bad[] = {
		/* a blob outside its window, blobs that overlap */
		{ VG_TREE(VG_BLOB("dfff0000", "e00fffff")), -1 },
		{ VG_TREE(VG_BLOB("e0000000", "e00fffff") VG_BLOB("e0080000", "e017ffff")), -1 },
		/*
		 * a blob whose offset wrapped (a 32-bit guest that truncated the
		 * window's base): QEMU 10 adds it and flags the line
		 */
		{ VG_TREE("[DETECTED OVERFLOW!]         0000000000000000-00000000000fffff "
			  "(prio 0, ram): mr\r\n"), -1 },
		/* two windows elsewhere: one virtio-gpu at most */
		{ VG_TREE("") "\r\nmemory-region: pci\r\n"
		  "  00000000d0000000-00000000dfffffff (prio 1, i/o): virtio-gpu-hostmem\r\n", -1 },
	};
	struct phys_range window, blob[4];
	char err[256];
	int before = failures, n;

	n = parse_mtree_hostmem(VG_TREE(VG_BLOB("e0000000", "e00fffff")), &window, blob, 4, err,
				sizeof(err));
	CHECK(n == 1 && window.start == 0xe0000000 && window.end == 0xefffffff &&
	      blob[0].start == 0xe0000000 && blob[0].end == 0xe00fffff);
	/* the same window where the pci region is shown again: its blobs once, sorted */
	n = parse_mtree_hostmem(VG_TREE(VG_BLOB("e0200000", "e02fffff")
					VG_BLOB("e0000000", "e00fffff"))
				"\r\nmemory-region: pci\r\n"
				"  0000000000000000-ffffffffffffffff (prio 0, i/o): pci\r\n"
				"    00000000e0000000-00000000efffffff (prio 1, i/o): virtio-gpu-hostmem\r\n"
				"      00000000e0000000-00000000e00fffff (prio 0, ram): mr\r\n",
				&window, blob, 4, err, sizeof(err));
	CHECK(n == 2 && blob[0].start == 0xe0000000 && blob[1].start == 0xe0200000);
	/* an empty window; none at all */
	CHECK(parse_mtree_hostmem(VG_TREE(""), &window, blob, 4, err, sizeof(err)) == 0 &&
	      window.start == 0xe0000000);
	CHECK(parse_mtree_hostmem(real_mtree, &window, blob, 4, err, sizeof(err)) == 0 &&
	      window.start > window.end);
	/* more blobs than room for: refused, never fewer */
	CHECK(parse_mtree_hostmem(VG_TREE(VG_BLOB("e0000000", "e00fffff")
					  VG_BLOB("e0200000", "e02fffff")), &window, blob, 1, err,
				  sizeof(err)) == -1 && strstr(err, "more than"));
	/* the overflow flag named, where 10.0 prints it and where older QEMUs do */
	CHECK(parse_mtree_hostmem(bad[2].text, &window, blob, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "overflowing"));
	CHECK(parse_mtree_hostmem(VG_TREE("        [DETECTED OVERFLOW!] 0000000000000000-"
					  "00000000000fffff (prio 0, ram): mr\r\n"),
				  &window, blob, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "overflowing"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = parse_mtree_hostmem(bad[i].text, &window, blob, 4, err, sizeof(err));
		if (n != bad[i].rc || !err[0])
			printf("# hostmem case %zu: %d (%s)\n", i, n, err);
		CHECK(n == bad[i].rc && err[0]);
	}
	test_result(failures == before, "vgpu_window_from_mtree");
}
