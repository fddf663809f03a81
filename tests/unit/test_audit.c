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
#include <stdlib.h>
#include <string.h>

#include <kselftest.h>
#include "test_audit.h"

int failures;

/* kselftest's counters are this file's: every test's result is printed here */
void test_result(bool ok, const char *name)
{
	ksft_test_result(ok, "%s\n", name);
}

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

void qmp_reader_any_chunking(void)
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
	test_result(failures == before, "qmp_reader_any_chunking");
}

void qmp_reader_fails_closed(void)
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
	test_result(failures == before, "qmp_reader_fails_closed");
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

void qmp_replies_decoded_or_refused(void)
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
	test_result(failures == before, "qmp_replies_decoded_or_refused");
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

void json_quote_every_byte(void)
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
	test_result(failures == before, "json_quote_every_byte");
}

/* --- info registers, pci, cpus, xp ------------------------------------------------------ */

void info_text_parsed_strictly(void)
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
	test_result(failures == before, "info_text_parsed_strictly");
}

void pat_types_named(void)
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
	test_result(failures == before, "pat_types_named");
}

int main(void)
{
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", "audit-parsers");
	ksft_set_plan(18);
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
	vgpu_window_from_mtree();
	walk_each_mode();
	walk_pti_kernel_half();
	walk_reads_guest_ram_only();
	walk_fails_closed();
	pat_types_named();
	ksft_finished();
}
