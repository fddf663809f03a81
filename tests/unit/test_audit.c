// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit's parsers and QMP reader (tools/host/audit/audit_parse.h), one
 * KTAP test per behaviour; built with ASan + UBSan (test_audit) and
 * without, for valgrind (test_audit_plain). The auditor as a whole, over
 * fake QMP servers: tests/unit/test_audit.py.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_parse.h"
#include <kselftest.h>

static int failures;

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: %s\n", __func__, __LINE__, #cond);		\
		failures++;							\
	}									\
} while (0)

/* --- a byte source that hands out a string in chunks ----------------------------- */

struct source {
	const char *data;
	size_t len, pos;
	const size_t *chunks;	/* sizes, cycled; NULL: all that fits */
	size_t nchunks, next;
	size_t asked;		/* bytes the reader asked for, in all */
	int fail_at;		/* return -EIO at this read (-1: never) */
	int reads;
};

static long source_read(void *ctx, char *buf, size_t len)
{
	struct source *s = ctx;
	size_t n = s->len - s->pos;

	if (s->reads++ == s->fail_at)
		return -EIO;
	s->asked += len;
	if (s->chunks && n > s->chunks[s->next % s->nchunks])
		n = s->chunks[s->next++ % s->nchunks];
	if (n > len)
		n = len;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (long)n;
}

static struct source from(const char *data, size_t len)
{
	return (struct source){ .data = data, .len = len, .fail_at = -1 };
}

/* --- qmp_reader ------------------------------------------------------------------ */

static const char stream[] =
	"{\"QMP\": {\"version\": {}, \"capabilities\": [\"oob\"]}}\r\n"
	"{\"return\": {}}\r\n"
	"{\"event\": \"RTC_CHANGE\", \"data\": {\"offset\": 1}}\r\n"
	"{\"return\": \"line one\\r\\nline two\\r\\n\"}\r\n"
	"{\"error\": {\"class\": \"GenericError\", \"desc\": \"no \\\"such\\\" command\"}}\n";

static void qmp_reader_any_chunking(void)
{
	static const size_t c1[] = { 1 }, c2[] = { 2, 3, 7 }, c3[] = { 4096 }, c4[] = { 5, 1, 64 };
	static const struct { const size_t *c; size_t n; } plans[] = {
		{ c1, 1 }, { c2, 3 }, { c3, 1 }, { c4, 3 }, { NULL, 0 },
	};
	const char *want[] = {
		"{\"QMP\": {\"version\": {}, \"capabilities\": [\"oob\"]}}",
		"{\"return\": {}}",
		"{\"event\": \"RTC_CHANGE\", \"data\": {\"offset\": 1}}",
		"{\"return\": \"line one\\r\\nline two\\r\\n\"}",
		"{\"error\": {\"class\": \"GenericError\", \"desc\": \"no \\\"such\\\" command\"}}",
	};
	int before = failures;

	for (size_t p = 0; p < sizeof(plans) / sizeof(plans[0]); p++) {
		struct source s = from(stream, strlen(stream));
		struct qmp_reader r;
		char *line;
		int errnum;

		s.chunks = plans[p].c;
		s.nchunks = plans[p].n;
		qmp_reader_init(&r, source_read, &s, 4096);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_OK);
			CHECK(line && !strcmp(line, want[i]));
			free(line);
		}
		CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_CLOSED && !line);
		qmp_reader_free(&r);
	}
	ksft_test_result(failures == before, "%s\n", "qmp_reader_any_chunking");
}

static void qmp_reader_fails_closed(void)
{
	int before = failures, errnum;
	struct qmp_reader r;
	struct source s;
	char *line, *big;
	size_t n = 4 << 20;

	/* the stream ends inside a line: cut short, never a shorter line */
	s = from("{\"return\": \"abc", 15);
	qmp_reader_init(&r, source_read, &s, 4096);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_CUT && !line);
	CHECK(r.line_bytes == 15);
	qmp_reader_free(&r);

	/* over the limit, with no newline in 4 MiB: stops at once, having read little */
	big = malloc(n);
	memset(big, 'x', n);
	s = from(big, n);
	qmp_reader_init(&r, source_read, &s, 100000);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_TOO_LONG && !line);
	CHECK(s.pos <= 100000 + 65536 + 1);
	qmp_reader_free(&r);
	/* a whole line just over the limit, and one at it */
	big[100001] = '\n';
	s = from(big, 100002);
	qmp_reader_init(&r, source_read, &s, 100000);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_TOO_LONG);
	qmp_reader_free(&r);
	big[100000] = '\n';
	s = from(big, 100001);
	qmp_reader_init(&r, source_read, &s, 100000);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_OK && line && strlen(line) == 100000);
	free(line);
	qmp_reader_free(&r);
	free(big);

	/* a NUL byte */
	s = from("{\"return\": \"a\0b\"}\n", 18);
	qmp_reader_init(&r, source_read, &s, 4096);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_NUL && !line);
	qmp_reader_free(&r);

	/* the source fails */
	s = from(stream, strlen(stream));
	s.fail_at = 0;
	qmp_reader_init(&r, source_read, &s, 4096);
	CHECK(qmp_read_line(&r, &line, &errnum) == QMP_READ_IO && errnum == EIO);
	qmp_reader_free(&r);
	ksft_test_result(failures == before, "%s\n", "qmp_reader_fails_closed");
}

/* qmp_next_reply() over @data: its status, *text, and @err */
static int reply(const char *data, char **text, char *err)
{
	struct source s = from(data, strlen(data));
	struct qmp_reader r;
	int rc;

	qmp_reader_init(&r, source_read, &s, 4096);
	rc = qmp_next_reply(&r, text, err, 256);
	qmp_reader_free(&r);
	return rc;
}

static void qmp_replies_decoded_or_refused(void)
{
	int before = failures;
	char *text, err[256];

	CHECK(reply(stream, &text, err) == 0 && !text);	/* {"return": {}} after the greeting */
	CHECK(reply("{\"event\": \"X\"}\n{\"return\": \"caf\\u00e9 \\ud83d\\ude00 \\\"\\\\\\/\\b\\f\\n\\r\\t\"}\n",
		    &text, err) == 0);
	CHECK(text && !strcmp(text, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"\\/\b\f\n\r\t"));
	free(text);
	CHECK(reply("{\"error\": {\"class\": \"X\", \"desc\": \"no \\u0001\"}}\n", &text, err) == 1);
	CHECK(!strcmp(err, "QMP error: no \x01"));
	/* refused: an escaped NUL, raw control bytes, lone surrogates, bad escapes, garbage after */
	static const char *bad[] = {
		"{\"return\": \"a\\u0000b\"}\n", "{\"return\": \"a\tb\"}\n",
		"{\"return\": \"\\ud83d\"}\n", "{\"return\": \"\\ude00\"}\n",
		"{\"return\": \"\\x41\"}\n", "{\"return\": \"\\u12\"}\n",
		"{\"return\": \"abc\"} trailing\n", "{\"return\": \"abc\", \"x\": 1}\n",
		"{\"return\": \"abc\n", "not json\n", "{\"return\":\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(reply(bad[i], &text, err) == -1 && !text);
		CHECK(!strncmp(err, "malformed QMP reply", 19));
	}
	CHECK(reply("{\"return\": \"abc", &text, err) == -1 && strstr(err, "cut short"));
	CHECK(reply("", &text, err) == -1 && strstr(err, "closed before the reply"));
	ksft_test_result(failures == before, "%s\n", "qmp_replies_decoded_or_refused");
}

/* --- json_quote ------------------------------------------------------------------ */

static bool printable_ascii(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* json_quote(@s) read back by the QMP parser: @s again? */
static bool round_trip(const char *s, size_t n, bool *lossy)
{
	char *q = json_quote(s, n, lossy), *line, *text = NULL;
	bool ok;

	if (!q || !printable_ascii(q)) {
		free(q);
		return false;
	}
	if (asprintf(&line, "{\"return\": %s}", q) < 0) {
		free(q);
		return false;
	}
	ok = qmp_classify(line, &text) == QMP_RETURN && text && strlen(text) == n &&
	     !memcmp(text, s, n);
	free(text);
	free(line);
	free(q);
	return ok;
}

static void json_quote_every_byte(void)
{
	static const char *valid[] = {
		"plain", "\"quoted\" \\ back/slash", "caf\xc3\xa9", "\xe2\x82\xac\xef\xbf\xbf",
		"\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf", "\x7f\x01\x1b[31m\n\r\t\b\f", "",
	};
	static const char *invalid[] = {
		"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
		"a\x80z",
	};
	int before = failures;
	bool lossy;

	for (int b = 1; b < 256; b++) {
		char c = (char)b;
		char *q = json_quote(&c, 1, &lossy);

		CHECK(q && printable_ascii(q));
		CHECK(lossy == (b >= 0x80));
		if (b < 0x80)
			CHECK(round_trip(&c, 1, &lossy));
		else
			CHECK(q && !strcmp(q, "\"\\ufffd\""));
		free(q);
	}
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		CHECK(round_trip(valid[i], strlen(valid[i]), &lossy));
		CHECK(!lossy);
	}
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		char *q = json_quote(invalid[i], strlen(invalid[i]), &lossy);

		CHECK(q && printable_ascii(q) && lossy && strstr(q, "\\ufffd"));
		free(q);
	}
	ksft_test_result(failures == before, "%s\n", "json_quote_every_byte");
}

/* --- info registers, pci, cpus, xp ------------------------------------------------------ */

static void info_text_parsed_strictly(void)
{
	static const struct {
		const char *text;
		int rc;
		enum paging mode;
		uint64_t cr3;
	} regs[] = {
		{ "CR0=80050033 CR2=b7f00000 CR3=07fd3000 CR4=00000690\nEFER=0000000000000000\n",
		  0, PAGING_2LEVEL, 0x07fd3000 },
		{ "CR0=80050033 CR2=b7f00000 CR3=07fd3000 CR4=000006b0\r\nEFER=0000000000000800\r\n",
		  0, PAGING_PAE, 0x07fd3000 },
		{ "CR0=80050033 CR2=0 CR3=0000000102a4e000 CR4=00350ef0\nEFER=0000000000000d01\n",
		  0, PAGING_4LEVEL, 0x102a4e000 },
		{ "CR0=80050033 CR2=0 CR3=0000000102a4e000 CR4=00351ef0\nEFER=0000000000000d01\n",
		  0, PAGING_5LEVEL, 0x102a4e000 },
		{ "CR0=60000010 CR2=00000000 CR3=00000000 CR4=00000000\nEFER=0000000000000000\n",
		  0, PAGING_OFF, 0 },
		{ "CR0=80050033 CR3=1000 CR4=00000690\n", -1, 0, 0 },		/* no EFER */
		{ "CR0=80050033 CR3=1000 CR4=690 CR4=6b0 EFER=0\n", -1, 0, 0 },	/* twice */
		{ "CR0=80050033 CR3=1000 CR4=00000690 EFER=400\n", -1, 0, 0 },	/* LMA, no PAE */
		{ "CR0=80050033 CR3=zz CR4=00000690 EFER=0\n", -1, 0, 0 },
	};
	struct aperture ap[2];
	int before = failures, idx[4];
	struct cpu_paging p;
	uint64_t v;
	char *pci = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&pci, &len);

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		int rc = parse_info_registers(regs[i].text, &p);

		CHECK(rc == regs[i].rc);
		if (!rc && rc == regs[i].rc)
			CHECK(p.mode == regs[i].mode && p.cr3 == regs[i].cr3);
	}
	/* ten apertures: all counted, two stored */
	for (int i = 0; i < 10; i++)
		fprintf(f, "  Bus  0, device %d, function 0:\n    RAM controller: PCI device 1af4:1110\n"
			   "      BAR2: 64 bit prefetchable memory at 0x%x00000000 [0x%x3fffffff].\n",
			i + 3, i + 1, i + 1);
	fclose(f);
	CHECK(parse_info_pci(pci, ap, 2) == 10);
	CHECK(ap[1].start == 0x200000000ULL && ap[1].end == 0x23fffffffULL);
	free(pci);
	CHECK(parse_info_cpus("* CPU #0: thread_id=1\r\n  CPU #2: thread_id=3\r\n", idx, 4) == 2);
	CHECK(idx[0] == 0 && idx[1] == 2);
	CHECK(parse_info_cpus("* CPU #0: thread_id=1\r\nsomething else\r\n", idx, 4) == -1);
	CHECK(parse_xp("0000000001000ff8: 0x0000000002000063\r\n", 0x1000ff8, &v) == 0 &&
	      v == 0x2000063);
	CHECK(parse_xp("0000000001000ff8: Cannot access memory\r\n", 0x1000ff8, &v) == -1);
	CHECK(parse_xp("0000000001000ff0: 0x0000000002000063\r\n", 0x1000ff8, &v) == -1);
	ksft_test_result(failures == before, "%s\n", "info_text_parsed_strictly");
}

/* --- info tlb ------------------------------------------------------------------------ */

static void tlb_lines_by_mode(void)
{
	static const struct {
		enum paging mode;
		const char *line;
		int rc;
		uint64_t va, pa, size;
		bool size_known, pa_known;
	} t[] = {
		{ PAGING_2LEVEL, "00000000c0000000: 0000000000000000 -GPDA---W", 0,
		  0xc0000000, 0, 4 << 20, true, false },
		{ PAGING_2LEVEL, "00000000e0814000: 00000000a905a000 -G-DAC--W", 0,
		  0xe0814000, 0xa905a000, 4096, true, true },
		{ PAGING_2LEVEL, "00000000c0000000: 00000000c0200000 -GPDA---W", 0,	/* bit 21 */
		  0xc0000000, 0xc0000000, 4 << 20, true, false },
		{ PAGING_2LEVEL, "00000000c0200000: 0000000000000000 -GPDA---W", -1, 0, 0, 0, false, false },	/* unaligned */
		{ PAGING_2LEVEL, "00000000c0000000: 0000000000000000 XG-DA---W", -1, 0, 0, 0, false, false },	/* NX */
		{ PAGING_PAE, "00000000f8000000: 80000000d0000000 XGPDA---W", 0,
		  0xf8000000, 0xd0000000, 2 << 20, true, true },
		{ PAGING_PAE, "00000000f8001000: 8000000100000000 XG-DA---W", 0,
		  0xf8001000, 0x100000000, 4096, true, true },
		{ PAGING_PAE, "0000000100000000: 0000000000000000 -G-DA---W", -1, 0, 0, 0, false, false },	/* va > 4G */
		{ PAGING_4LEVEL, "ffff888100000000: 0000000100000000 XGPDA---W", 0,
		  0xffff888100000000, 0x100000000, 2 << 20, false, true },
		{ PAGING_4LEVEL, "ffffc90040000000: 0000000140200000 XGPDA---W", 0,
		  0xffffc90040000000, 0x140200000, 2 << 20, true, true },
		{ PAGING_4LEVEL, "00007f0000000000: 0000000800000000 ---DA--UW", 0,
		  0x7f0000000000, 0x800000000, 4096, true, true },
		{ PAGING_4LEVEL, "ff11000100000000: 0000000100000000 XGPDA---W", -1, 0, 0, 0, false, false },	/* 57-bit */
		{ PAGING_5LEVEL, "ff11000100000000: 0000000100000000 XGPDA---W", 0,
		  0xff11000100000000, 0x100000000, 2 << 20, false, true },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA---Wx", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA---", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA--W-", -1, 0, 0, 0, false, false },	/* order */
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-\"A---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 00000008000", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000:0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "1ffffc90000400000: 0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0040000800005000 XG-DA---W", -1, 0, 0, 0, false, false },	/* > 50 bits */
		{ PAGING_OFF, "ffffc90000400000: 0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
	};
	int before = failures;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cpu_paging p = { .mode = t[i].mode, .pse = true };
		struct tlb_entry e;
		int rc = parse_tlb_line(t[i].line, &p, &e);

		if (rc != t[i].rc) {
			printf("# %s: %s: rc %d\n", paging_name(t[i].mode), t[i].line, rc);
			failures++;
			continue;
		}
		if (rc)
			continue;
		if (e.va != t[i].va || e.pa != t[i].pa || e.size != t[i].size ||
		    e.size_known != t[i].size_known || e.pa_known != t[i].pa_known) {
			printf("# %s: %s: va %#" PRIx64 " pa %#" PRIx64 " size %#" PRIx64 " %d %d\n",
			       paging_name(t[i].mode), t[i].line, e.va, e.pa, e.size, e.size_known,
			       e.pa_known);
			failures++;
		}
	}
	ksft_test_result(failures == before, "%s\n", "tlb_lines_by_mode");
}

struct collected {
	struct tlb_entry e[16];
	int n;
};

static int collect(void *ctx, const struct tlb_entry *e)
{
	struct collected *c = ctx;

	if (c->n < 16)
		c->e[c->n] = *e;
	c->n++;
	return 0;
}

static void tlb_scan_settles_or_refuses(void)
{
	struct cpu_paging p = { .mode = PAGING_4LEVEL };
	struct collected c = { .n = 0 };
	char err[256];
	int before = failures;

	/* a 2 MiB page with something else in its GiB; one with nothing: unsettled */
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\r\n"
		       "ffffc90040200000: 0000000000001000 XG-DA---W\r\n"
		       "\r\n"
		       "ffffc90080000000: 0000000180000000 XGPDA---W\r\n", &p, collect, &c,
		       err, sizeof(err)) == 0);
	CHECK(c.n == 3 && c.e[0].size_known && c.e[0].size == TLB_2M && c.e[1].size == TLB_4K &&
	      !c.e[2].size_known);
	/* out of order, overlapping, a stray line, nothing: refused */
	CHECK(tlb_scan("ffffc90040200000: 0000000000001000 XG-DA---W\n"
		       "ffffc90040000000: 0000000140000000 XGPDA---W\n", &p, collect, &c, err,
		       sizeof(err)) == -1 && strstr(err, "not past"));
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\n"
		       "ffffc90040100000: 0000000000001000 XG-DA---W\n", &p, collect, &c, err,
		       sizeof(err)) == -1 && strstr(err, "not past"));
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\nhello\n", &p, collect, &c,
		       err, sizeof(err)) == -1 && strstr(err, "line 2 is not a 4-level mapping"));
	CHECK(tlb_scan("\r\n", &p, collect, &c, err, sizeof(err)) == -1 &&
	      strstr(err, "no mappings"));
	ksft_test_result(failures == before, "%s\n", "tlb_scan_settles_or_refuses");
}

/* guest-physical memory for tlb_resolve(): a few entries */
struct phys {
	uint64_t addr[8], val[8];
	int n, reads;
};

static int phys_read(void *ctx, uint64_t addr, int bytes, uint64_t *val)
{
	struct phys *m = ctx;

	m->reads++;
	for (int i = 0; i < m->n; i++)
		if (m->addr[i] == addr) {
			*val = bytes == 4 ? m->val[i] & 0xffffffff : m->val[i];
			return 0;
		}
	return -1;
}

static void tlb_resolve_reads_the_entries(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 };
	struct cpu_paging p5 = { .mode = PAGING_5LEVEL, .cr3 = 0x1000 };
	struct cpu_paging p2 = { .mode = PAGING_2LEVEL, .cr3 = 0x1000, .pse = true };
	uint64_t va = 0xffff888100000000ULL;
	/* PML4 index 273, PDPT index 4 */
	struct phys m = { .n = 3,
		.addr = { 0x1000 + 273 * 8, 0x2000 + 4 * 8, 0x3000 },
		.val = { 0x2063, 0x1000000e3ULL | (1ULL << 63), 0 } };
	struct tlb_entry e = { .va = va, .pa = 0x100000000ULL, .size = TLB_2M,
			       .size_known = false, .pa_known = true };
	int before = failures;

	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == 0 && e.size == TLB_1G && e.size_known);
	/* a PDPTE that points to a page directory whose entry maps 2 MiB */
	m.val[1] = 0x3063;
	m.addr[2] = 0x3000;
	m.val[2] = 0x1000000e3ULL;
	e.size = TLB_2M;
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == 0 && e.size == TLB_2M && e.size_known);
	/* an entry that does not map what info tlb said, or cannot be read */
	m.val[2] = 0x1002000e3ULL;
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == -1);
	m.val[0] = 0x2062;	/* not present */
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == -1);
	e.size_known = false;
	CHECK(tlb_resolve(&p5, &e, phys_read, &m) == -1);	/* no PML5 entry */
	/* 5-level: va 0xff11000100000000: PML5 index 273, PML4 0, PDPT 4 */
	m = (struct phys){ .n = 3,
		.addr = { 0x1000 + 273 * 8, 0x2000, 0x3000 + 4 * 8 },
		.val = { 0x2063, 0x3063, 0x1000000e3ULL } };
	e = (struct tlb_entry){ .va = 0xff11000100000000ULL, .pa = 0x100000000ULL,
				.size = TLB_2M, .pa_known = true };
	CHECK(tlb_resolve(&p5, &e, phys_read, &m) == 0 && e.size == TLB_1G && m.reads == 3);
	/* 2-level, PSE-36: the PDE's bits 13-20 are the address's 32-39 */
	m = (struct phys){ .n = 1, .addr = { 0x1000 + (0xa0400000 >> 22) * 4 },
			   .val = { 0xe0000000 | 1 << 13 | 0x1e3 } };
	e = (struct tlb_entry){ .va = 0xa0400000, .pa = 0xe0000000, .size = TLB_4M,
				.size_known = true };
	CHECK(tlb_resolve(&p2, &e, phys_read, &m) == 0 && e.pa == 0x1e0000000ULL && e.pa_known);
	ksft_test_result(failures == before, "%s\n", "tlb_resolve_reads_the_entries");
}

static void user_kernel_split(void)
{
	struct tlb_entry user = { .va = 0xa0000000, .size = 4096, .flags = "---DA--UW" };
	struct tlb_entry kern = { .va = 0x400000, .size = 4096, .flags = "---DA---W" };
	struct page_offset_votes v = { { 0 } };
	int before = failures;

	CHECK(audit_classify(&user, 0xb0000000) == KIND_USER);
	CHECK(audit_classify(&user, 0x80000000) == KIND_KERNEL);	/* U, kernel half */
	CHECK(audit_classify(&user, 0) == KIND_UNDECIDED);		/* PAGE_OFFSET unknown */
	user.va = 0x3ffff000;
	CHECK(audit_classify(&user, 0) == KIND_USER);			/* below any split */
	CHECK(audit_classify(&kern, user_top(PAGING_4LEVEL)) == KIND_KERNEL);	/* no U */
	user.va = 0x00ff000000000000ULL;
	CHECK(audit_classify(&user, user_top(PAGING_5LEVEL)) == KIND_USER);
	CHECK(audit_classify(&user, user_top(PAGING_4LEVEL)) == KIND_KERNEL);
	/* the direct map says PAGE_OFFSET; a user mapping's vote does not count */
	for (uint64_t pa = 0; pa < (64 << 20); pa += 4 << 20)
		page_offset_vote(&v, &(struct tlb_entry){ .va = 0x78000000 + pa, .pa = pa,
							  .size = 4 << 20, .flags = "-GPDA---W" });
	for (uint64_t pa = 0; pa < (128 << 20); pa += 4 << 20)
		page_offset_vote(&v, &(struct tlb_entry){ .va = 0xc0000000 + pa, .pa = pa,
							  .size = 4 << 20, .flags = "--PDA--UW" });
	CHECK(page_offset_infer(&v) == 0x78000000);
	memset(&v, 0, sizeof(v));
	CHECK(page_offset_infer(&v) == 0);
	ksft_test_result(failures == before, "%s\n", "user_kernel_split");
}

static void overlap_and_live_ranges(void)
{
	struct aperture ap[3] = {
		{ .start = 0xd0300000, .end = 0xd03fffff },
		{ .start = 0xd0380000, .end = 0xd04fffff },	/* overlaps the first */
		{ .start = 0xe0000000, .end = 0xe0ffffff },
	};
	struct live_range *r;
	long n;
	int before = failures;

	CHECK(aperture_overlap(0xd0000000, TLB_4M, ap, 3) == 1 << 20);	/* counted once */
	CHECK(aperture_overlap(0xd0000000, TLB_2M, ap, 3) == 0);
	CHECK(aperture_overlap(0xc0000000, TLB_1G, ap, 3) == (2 << 20) + (16 << 20));
	CHECK(aperture_overlap(0xfffffffffffff000ULL, 4096, ap, 3) == 0);
	n = parse_live("ffffc90000800000 4 wc\nffffc90000802000 4 wc\n"
		       "ffffc90000400000 1 slot\nnonsense\nffffc90000900000 0 wc\n", &r);
	CHECK(n == 2);
	CHECK(live_covers(r, n, 0xffffc90000800000ULL, 6 * 4096));
	CHECK(!live_covers(r, n, 0xffffc90000800000ULL, 7 * 4096));
	CHECK(live_covers(r, n, 0xffffc90000400000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffc90000401000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffc900003ff000ULL, 2 * 4096));
	CHECK(!live_covers(r, n, 0xfffffffffffff000ULL, 0x2000));	/* wraps */
	free(r);
	/* clamped at the top of the address space (whose last page cannot end) */
	n = parse_live("ffffffffffffe000 99999999 wc\n", &r);
	CHECK(n == 1 && live_covers(r, n, 0xffffffffffffe000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffffffffffe000ULL, 0x2000));
	free(r);
	ksft_test_result(failures == before, "%s\n", "overlap_and_live_ranges");
}

/* --- the page tables, read and walked ---------------------------------------------- */

static void xp_tables_parsed_strictly(void)
{
	uint64_t v[1024];
	int before = failures;

	CHECK(parse_xp_table("0000000000104000: 0x0000000000105027 0x0000000000000000\r\n"
			     "0000000000104010: 0x8000000000000063 0x0000000000000001\r\n",
			     0x104000, 8, 4, v) == 0 &&
	      v[0] == 0x105027 && v[2] == 0x8000000000000063ULL && v[3] == 1);
	CHECK(parse_xp_table("0000000000001000: 0xf000ff53 0x00000001 0x00000002 0x00000003\r\n"
			     "0000000000001010: 0xdeadbeef\r\n", 0x1000, 4, 5, v) == 0 &&
	      v[0] == 0xf000ff53 && v[4] == 0xdeadbeef);
	/* an odd count ends with a short line */
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\n"
			     "0000000000002010: 0x0000000000000003\n", 0x2000, 8, 3, v) == 0);
	CHECK(parse_xp_table("0000000007fffff8: Cannot access memory\r\n", 0x7fffff8, 8, 512, v) ==
	      XP_NOT_MEMORY);
	/* what QEMU read before memory ended does not make a table */
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\r\n"
			     "0000000000002010: Cannot access memory\r\n", 0x2000, 8, 4, v) ==
	      XP_NOT_MEMORY);
	/* refused: another address, a value short of its width, one missing, one too many, text after */
	CHECK(parse_xp_table("0000000000003000: 0x0000000000000001 0x0000000000000002\r\n",
			     0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x1 0x0000000000000002\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002 "
			     "0x0000000000000003\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\r\nmore\r\n",
			     0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002", 0x2000, 8,
			     2, v) == -1);	/* no line end: cut short */
	CHECK(parse_xp_table("", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x00000001\r\n", 0x2000, 8, 1, v) == -1);
	ksft_test_result(failures == before, "%s\n", "xp_tables_parsed_strictly");
}

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

static void guest_ram_from_mtree(void)
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
	CHECK(parse_pci_bars("      BAR2: 64 bit memory at 0x1000 [0x1fff]\n", bar, 8) == -1);
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
	ksft_test_result(failures == before, "%s\n", "guest_ram_from_mtree");
}

/* guest-physical memory for the walker: entries by address, the rest zero */
#define MEM_MAX	64
struct mem {
	uint64_t addr[MEM_MAX], val[MEM_MAX];
	int n, reads;
	uint64_t no_memory, fail;	/* a table address QEMU says is no memory; one whose read fails */
	struct phys_range ram[2];	/* the walker's guest RAM; none: all of it */
	int nram;
	int outside;			/* reads that left it */
};

static void poke(struct mem *m, uint64_t addr, uint64_t val)
{
	m->addr[m->n] = addr;
	m->val[m->n++] = val;
}

static int mem_read(void *ctx, uint64_t addr, int bytes, int count, uint64_t *vals)
{
	struct mem *m = ctx;

	m->reads++;
	if (m->nram && !ram_holds(m->ram, m->nram, addr, (uint64_t)count * (uint64_t)bytes))
		m->outside++;
	if (addr == m->no_memory)
		return XP_NOT_MEMORY;
	if (addr == m->fail)
		return -1;
	for (int i = 0; i < count; i++) {
		vals[i] = 0;
		for (int k = 0; k < m->n; k++)
			if (m->addr[k] == addr + (uint64_t)i * (uint64_t)bytes)
				vals[i] = bytes == 4 ? m->val[k] & 0xffffffff : m->val[k];
	}
	return 0;
}

struct leaves {
	struct tlb_entry e[32];
	int n;
};

static int leaf_of(void *ctx, const struct tlb_entry *e)
{
	struct leaves *l = ctx;

	if (l->n < 32)
		l->e[l->n] = *e;
	l->n++;
	return 0;
}

/* Walk @p's tables in @m: 0 and the leaves, or -1. */
static int walk(struct mem *m, const struct cpu_paging *p, struct walk_roots *r, struct leaves *l,
		size_t max_tables)
{
	struct walker w;
	int rc;

	static const struct phys_range all = { 0, (1ULL << 52) - 1 };

	memset(l, 0, sizeof(*l));
	walker_init(&w, mem_read, m, max_tables);
	w.ram = m->nram ? m->ram : &all;
	w.nram = m->nram ? m->nram : 1;
	rc = walk_roots(&w, p, r);
	if (!rc)
		rc = walk_tables(&w, p, r, leaf_of, l);
	if (rc && !w.err[0])
		rc = -99;	/* a failure that does not say why */
	walker_free(&w);
	return rc;
}

static bool leaf_is(const struct tlb_entry *e, uint64_t va, uint64_t pa, uint64_t size, int pat,
		    const char *flags)
{
	return e->va == va && e->pa == pa && e->size == size && e->pat == pat &&
	       !strcmp(e->flags, flags) && e->size_known && e->pa_known;
}

static void walk_each_mode(void)
{
	struct cpu_paging p2 = { .mode = PAGING_2LEVEL, .cr3 = 0x1000, .pse = true };
	struct cpu_paging pae = { .mode = PAGING_PAE, .cr3 = 0x1020 };
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 | 0x5 };	/* PCID 5 */
	struct cpu_paging p5 = { .mode = PAGING_5LEVEL, .cr3 = 0x1000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures;

	/* 2-level: a 4 MiB page above 4 GiB (PSE-36) with its PAT bit (12), a 4 KiB one's (7) */
	poke(&m, 0x1000 + (0xa0400000 >> 22) * 4, 0xe0000000 | 1 << 13 | 0x1000 | 0x1e3);
	poke(&m, 0x1000 + (0x90000000 >> 22) * 4, 0x2000 | 0x67);
	poke(&m, 0x2000 + 5 * 4, 0xe0005000 | 0x80 | 0x8 | 0x63);
	CHECK(walk(&m, &p2, &r, &l, 16) == 0 && r.n == 1 && !r.pti && l.n == 2);
	CHECK(leaf_is(&l.e[0], 0x90005000, 0xe0005000, TLB_4K, 5, "--PDA-T-W"));
	CHECK(leaf_is(&l.e[1], 0xa0400000, 0x1e0000000ULL, TLB_4M, 4, "-GPDA---W"));
	/* without CR4.PSE the PS bit is not looked at: the entry points at a table */
	p2.pse = false;
	CHECK(walk(&m, &p2, &r, &l, 16) == 0 && l.n == 1 && l.e[0].size == TLB_4K);

	/* PAE: the PDPT at CR3's 32 bytes; a 2 MiB page with its PAT bit, NX */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1020 + 3 * 8, 0x3000 | 0x1);
	poke(&m, 0x3000 + (0xf8000000 >> 21 & 511) * 8, 0x8000000d0000000ULL | 0x1000 | 0x1e3);
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x63);
	poke(&m, 0x4000 + 1 * 8, 0x800000000ULL | 0x10 | 0x63);
	pae.cr3 = 0x1020;
	CHECK(walk(&m, &pae, &r, &l, 16) == 0 && l.n == 2 && r.addr[0] == 0x1020);
	CHECK(leaf_is(&l.e[0], 0xc0001000, 0x800000000ULL, TLB_4K, 2, "---DAC--W"));
	CHECK(leaf_is(&l.e[1], 0xf8000000, 0xd0000000, TLB_2M, 4, "-GPDA---W") ||
	      leaf_is(&l.e[1], 0xf8000000, 0xd0000000, TLB_2M, 4, "XGPDA---W"));
	CHECK(l.e[1].flags[0] == '-');	/* bit 59 is no NX: 0x08... */

	/* 4-level: PCID bits aside; 1 GiB and 2 MiB pages, a reserved PS in the PML4 maps nothing */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1000 + 273 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 4 * 8, (1ULL << 63) | 0x100000000ULL | 0x1e3);
	poke(&m, 0x2000 + 5 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 1 * 8, 0x800200000ULL | 0x10e7);
	poke(&m, 0x1000 + 300 * 8, 0x5000 | 0xe3);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && r.addr[0] == 0x1000 && l.n == 2);
	CHECK(leaf_is(&l.e[0], 0xffff888100000000ULL, 0x100000000ULL, TLB_1G, 0, "XGPDA---W"));
	CHECK(leaf_is(&l.e[1], 0xffff888140200000ULL, 0x800200000ULL, TLB_2M, 4, "--PDA--UW"));

	/* tables adjacent in memory are read together: the PML4, then its four PDPTs at once */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 4; i++) {
		poke(&m, 0x2000 + i * 8, (0x10000 + i * 0x1000) | 0x63);
		poke(&m, 0x10000 + i * 0x1000, ((uint64_t)i << 30) | 0xe3);
	}
	p4.cr3 = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 4 && m.reads == 2 &&
	      leaf_is(&l.e[3], 0x18000000000ULL, 0xc0000000ULL, TLB_1G, 0, "--PDA---W"));
	/* a run that cannot be read is read a table at a time, and says why */
	m.reads = 0;
	m.no_memory = 0x10000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && m.reads == 3);
	/* more tables than the bound allows: no run read past it */
	m.no_memory = 0;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 4) == -1 && m.reads == 4);

	/* 5-level: one more level, addresses sign-extended from bit 56 */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1000 + 273 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 0 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 4 * 8, 0x100000000ULL | 0x1e3);
	CHECK(walk(&m, &p5, &r, &l, 16) == 0 && l.n == 1 &&
	      leaf_is(&l.e[0], 0xff11000100000000ULL, 0x100000000ULL, TLB_1G, 0, "-GPDA---W"));
	ksft_test_result(failures == before, "%s\n", "walk_each_mode");
}

static void walk_pti_kernel_half(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x3000, .cpl = 3 };
	struct cpu_paging pae = { .mode = PAGING_PAE, .cr3 = 0x3000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures, reads;

	/* 4-level: the user copy (CR3 0x3000) and the kernel's (0x2000); the user entry mirrored */
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x67);
	poke(&m, 0x2000 + 0 * 8, (1ULL << 63) | 0x4000 | 0x67);
	poke(&m, 0x4000 + 0 * 8, 0x5000 | 0x67);
	poke(&m, 0x5000 + 2 * 8, 0x6000 | 0x67);
	poke(&m, 0x6000 + 0 * 8, 0x800000000ULL | 0x67);		/* user, 0x400000 */
	poke(&m, 0x2000 + 402 * 8, 0x7000 | 0x63);			/* vmalloc space */
	poke(&m, 0x7000 + 0 * 8, 0x8000 | 0x63);
	poke(&m, 0x8000 + 2 * 8, 0x9000 | 0x63);
	poke(&m, 0x9000 + 0 * 8, 0x800005000ULL | 0x163);		/* a stale kernel page */
	poke(&m, 0x3000 + 508 * 8, 0xa000 | 0x63);			/* the user copy's own */
	poke(&m, 0xa000 + 0 * 8, 0x100000000ULL | 0x1e3);
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && r.pti && r.n == 2 && r.addr[0] == 0x3000 &&
	      r.addr[1] == 0x2000);
	CHECK(l.n == 3 && l.e[0].va == 0x400000 && l.e[1].va == 0xfffffe0000000000ULL &&
	      leaf_is(&l.e[2], 0xffffc90000400000ULL, 0x800005000ULL, TLB_4K, 0, "-G-DA---W"));
	/* the user half is walked once: its tables read once */
	reads = m.reads;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && m.reads == reads && m.reads == 9);
	CHECK(!r.pti_unpaired && !r.user_only);
	/*
	 * a table below that holds other user entries (a user entry written to
	 * the user copy and not yet to the kernel's, native_set_p4d()) is no
	 * kernel half: CR3's alone is walked, and it holds no kernel's
	 * mappings (it does not map itself): user tables only
	 */
	m.val[1] = 0x4000 | 0x63 | (1ULL << 63);
	m.val[1] ^= 0x1000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && r.n == 1 && l.n == 2);
	CHECK(r.pti_unpaired && !r.self_mapped && r.user_only && !r.xen_pv);
	m.val[1] ^= 0x1000;
	/* no memory below, or no RAM: the same; a read that fails there: could not check */
	m.no_memory = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && r.user_only);
	m.no_memory = 0;
	m.ram[0] = (struct phys_range){ 0x3000, 0xbfff };
	m.nram = 1;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && r.user_only && !m.outside);
	m.nram = 0;
	m.fail = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == -1);
	m.fail = 0;
	/*
	 * a table that maps itself, kernel-only (a direct map), is a kernel's:
	 * not PTI, a table at an address with bit 12 set; a user mapping of it
	 * (U) is no direct map
	 */
	m.val[1] ^= 0x1000;
	poke(&m, 0x3000 + 273 * 8, 0xb000 | 0x63);
	poke(&m, 0xb000 + 0 * 8, 0x0 | 0xe3);		/* 1 GiB at pa 0: the direct map */
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && r.pti_unpaired && r.self_mapped &&
	      !r.user_only);
	m.val[m.n - 1] |= 0x4;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && r.pti_unpaired && !r.self_mapped && r.user_only);
	m.n -= 2;
	m.val[1] ^= 0x1000;
	/* bit 12 clear: CR3 holds the kernel's tables, walked as they are */
	p4.cr3 = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && !r.user_only);

	/* a Xen PV guest's user table: Xen's linear slot maps it, no guest kernel entry */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x2000 + 258 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 511 * 8, 0x3000 | 0x67);	/* the vsyscall page's */
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && r.user_only && r.xen_pv && !r.pti);
	poke(&m, 0x2000 + 273 * 8, 0x4000 | 0x63);	/* the guest's direct map: its kernel's */
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && !r.user_only);
	m.val[0] = 0x5000 | 0x63;			/* slot 258 elsewhere: no Xen */
	m.n = 2;
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && !r.user_only);

	/* PAE (686-pae): the user PDPT at the start of the page above the kernel's */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 3; i++) {
		poke(&m, 0x3000 + i * 8, (0x10 + i) << 12 | 0x1);
		poke(&m, 0x2000 + i * 8, (0x10 + i) << 12 | 0x1);
	}
	poke(&m, 0x3000 + 3 * 8, 0x20000 | 0x1);	/* the user copy's kernel PMD */
	poke(&m, 0x2000 + 3 * 8, 0x21000 | 0x1);	/* the kernel's */
	poke(&m, 0x21000 + 448 * 8, 0x22000 | 0x63);	/* 0xf8000000: vmalloc space */
	poke(&m, 0x22000 + 3 * 8, 0xd0003000 | 0x163);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && r.pti && r.addr[1] == 0x2000 && l.n == 1 &&
	      leaf_is(&l.e[0], 0xf8003000, 0xd0003000, TLB_4K, 0, "-G-DA---W"));
	/* a PDPT within its page (a slab object, no PTI) has no kernel copy below */
	pae.cr3 = 0x3020;
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && !r.pti && !r.pti_unpaired && !r.user_only);
	/* nor one at the start of a page that holds more (pgd_cache's next object) */
	pae.cr3 = 0x3000;
	poke(&m, 0x3000 + 4 * 8, 0x23000 | 0x1);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && !r.pti && r.pti_unpaired && r.user_only);
	/* which, mapping itself (the kernel's direct map, at 0xc0000000), is a kernel's */
	poke(&m, 0x20000 + 0 * 8, 0x0 | 0xe3);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && r.pti_unpaired && r.self_mapped && !r.user_only);
	ksft_test_result(failures == before, "%s\n", "walk_pti_kernel_half");
}

static void walk_fails_closed(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures;

	poke(&m, 0x1000 + 1 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 0 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x63);
	poke(&m, 0x4000 + 0 * 8, 0x800000000ULL | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 1);
	/* a table that cannot be read, where one should be */
	m.fail = 0x3000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	m.fail = 0;
	m.no_memory = 0x4000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	m.no_memory = 0;
	CHECK(walk(&m, &p4, &r, &l, 3) == -1);	/* more tables than allowed */
	/*
	 * a loop: each level's entries point back at the PML4: 585 tables
	 * walked of one table read, past a bound of 64: could not check (under 600,
	 * the walk ends, every page mapping the PML4)
	 */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 8; i++)
		poke(&m, 0x1000 + i * 8, 0x1000 | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 64) == -1 && m.reads == 2);	/* and the PTI probe below */
	CHECK(walk(&m, &p4, &r, &l, 600) == 0 && l.n == 4096);
	/* no paging, or a mode it does not know */
	p4.mode = PAGING_OFF;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	ksft_test_result(failures == before, "%s\n", "walk_fails_closed");
}

static void walk_reads_guest_ram_only(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x100000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	struct walker w;
	int before = failures;

	m.ram[0] = (struct phys_range){ 0, 0x9ffff };
	m.ram[1] = (struct phys_range){ 0x100000, 0x3ffffff };
	m.nram = 2;
	poke(&m, 0x100000 + 1 * 8, 0x101000 | 0x63);
	poke(&m, 0x101000 + 0 * 8, 0x102000 | 0x63);
	poke(&m, 0x102000 + 0 * 8, 0x103000 | 0x63);
	poke(&m, 0x103000 + 0 * 8, 0x800000000ULL | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 1 && !m.outside);
	/* a table pointer into a BAR's registers (ivshmem's IntrStatus clears on read): not read */
	poke(&m, 0x100000 + 300 * 8, 0xfebf0000 | 0x63);
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside && m.reads == 4);
	/* nor into the legacy window, nor CR3 itself outside RAM */
	m.val[m.n - 1] = 0xa0000 | 0x63;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside);
	m.n--;
	p4.cr3 = 0xfe000000;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && m.reads == 0);
	p4.cr3 = 0x100000;
	/*
	 * adjacent tables at RAM's end and past it: the run stops at RAM's end
	 * (one read of the two in RAM), the one past it is not read
	 */
	m = (struct mem){ .n = 0, .ram = { { 0, 0x9ffff }, { 0x100000, 0x3ffffff } }, .nram = 2 };
	poke(&m, 0x100000 + 0 * 8, 0x101000 | 0x63);
	for (int i = 0; i < 3; i++)
		poke(&m, 0x101000 + i * 8, (0x3ffe000 + i * 0x1000) | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside && m.reads == 3);
	/* the reason says where, and that it was not read */
	walker_init(&w, mem_read, &m, 16);
	w.ram = m.ram;
	w.nram = m.nram;
	CHECK(walk_roots(&w, &p4, &r) == 0 && walk_tables(&w, &p4, &r, leaf_of, &l) == -1 &&
	      strstr(w.err, "page table at pa 0x4000000 is not guest RAM"));
	walker_free(&w);
	/* a walker with no RAM given reads nothing */
	m.reads = 0;
	walker_init(&w, mem_read, &m, 16);
	CHECK(walk_roots(&w, &p4, &r) == -1 && m.reads == 0 && strstr(w.err, "not guest RAM"));
	walker_free(&w);
	ksft_test_result(failures == before, "%s\n", "walk_reads_guest_ram_only");
}

static void pat_types_named(void)
{
	uint64_t msr;
	int before = failures;

	/* Linux's own table, and Xen's (WC at entry 4, the PAT bit alone) */
	CHECK(pat_parse("0x0407050600070106", &msr) == 0 && msr == 0x0407050600070106ULL &&
	      !strcmp(pat_type(msr, 1), "WC") && !strcmp(pat_type(msr, 7), "WT"));
	CHECK(pat_parse("WB WT UC- UC WC WP UC UC", &msr) == 0 && msr == 0x0000050100070406ULL &&
	      !strcmp(pat_type(msr, 4), "WC") && !strcmp(pat_type(msr, 0), "WB") &&
	      !strcmp(pat_type(msr, 2), "UC-"));
	CHECK(pat_parse("WB WC UC- UC WB WP UC- WT", &msr) == 0 && msr == 0x0407050600070106ULL);
	CHECK(pat_parse("WB WC UC- UC WB WP UC-", &msr) == -1);		/* seven */
	CHECK(pat_parse("WB WC UC- UC WB WP UC- WT WB", &msr) == -1);	/* nine */
	CHECK(pat_parse("WB WC UC- UC WB WP UC- XX", &msr) == -1);
	CHECK(pat_parse("0x0007010600070102", &msr) == -1);		/* 2: reserved */
	CHECK(!strcmp(pat_type(0x02, 0), "?") && !strcmp(pat_type(0, 8), "?"));
	ksft_test_result(failures == before, "%s\n", "pat_types_named");
}

int main(void)
{
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", "audit-parsers");
	ksft_set_plan(17);
	qmp_reader_any_chunking();
	qmp_reader_fails_closed();
	qmp_replies_decoded_or_refused();
	json_quote_every_byte();
	info_text_parsed_strictly();
	tlb_lines_by_mode();
	tlb_scan_settles_or_refuses();
	tlb_resolve_reads_the_entries();
	user_kernel_split();
	overlap_and_live_ranges();
	xp_tables_parsed_strictly();
	guest_ram_from_mtree();
	walk_each_mode();
	walk_pti_kernel_half();
	walk_reads_guest_ram_only();
	walk_fails_closed();
	pat_types_named();
	ksft_finished();
}
