// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's configuration from the human monitor: `info pci` (the
 * apertures of known devices), `info cpus`, `info registers` (the paging
 * mode) and `xp`.
 */
#include "audit_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * not_if: a BAR whose presence makes the device something else: an
 * ivshmem with the MSI-X BAR1 is an ivshmem-doorbell, pvmap-hv's
 * hypercall channel (the guest maps its shared memory for good).
 * only_if: a BAR without which the device has no aperture: a virtio-gpu
 * has its host-visible window in BAR4 only when its modern BAR moved to
 * BAR2 to make room (QEMU's virtio_gpu_pci_base_realize(); without a
 * window BAR4 is the modern BAR).
 */
static const struct {
	unsigned int vendor, device;
	int bar, bar64;		/* bar64: preferred when present */
	int not_if, only_if;
	const char *kind;
} known[] = {
	{ 0x1af4, 0x1110, 2, -1, 1, -1, "ivshmem" },
	{ 0x1234, 0x1111, 0, -1, -1, -1, "stdvga" },
	{ 0x1b36, 0x0100, 1, 4, -1, -1, "qxl" },
	{ 0x1af4, 0x1050, 4, -1, -1, 2, "virtio-gpu" },
};

/* Count the aperture of a device that is complete, if it is a known one; store it below @max. */
static int add_device(const struct aperture *cur, uint64_t bars[6][2], const int have[6],
		      struct aperture *ap, int n, int max)
{
	for (unsigned int k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		int use;

		if (cur->vendor != known[k].vendor || cur->device != known[k].device ||
		    (known[k].not_if >= 0 && have[known[k].not_if]) ||
		    (known[k].only_if >= 0 && !have[known[k].only_if]))
			continue;
		use = known[k].bar64 >= 0 && have[known[k].bar64] ? known[k].bar64 : known[k].bar;
		if (!have[use])
			return n;
		if (n < max) {
			ap[n] = *cur;
			ap[n].bar = use;
			ap[n].start = bars[use][0];
			ap[n].end = bars[use][1];
			ap[n].kind = known[k].kind;
		}
		return n + 1;
	}
	return n;
}

int parse_info_pci(const char *text, struct aperture *ap, int max)
{
	struct aperture cur = { .bar = -1 };
	uint64_t bars[6][2] = { { 0 } };
	int have[6] = { 0 }, n = 0, in_dev = 0;
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[256];
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		unsigned int a, b, c, bar;
		unsigned long long s, e;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;

		if (sscanf(buf, " Bus %u, device %u, function %u:", &a, &b, &c) == 3) {
			if (in_dev)
				n = add_device(&cur, bars, have, ap, n, max);
			memset(have, 0, sizeof(have));
			cur = (struct aperture){ .bus = a, .dev = b, .fn = c, .bar = -1 };
			in_dev = 1;
			continue;
		}
		if (strstr(buf, "PCI device ") && !strstr(buf, "subsystem") &&
		    sscanf(strstr(buf, "PCI device ") + 11, "%x:%x", &a, &b) == 2) {
			cur.vendor = a;
			cur.device = b;
		}
		if (sscanf(buf, " BAR%u:", &bar) == 1 && bar < 6 && strstr(buf, "memory at ") &&
		    sscanf(strstr(buf, "memory at ") + 10, "%llx [%llx]", &s, &e) == 2 && e >= s) {
			bars[bar][0] = s;
			bars[bar][1] = e;
			have[bar] = 1;
		}
	}
	if (in_dev)
		n = add_device(&cur, bars, have, ap, n, max);
	return n;
}

int parse_info_cpus(const char *text, int *index, int max)
{
	int n = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *p = line;
		char *end;
		long cpu;

		line = nl ? nl + 1 : NULL;
		while (*p == ' ' || *p == '\t' || *p == '*')
			p++;
		if (*p == '\r' || *p == '\n' || !*p)
			continue;
		/* QEMU 7.2: "* CPU #0: thread_id=1234" */
		if (strncmp(p, "CPU #", 5) || hexval(p[5]) < 0 || hexval(p[5]) > 9)
			return -1;
		errno = 0;
		cpu = strtol(p + 5, &end, 10);
		if (errno || *end != ':' || cpu < 0 || cpu > 1 << 20)
			return -1;
		if (n < max)
			index[n] = (int)cpu;
		n++;
	}
	return n;
}

const char *paging_name(enum paging mode)
{
	switch (mode) {
	case PAGING_OFF: return "off";
	case PAGING_2LEVEL: return "2-level";
	case PAGING_PAE: return "PAE";
	case PAGING_4LEVEL: return "4-level";
	case PAGING_5LEVEL: return "5-level";
	}
	return "?";
}

/* "NAME=hex" at the start of a word of @text, exactly once: 0 and *val, or -1. */
static int register_value(const char *text, const char *name, uint64_t *val)
{
	size_t len = strlen(name);
	int found = 0;

	for (const char *p = text; (p = strstr(p, name)); p += len) {
		char *end;

		if (p != text && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '\r')
			continue;
		if (hexval(p[len]) < 0)
			return -1;
		errno = 0;
		*val = strtoull(p + len, &end, 16);
		if (errno || (*end && *end != ' ' && *end != '\r' && *end != '\n') ||
		    end - (p + len) > 16)
			return -1;
		found++;
	}
	return found == 1 ? 0 : -1;
}

int parse_info_registers(const char *text, struct cpu_paging *p)
{
	uint64_t cr0, cr3, cr4, efer, cpl;

	if (register_value(text, "CR0=", &cr0) || register_value(text, "CR3=", &cr3) ||
	    register_value(text, "CR4=", &cr4) || register_value(text, "EFER=", &efer))
		return -1;
	/* CPL=%d: decimal, but one digit; its absence is not fatal */
	p->cpl = register_value(text, "CPL=", &cpl) || cpl > 3 ? -1 : (int)cpl;
	p->cr3 = cr3;
	p->pse = cr4 & (1u << 4);
	if (!(cr0 & (1u << 31)))
		p->mode = PAGING_OFF;
	else if (!(cr4 & (1u << 5)))	/* no PAE */
		p->mode = efer & (1u << 10) ? (enum paging)-1 : PAGING_2LEVEL;
	else if (!(efer & (1u << 10)))	/* no LMA */
		p->mode = PAGING_PAE;
	else
		p->mode = cr4 & (1u << 12) ? PAGING_5LEVEL : PAGING_4LEVEL;
	return p->mode == (enum paging)-1 ? -1 : 0;
}

int parse_xp(const char *text, uint64_t addr, uint64_t *val)
{
	const char *p = text;
	uint64_t a;

	/* "%016" PRIx64 ": 0x%016" PRIx64 (or 0x%08x for /1wx), one line */
	if (hex_field(&p, &a) || a != addr || strncmp(p, ": 0x", 4))
		return -1;
	p += 4;
	if (hex_field(&p, val))
		return -1;
	p = skip_line_end(p);
	if (*p == '\n')
		p = skip_ws(p);
	return *p ? -1 : 0;
}

int parse_xp_table(const char *text, uint64_t addr, int bytes, int count, uint64_t *vals)
{
	const char *p = text;
	int n = 0;

	if ((bytes != 4 && bytes != 8) || count < 1)
		return -1;
	/*
	 * QEMU's memory_dump(): a line for each 16 bytes, "%016" PRIx64 ":"
	 * and each value as " 0x%0*" PRIx64 at its full width; where the
	 * address is no memory, " Cannot access memory" ends the dump.
	 */
	while (n < count) {
		int per = 16 / bytes < count - n ? 16 / bytes : count - n;
		uint64_t a;

		if (hex_field(&p, &a) || a != addr + (uint64_t)n * (uint64_t)bytes || *p++ != ':')
			return -1;
		if (!strncmp(p, " Cannot access memory", 21)) {
			p = skip_line_end(p + 21);
			return *p == '\n' && !*skip_ws(p) ? XP_NOT_MEMORY : -1;
		}
		for (int i = 0; i < per; i++) {
			const char *digits = p + 3;

			if (strncmp(p, " 0x", 3))
				return -1;
			p = digits;
			if (hex_field(&p, &vals[n]) || p - digits != 2 * bytes)
				return -1;
			n++;
		}
		p = skip_line_end(p);
		if (*p++ != '\n')
			return -1;
	}
	return *p ? -1 : 0;
}
