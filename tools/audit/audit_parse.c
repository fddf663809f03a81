// SPDX-License-Identifier: GPL-2.0
/* pvmap-audit's parsers; see audit_parse.h. */
#define _GNU_SOURCE
#include "audit_parse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Decode the JSON string starting at @p (at its opening quote). */
static char *json_string(const char *p)
{
	size_t cap = 256, n = 0;
	char *out;

	if (*p++ != '"')
		return NULL;
	out = malloc(cap);
	if (!out)
		return NULL;
	while (*p && *p != '"') {
		char c = *p++;

		if (c == '\\') {
			switch (*p++) {
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'u': {
				unsigned int u;

				if (sscanf(p, "%4x", &u) != 1 || strlen(p) < 4) {
					free(out);
					return NULL;
				}
				p += 4;
				c = u < 0x80 ? (char)u : '?';
				break;
			}
			default:
				free(out);
				return NULL;
			}
		}
		if (n + 1 >= cap) {
			char *more = realloc(out, cap * 2);

			if (!more) {
				free(out);
				return NULL;
			}
			out = more;
			cap *= 2;
		}
		out[n++] = c;
	}
	if (*p != '"') {
		free(out);
		return NULL;
	}
	out[n] = '\0';
	return out;
}

enum qmp_line qmp_classify(const char *line, char **text)
{
	const char *p = skip_ws(line);

	*text = NULL;
	if (*p++ != '{')
		return QMP_MALFORMED;
	p = skip_ws(p);
	if (!strncmp(p, "\"QMP\"", 5))
		return QMP_GREETING;
	if (!strncmp(p, "\"event\"", 7))
		return QMP_EVENT;
	if (!strncmp(p, "\"return\"", 8)) {
		p = skip_ws(p + 8);
		if (*p++ != ':')
			return QMP_MALFORMED;
		p = skip_ws(p);
		if (*p == '"') {
			*text = json_string(p);
			return *text ? QMP_RETURN : QMP_MALFORMED;
		}
		return *p ? QMP_RETURN : QMP_MALFORMED;
	}
	if (!strncmp(p, "\"error\"", 7)) {
		const char *d = strstr(p, "\"desc\"");

		if (d) {
			d = skip_ws(d + 6);
			if (*d == ':')
				*text = json_string(skip_ws(d + 1));
		}
		return QMP_ERROR;
	}
	return QMP_MALFORMED;
}

/*
 * not_if: a BAR whose presence makes the device something else: an
 * ivshmem with the MSI-X BAR1 is an ivshmem-doorbell, pvmap-hv's
 * hypercall channel (the guest maps its shared memory for good).
 */
static const struct {
	unsigned int vendor, device;
	int bar, bar64;		/* bar64: preferred when present */
	int not_if;
	const char *kind;
} known[] = {
	{ 0x1af4, 0x1110, 2, -1, 1, "ivshmem" },
	{ 0x1234, 0x1111, 0, -1, -1, "stdvga" },
	{ 0x1b36, 0x0100, 1, 4, -1, "qxl" },
};

/* The aperture of a device that is complete, if it is a known one. */
static int add_device(const struct aperture *cur, uint64_t bars[6][2], const int have[6],
		      struct aperture *ap, int n, int max)
{
	for (unsigned int k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		int use;

		if (cur->vendor != known[k].vendor || cur->device != known[k].device ||
		    (known[k].not_if >= 0 && have[known[k].not_if]))
			continue;
		use = known[k].bar64 >= 0 && have[known[k].bar64] ? known[k].bar64 : known[k].bar;
		if (have[use] && n < max) {
			ap[n] = *cur;
			ap[n].bar = use;
			ap[n].start = bars[use][0];
			ap[n].end = bars[use][1];
			ap[n].kind = known[k].kind;
			return n + 1;
		}
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

int parse_info_cpus(const char *text)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, "CPU #")); p += 5)
		n++;
	return n;
}

int parse_tlb_line(const char *line, struct tlb_entry *e)
{
	unsigned long long va, pa;
	char flags[16];

	if (sscanf(line, "%llx: %llx %15s", &va, &pa, flags) != 3 || strlen(flags) != 9)
		return -1;
	e->va = va;
	/* QEMU prints the entry with its NX bit: keep the address bits only */
	e->pa = pa & 0x000ffffffffff000ULL;
	e->size = flags[2] == 'P' ? 2ULL << 20 : 4096;
	memcpy(e->flags, flags, 10);
	return 0;
}

int parse_live(const char *text, struct live_range *r, int max)
{
	int n = 0;

	for (const char *line = text; line && *line && n < max;) {
		unsigned long long va, np;

		if (sscanf(line, "%llx %llu", &va, &np) == 2 && np) {
			r[n].va = va;
			r[n].npages = np;
			n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}
