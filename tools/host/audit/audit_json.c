// SPDX-License-Identifier: GPL-2.0
/*
 * JSON strings: decoding those of QMP's replies (json_string()) and quoting
 * what pvmap-audit prints (json_quote()), UTF-8 both ways.
 */
#include "audit_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Four hex digits at @p: the value, or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int d = hexval(p[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t utf8_put(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* See audit_internal.h. */
char *json_string(const char *p, const char **end)
{
	size_t cap = 256, n = 0;
	char *out;

	if (*p++ != '"')
		return NULL;
	out = malloc(cap);
	if (!out)
		return NULL;
	while (*p != '"') {
		unsigned char c = (unsigned char)*p++;
		char enc[4];
		size_t k = 1;

		if (c < 0x20)		/* a raw control byte, or the end of the line */
			goto bad;
		enc[0] = (char)c;
		if (c == '\\') {
			switch (*p++) {
			case 'n': enc[0] = '\n'; break;
			case 'r': enc[0] = '\r'; break;
			case 't': enc[0] = '\t'; break;
			case 'b': enc[0] = '\b'; break;
			case 'f': enc[0] = '\f'; break;
			case '"': enc[0] = '"'; break;
			case '\\': enc[0] = '\\'; break;
			case '/': enc[0] = '/'; break;
			case 'u': {
				long u = hex4(p), lo;

				if (u <= 0)	/* not four hex digits, or \u0000 */
					goto bad;
				p += 4;
				if (u >= 0xdc00 && u <= 0xdfff)
					goto bad;
				if (u >= 0xd800 && u <= 0xdbff) {
					if (p[0] != '\\' || p[1] != 'u')
						goto bad;
					lo = hex4(p + 2);
					if (lo < 0xdc00 || lo > 0xdfff)
						goto bad;
					p += 6;
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				}
				k = utf8_put(enc, (unsigned long)u);
				break;
			}
			default:
				goto bad;
			}
		}
		if (n + k + 1 > cap) {
			char *more = realloc(out, cap * 2);

			if (!more)
				goto bad;
			out = more;
			cap *= 2;
		}
		memcpy(out + n, enc, k);
		n += k;
	}
	out[n] = '\0';
	*end = p + 1;
	return out;
bad:
	free(out);
	return NULL;
}

/* The code point of the UTF-8 sequence at @s (@n bytes left) and its length, or 0. */
static size_t utf8_get(const unsigned char *s, size_t n, unsigned long *cp)
{
	size_t k;
	unsigned long min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		k = 2, min = 0x80, *cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		k = 3, min = 0x800, *cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		k = 4, min = 0x10000, *cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return k;
}

char *json_quote(const char *s, size_t n, bool *lossy)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out, *o;

	if (lossy)
		*lossy = false;
	if (n > (SIZE_MAX - 3) / 6)
		return NULL;
	out = malloc(6 * n + 3);	/* at most 6 bytes out for each byte in */
	if (!out)
		return NULL;
	o = out;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		unsigned long cp;
		size_t k;

		switch (u[i]) {
		case '"': *o++ = '\\'; *o++ = '"'; i++; continue;
		case '\\': *o++ = '\\'; *o++ = '\\'; i++; continue;
		case '\n': *o++ = '\\'; *o++ = 'n'; i++; continue;
		case '\r': *o++ = '\\'; *o++ = 'r'; i++; continue;
		case '\t': *o++ = '\\'; *o++ = 't'; i++; continue;
		case '\b': *o++ = '\\'; *o++ = 'b'; i++; continue;
		case '\f': *o++ = '\\'; *o++ = 'f'; i++; continue;
		}
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			*o++ = (char)u[i++];
			continue;
		}
		k = utf8_get(u + i, n - i, &cp);
		if (!k) {
			cp = 0xfffd;
			k = 1;
			if (lossy)
				*lossy = true;
		}
		i += k;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			o += sprintf(o, "\\u%04lx\\u%04lx", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
		} else {
			o += sprintf(o, "\\u%04lx", cp);
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}
