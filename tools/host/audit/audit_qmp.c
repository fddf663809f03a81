// SPDX-License-Identifier: GPL-2.0
/*
 * The QMP stream: a reader that frames any byte source into lines, the
 * classification of a reply line, and the next reply of a command.
 */
#include "audit_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
