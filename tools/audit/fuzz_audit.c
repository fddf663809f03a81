// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for pvmap-audit's parsers: the input, as text, goes to
 * every one of them (QMP line classification, info pci, info cpus, info
 * tlb lines, pvmap's live table). Truncated and malformed replies included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aperture ap[AUDIT_MAX_APERTURES];
	struct live_range live[16];
	struct tlb_entry e;
	char *text = malloc(size + 1), *extra;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	qmp_classify(text, &extra);
	free(extra);
	parse_info_pci(text, ap, AUDIT_MAX_APERTURES);
	parse_info_cpus(text);
	parse_live(text, live, 16);
	for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n"))
		parse_tlb_line(l, &e);
	free(text);
	return 0;
}
