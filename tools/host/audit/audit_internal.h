/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pvmap-audit's parsers (audit_*.c) share and audit_parse.h, their API,
 * does not offer: the scanning of monitor text and the JSON string decoder
 * that QMP replies are read with.
 */
#ifndef PVMAP_AUDIT_INTERNAL_H
#define PVMAP_AUDIT_INTERNAL_H

#include "audit_parse.h"

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1..16 hex digits at *pp: 0 and the value, *pp past them; or -1. */
static inline int hex_field(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	int n = 0;

	*v = 0;
	while (hexval(*p) >= 0) {
		if (++n > 16)
			return -1;
		*v = *v << 4 | (uint64_t)hexval(*p++);
	}
	*pp = p;
	return n ? 0 : -1;
}

static inline const char *skip_line_end(const char *p)
{
	while (*p == ' ' || *p == '\r')
		p++;
	return p;
}

/*
 * Decode the JSON string starting at @p (at its opening quote); *end is
 * set past its closing quote. NULL when it is not a well-formed string, or
 * holds a NUL (which would cut the C string short) or a raw control byte.
 */
char *json_string(const char *p, const char **end);

#endif /* PVMAP_AUDIT_INTERNAL_H */
