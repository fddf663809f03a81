// SPDX-License-Identifier: GPL-2.0
/* pvmap-audit's parsers; see audit_parse.h. */
#define _GNU_SOURCE
#include "audit_parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

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

/*
 * Decode the JSON string starting at @p (at its opening quote); *end is
 * set past its closing quote. NULL when it is not a well-formed string, or
 * holds a NUL (which would cut the C string short) or a raw control byte.
 */
static char *json_string(const char *p, const char **end)
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

enum qmp_line qmp_classify(const char *line, char **text)
{
	const char *p = skip_ws(line), *end;

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
			*text = json_string(p, &end);
			if (!*text)
				return QMP_MALFORMED;
			end = skip_ws(end);
			/* the string is the whole reply: {"return": "..."} */
			if (end[0] != '}' || *skip_ws(end + 1)) {
				free(*text);
				*text = NULL;
				return QMP_MALFORMED;
			}
			return QMP_RETURN;
		}
		return *p ? QMP_RETURN : QMP_MALFORMED;
	}
	if (!strncmp(p, "\"error\"", 7)) {
		const char *d = strstr(p, "\"desc\"");

		if (d) {
			d = skip_ws(d + 6);
			if (*d == ':')
				*text = json_string(skip_ws(d + 1), &end);
		}
		return QMP_ERROR;
	}
	return QMP_MALFORMED;
}

void qmp_reader_init(struct qmp_reader *r, qmp_read_fn read, void *ctx, size_t max_line)
{
	memset(r, 0, sizeof(*r));
	r->read = read;
	r->ctx = ctx;
	r->max_line = max_line > SIZE_MAX / 4 ? SIZE_MAX / 4 : max_line;
}

void qmp_reader_free(struct qmp_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = r->scanned = 0;
}

int qmp_read_line(struct qmp_reader *r, char **line, int *errnum)
{
	*line = NULL;
	*errnum = 0;
	for (;;) {
		char *nl = r->len > r->scanned ?
			memchr(r->buf + r->scanned, '\n', r->len - r->scanned) : NULL;
		size_t l;
		long n;

		if (nl) {
			l = (size_t)(nl - r->buf);
			if (l > r->max_line)
				return QMP_READ_TOO_LONG;
			if (memchr(r->buf, '\0', l))
				return QMP_READ_NUL;
			*line = malloc(l + 1);
			if (!*line)
				return QMP_READ_NOMEM;
			memcpy(*line, r->buf, l);
			if (l && r->buf[l - 1] == '\r')
				l--;
			(*line)[l] = '\0';
			memmove(r->buf, nl + 1, r->len - (size_t)(nl + 1 - r->buf));
			r->len -= (size_t)(nl + 1 - r->buf);
			r->scanned = 0;
			r->line_bytes = 0;
			return QMP_READ_OK;
		}
		r->scanned = r->len;
		r->line_bytes = r->len;
		/* no newline yet: a line already over the limit never gets one in time */
		if (r->len > r->max_line)
			return QMP_READ_TOO_LONG;
		if (r->len == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 65536;
			char *more;

			if (cap > r->max_line + 65536)
				cap = r->max_line + 65536;
			more = realloc(r->buf, cap);
			if (!more)
				return QMP_READ_NOMEM;
			r->buf = more;
			r->cap = cap;
		}
		n = r->read(r->ctx, r->buf + r->len, r->cap - r->len);
		if (n < 0) {
			*errnum = (int)-n;
			return QMP_READ_IO;
		}
		if (n == 0)
			return r->len ? QMP_READ_CUT : QMP_READ_CLOSED;
		if ((size_t)n > r->cap - r->len)	/* a source that says it wrote more */
			return QMP_READ_IO;
		r->len += (size_t)n;
	}
}

int qmp_next_reply(struct qmp_reader *r, char **text, char *err, size_t errlen)
{
	*text = NULL;
	for (;;) {
		char *line, *t;
		int errnum, rc = qmp_read_line(r, &line, &errnum);

		switch (rc) {
		case QMP_READ_OK:
			break;
		case QMP_READ_CLOSED:
			snprintf(err, errlen, "the QMP connection closed before the reply");
			return -1;
		case QMP_READ_CUT:
			snprintf(err, errlen, "QMP reply cut short: the connection closed %zu bytes "
				 "into a reply", r->line_bytes);
			return -1;
		case QMP_READ_TOO_LONG:
			snprintf(err, errlen, "QMP reply over the limit of %zu bytes (--max-reply)",
				 r->max_line);
			return -1;
		case QMP_READ_NUL:
			snprintf(err, errlen, "NUL byte in a QMP reply");
			return -1;
		case QMP_READ_IO:
			snprintf(err, errlen, "QMP read: %s",
				 errnum == EAGAIN || errnum == ETIMEDOUT ? "timed out" :
				 errnum ? strerror(errnum) : "bad read");
			return -1;
		default:
			snprintf(err, errlen, "QMP read: out of memory");
			return -1;
		}
		switch (qmp_classify(line, &t)) {
		case QMP_EVENT:
		case QMP_GREETING:
			free(line);
			continue;
		case QMP_RETURN:
			free(line);
			*text = t;
			return 0;
		case QMP_ERROR:
			snprintf(err, errlen, "QMP error: %s", t ? t : "(no description)");
			free(t);
			free(line);
			return 1;
		default:
			snprintf(err, errlen, "malformed QMP reply (%zu bytes): %.80s", strlen(line),
				 line);
			free(line);
			return -1;
		}
	}
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

/* Count the aperture of a device that is complete, if it is a known one; store it below @max. */
static int add_device(const struct aperture *cur, uint64_t bars[6][2], const int have[6],
		      struct aperture *ap, int n, int max)
{
	for (unsigned int k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		int use;

		if (cur->vendor != known[k].vendor || cur->device != known[k].device ||
		    (known[k].not_if >= 0 && have[known[k].not_if]))
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

/* 1..16 hex digits at *pp: 0 and the value, *pp past them; or -1. */
static int hex_field(const char **pp, uint64_t *v)
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

static const char *skip_line_end(const char *p)
{
	while (*p == ' ' || *p == '\r')
		p++;
	return p;
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

static const char tlb_letters[] = "XGPDACTUW";

/* va sign-extended from bit @bits - 1, as addr_canonical() prints it */
static bool canonical(uint64_t va, int bits)
{
	uint64_t top = va >> (bits - 1);

	return top == 0 || top == (UINT64_MAX >> (bits - 1));
}

int parse_tlb_line(const char *line, const struct cpu_paging *p, struct tlb_entry *e)
{
	const char *s = line;
	uint64_t va, pa, psize = TLB_4K, pamask;
	bool large;

	if (hex_field(&s, &va) || strncmp(s, ": ", 2))
		return -1;
	s += 2;
	if (hex_field(&s, &pa) || *s++ != ' ')
		return -1;
	for (int i = 0; i < 9; i++)
		if (s[i] != '-' && s[i] != tlb_letters[i])
			return -1;
	memcpy(e->flags, s, 9);
	e->flags[9] = '\0';
	if (*skip_line_end(s + 9))
		return -1;
	large = e->flags[2] == 'P';
	e->size_known = e->pa_known = true;
	switch (p->mode) {
	case PAGING_2LEVEL:
		/* 32-bit entries: no NX; 'P' only for a 4 MiB page, under CR4.PSE */
		if (va >> 32 || pa >> 32 || e->flags[0] == 'X' || (large && !p->pse))
			return -1;
		if (large) {
			psize = TLB_4M;
			e->pa_known = false;	/* PSE-36: bits 32-39 are not printed */
		}
		pamask = 0xffffffffULL;
		break;
	case PAGING_PAE:
		/* the printed entry keeps NX and the bits above the address */
		if (va >> 32)
			return -1;
		psize = large ? TLB_2M : TLB_4K;
		pamask = 0x000fffffffffffffULL;
		break;
	case PAGING_4LEVEL:
	case PAGING_5LEVEL:
		if (!canonical(va, p->mode == PAGING_4LEVEL ? 48 : 57) || pa & ~0x3fffffffff000ULL)
			return -1;
		psize = large ? TLB_2M : TLB_4K;
		if (large && !(va & (TLB_1G - 1)) && !(pa & (TLB_1G - 1)))
			e->size_known = false;	/* 2 MiB or 1 GiB */
		pamask = 0x3fffffffff000ULL;
		break;
	default:
		return -1;
	}
	if (va & (psize - 1))
		return -1;
	pa &= pamask & ~(psize - 1);
	e->va = va;
	e->pa = pa;
	e->size = psize;
	return 0;
}

int tlb_scan(const char *text, const struct cpu_paging *p, tlb_fn fn, void *ctx,
	     char *err, size_t errlen)
{
	struct tlb_entry prev, cur;
	bool have = false;
	long lines = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[128];
		int rc;

		lines++;
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "info tlb line %ld is not a mapping (%zu bytes)",
				 lines, len);
			return -1;
		}
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;
		if (!*skip_line_end(buf))
			continue;
		if (parse_tlb_line(buf, p, &cur)) {
			snprintf(err, errlen, "info tlb line %ld is not a %s mapping: %.60s", lines,
				 paging_name(p->mode), buf);
			return -1;
		}
		if (have) {
			/* QEMU walks the tables in order: each line past the last */
			if (cur.va <= prev.va || cur.va - prev.va < prev.size) {
				snprintf(err, errlen, "info tlb line %ld (va %#" PRIx64 ") is not "
					 "past the page before it (va %#" PRIx64 ")", lines, cur.va,
					 prev.va);
				return -1;
			}
			/* something else mapped in its GiB: a 2 MiB page */
			if (!prev.size_known && cur.va - prev.va < TLB_1G)
				prev.size_known = true;
			rc = fn(ctx, &prev);
			if (rc)
				return rc;
		}
		prev = cur;
		have = true;
	}
	if (!have) {
		snprintf(err, errlen, "info tlb lists no mappings");
		return -1;
	}
	return fn(ctx, &prev);
}

#define PT_PRESENT	0x1ULL
#define PT_PS		0x80ULL
#define PT_ADDR		0x3fffffffff000ULL	/* as QEMU's walk masks it */

int tlb_resolve(const struct cpu_paging *p, struct tlb_entry *e, phys_read_fn rd, void *ctx)
{
	uint64_t table, ent, va = e->va;

	if (p->mode == PAGING_2LEVEL && !e->pa_known) {
		uint64_t low = e->pa;

		if (rd(ctx, (p->cr3 & 0xfffff000ULL) + (va >> 22) * 4, 4, &ent) ||
		    (ent & (PT_PRESENT | PT_PS)) != (PT_PRESENT | PT_PS) ||
		    (ent & 0xffc00000ULL) != low)
			return -1;
		e->pa = (ent & 0xffc00000ULL) | ((ent >> 13) & 0xff) << 32;
		e->pa_known = true;
		return 0;
	}
	if (p->mode < PAGING_4LEVEL || e->size_known)
		return e->pa_known && e->size_known ? 0 : -1;
	table = p->cr3 & PT_ADDR;
	for (int shift = p->mode == PAGING_5LEVEL ? 48 : 39; shift >= 21; shift -= 9) {
		if (rd(ctx, table + ((va >> shift) & 511) * 8, 8, &ent) || !(ent & PT_PRESENT))
			return -1;
		if (shift == 30 && (ent & PT_PS)) {
			if ((ent & 0x3ffffc0000000ULL) != e->pa)
				return -1;
			e->size = TLB_1G;
			e->size_known = true;
			return 0;
		}
		if (shift == 21) {
			if (!(ent & PT_PS) || (ent & 0x3ffffffe00000ULL) != e->pa)
				return -1;
			e->size = TLB_2M;
			e->size_known = true;
			return 0;
		}
		if (ent & PT_PS)	/* a large page above the PDPT: reserved */
			return -1;
		table = ent & PT_ADDR;
	}
	return -1;
}

uint64_t user_top(enum paging mode)
{
	switch (mode) {
	case PAGING_4LEVEL: return 0x0000800000000000ULL;
	case PAGING_5LEVEL: return 0x0100000000000000ULL;
	default: return 0;
	}
}

/* VMSPLIT_3G, 3G_OPT, 2G, 2G_OPT, 1G */
const uint64_t audit_page_offsets[AUDIT_N_PAGE_OFFSETS] = {
	0xc0000000ULL, 0xb0000000ULL, 0x80000000ULL, 0x78000000ULL, 0x40000000ULL,
};

void page_offset_vote(struct page_offset_votes *v, const struct tlb_entry *e)
{
	if (e->flags[TLB_FLAG_U] == 'U' || e->pa >> 32 || e->va >> 32)
		return;
	for (int i = 0; i < AUDIT_N_PAGE_OFFSETS; i++)
		if (e->va >= audit_page_offsets[i] && e->va - audit_page_offsets[i] == e->pa)
			v->bytes[i] += e->size;
}

uint64_t page_offset_infer(const struct page_offset_votes *v)
{
	int best = -1;
	bool tie = false;

	for (int i = 0; i < AUDIT_N_PAGE_OFFSETS; i++) {
		if (best < 0 || v->bytes[i] > v->bytes[best]) {
			best = i;
			tie = false;
		} else if (v->bytes[i] == v->bytes[best]) {
			tie = true;
		}
	}
	return tie || v->bytes[best] < (1ULL << 20) ? 0 : audit_page_offsets[best];
}

enum audit_kind audit_classify(const struct tlb_entry *e, uint64_t top)
{
	if (e->flags[TLB_FLAG_U] != 'U')
		return KIND_KERNEL;
	if (top)
		return e->va < top ? KIND_USER : KIND_KERNEL;
	/* below the lowest PAGE_OFFSET of any VMSPLIT, it is user space whatever the split */
	return e->va + e->size <= audit_page_offsets[AUDIT_N_PAGE_OFFSETS - 1] ?
		KIND_USER : KIND_UNDECIDED;
}

uint64_t aperture_overlap(uint64_t pa, uint64_t size, const struct aperture *ap, int nap)
{
	uint64_t part[2 * AUDIT_MAX_APERTURES][2], last = pa + (size - 1), sum = 0;
	int n = 0;

	if (!size)
		return 0;
	if (last < pa)
		last = UINT64_MAX;
	for (int a = 0; a < nap && n < 2 * AUDIT_MAX_APERTURES; a++) {
		uint64_t s = ap[a].start > pa ? ap[a].start : pa;
		uint64_t e = ap[a].end < last ? ap[a].end : last;
		int i;

		if (s > e)
			continue;
		/* insert, sorted by start */
		for (i = n; i > 0 && part[i - 1][0] > s; i--) {
			part[i][0] = part[i - 1][0];
			part[i][1] = part[i - 1][1];
		}
		part[i][0] = s;
		part[i][1] = e;
		n++;
	}
	for (int i = 0; i < n;) {
		uint64_t s = part[i][0], e = part[i][1];

		for (i++; i < n && part[i][0] <= e + 1 && e != UINT64_MAX; i++)
			if (part[i][1] > e)
				e = part[i][1];
		sum += e - s + 1;
	}
	return sum;
}

static int live_cmp(const void *a, const void *b)
{
	const struct live_range *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

long parse_live(const char *text, struct live_range **out)
{
	struct live_range *r = NULL;
	size_t n = 0, cap = 0, m = 0;

	for (const char *line = text; line && *line;) {
		unsigned long long va, np;

		if (sscanf(line, "%llx %llu", &va, &np) == 2 && np) {
			if (n == cap) {
				struct live_range *more;

				cap = cap ? cap * 2 : 64;
				more = realloc(r, cap * sizeof(*r));
				if (!more) {
					free(r);
					*out = NULL;
					return -1;
				}
				r = more;
			}
			r[n].va = va;
			r[n].npages = np > (UINT64_MAX - va) / 4096 ? (UINT64_MAX - va) / 4096 : np;
			if (r[n].npages)
				n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (n)
		qsort(r, n, sizeof(*r), live_cmp);
	/* merge overlapping and adjacent ranges: live_covers() looks in one */
	for (size_t i = 0; i < n; i++) {
		uint64_t end = r[i].va + r[i].npages * 4096;	/* exclusive; no overflow (clamped) */

		if (m && r[i].va <= r[m - 1].va + r[m - 1].npages * 4096) {
			uint64_t prev_end = r[m - 1].va + r[m - 1].npages * 4096;

			/* rounded down: a page not wholly live is not live */
			if (end > prev_end)
				r[m - 1].npages = (end - r[m - 1].va) / 4096;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return (long)m;
}

bool live_covers(const struct live_range *r, long n, uint64_t va, uint64_t len)
{
	long lo = 0, hi = n - 1, at = -1;

	if (!len)
		return true;
	while (lo <= hi) {		/* the last range starting at or before va */
		long mid = lo + (hi - lo) / 2;

		if (r[mid].va <= va) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (at < 0)
		return false;
	/* inclusive ends: no overflow at the top of the address space */
	return va + (len - 1) >= va &&
		va - r[at].va + (len - 1) <= r[at].npages * 4096 - 1;
}
