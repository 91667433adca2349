// The log line collector: of the lines in the window, keeps those naming the process (the
// CT_LOGS_MAX_MATCHED closest to the crash, by a max-heap on the distance) and the
// CT_LOGS_CONTEXT_LINES last lines before the crash, then hands them to the report in time order.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trail/trail.h"

/** Marks a copy kept as context (in struct item.seq, whose arrival counter never gets that high). */
#define CONTEXT_BIT (UINT64_C(1) << 63)

struct item {
	int64_t usec;
	const char *file; /**< pooled, borrowed */
	uint64_t line_number;
	char *text; /**< owned */
	unsigned matches;
	uint64_t seq; /**< arrival order: ties in time keep it */
};

struct ct_log_collector {
	int64_t crash, context_until, from, to;
	struct ct_log_filter filter;
	struct item matched[CT_LOGS_MAX_MATCHED]; /**< max-heap on |usec - crash| */
	size_t num_matched;
	struct item context[CT_LOGS_CONTEXT_LINES]; /**< latest lines at or before the crash */
	size_t num_context;
	uint64_t seq;
	uint64_t dropped;
};

struct ct_log_collector *ct_log_collector_create(int64_t crash_usec, int64_t context_until, int64_t from, int64_t to,
						 const struct ct_log_filter *filter)
{
	struct ct_log_collector *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->crash = crash_usec;
	c->context_until = context_until;
	c->from = from;
	c->to = to;
	c->filter = *filter;
	return c;
}

void ct_log_collector_destroy(struct ct_log_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->num_matched; i++)
		free(c->matched[i].text);
	for (size_t i = 0; i < c->num_context; i++)
		free(c->context[i].text);
	free(c);
}

void ct_log_collector_window(const struct ct_log_collector *c, int64_t *from, int64_t *to)
{
	*from = c->from;
	*to = c->to;
}

static bool is_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	       ch == '-' || ch == '.';
}

// @p needle as a whole word of @p text (not inside a longer name).
static bool has_word(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return false;
	for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), needle, n)); p++) {
		bool left = p == text || !is_word(p[-1]);
		bool right = (size_t)(p - text) + n == len || !is_word(p[n]);
		// "name." ends a sentence: a dot after the word still ends it.
		if (!right && p[n] == '.' && ((size_t)(p - text) + n + 1 == len || !is_word(p[n + 1])))
			right = true;
		if (left && right)
			return true;
	}
	return false;
}

// The pid as logs write it: "name[PID]", "pid PID", "pid=PID", "PID=PID", "(PID)".
static bool has_pid(const char *text, size_t len, int pid)
{
	char num[16];
	int n = snprintf(num, sizeof(num), "%d", pid);
	for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), num, (size_t)n)); p++) {
		size_t at = (size_t)(p - text), after = at + (size_t)n;
		if ((at > 0 && text[at - 1] >= '0' && text[at - 1] <= '9') || (after < len && text[after] >= '0' && text[after] <= '9'))
			continue;
		char before = at > 0 ? text[at - 1] : 0, next = after < len ? text[after] : 0;
		if ((before == '[' && next == ']') || (before == '(' && next == ')'))
			return true;
		// "pid N", "pid=N", "pid:N", "PID: N" (the kernel's "CPU: 1 PID: 97 Comm: …").
		size_t q = at, seps = 0;
		while (q > 0 && seps < 2 && (text[q - 1] == ' ' || text[q - 1] == '=' || text[q - 1] == ':'))
			q--, seps++;
		if (seps && q >= 3 && !strncasecmp(text + q - 3, "pid", 3) &&
		    (q == 3 || !((text[q - 4] | 0x20) >= 'a' && (text[q - 4] | 0x20) <= 'z')))
			return true;
	}
	return false;
}

unsigned ct_log_match_text(const struct ct_log_filter *f, const char *text, size_t len)
{
	unsigned m = 0;
	if (f->has_pid && f->pid > 0 && has_pid(text, len, f->pid))
		m |= CT_LOG_MATCH_PID;
	if (f->command && has_word(text, len, f->command))
		m |= CT_LOG_MATCH_COMMAND;
	if (f->unit && has_word(text, len, f->unit))
		m |= CT_LOG_MATCH_UNIT;
	return m;
}

static uint64_t distance(const struct ct_log_collector *c, int64_t usec)
{
	return usec > c->crash ? (uint64_t)(usec - c->crash) : (uint64_t)(c->crash - usec);
}

static void heap_swap(struct item *a, struct item *b)
{
	struct item t = *a;
	*a = *b;
	*b = t;
}

static void sift_up(struct ct_log_collector *c, size_t i)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (distance(c, c->matched[parent].usec) >= distance(c, c->matched[i].usec))
			break;
		heap_swap(&c->matched[parent], &c->matched[i]);
		i = parent;
	}
}

static void sift_down(struct ct_log_collector *c, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, big = i;
		if (l < c->num_matched && distance(c, c->matched[l].usec) > distance(c, c->matched[big].usec))
			big = l;
		if (r < c->num_matched && distance(c, c->matched[r].usec) > distance(c, c->matched[big].usec))
			big = r;
		if (big == i)
			return;
		heap_swap(&c->matched[big], &c->matched[i]);
		i = big;
	}
}

// A copy of at most CT_LOG_LINE_MAX bytes; a cut line ends in "…".
static char *copy_line(const char *text, size_t len)
{
	bool cut = len > CT_LOG_LINE_MAX;
	size_t n = cut ? CT_LOG_LINE_MAX : len;
	char *s = malloc(n + 4);
	if (!s)
		return NULL;
	memcpy(s, text, n);
	if (cut)
		memcpy(s + n, "\xe2\x80\xa6", 3), n += 3;
	s[n] = '\0';
	// A NUL inside the line would end the string early; it is shown as a space.
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\0')
			s[i] = ' ';
	}
	return s;
}

bool ct_log_collector_add(struct ct_log_collector *c, const char *file, uint64_t line_number, int64_t usec,
			  const char *text, size_t len, unsigned matches)
{
	// Trailing CR of CRLF logs is not part of the line.
	while (len && (text[len - 1] == '\r' || text[len - 1] == '\n'))
		len--;
	matches |= ct_log_match_text(&c->filter, text, len);
	struct item it = { .usec = usec, .file = file, .line_number = line_number, .matches = matches, .seq = c->seq++ };
	if (matches) {
		if (c->num_matched < CT_LOGS_MAX_MATCHED) {
			it.text = copy_line(text, len);
			if (!it.text)
				return false;
			c->matched[c->num_matched++] = it;
			sift_up(c, c->num_matched - 1);
		} else if (distance(c, usec) < distance(c, c->matched[0].usec)) {
			it.text = copy_line(text, len);
			if (!it.text)
				return false;
			free(c->matched[0].text);
			c->matched[0] = it;
			sift_down(c, 0);
			c->dropped++;
		} else {
			c->dropped++;
		}
	}
	if (usec > c->context_until)
		return true;
	// The context: the latest lines at or before the crash; the earliest one kept gives way.
	size_t slot = c->num_context;
	if (c->num_context == CT_LOGS_CONTEXT_LINES) {
		slot = 0;
		for (size_t i = 1; i < c->num_context; i++) {
			const struct item *a = &c->context[i], *b = &c->context[slot];
			if (a->usec < b->usec || (a->usec == b->usec && a->seq < b->seq))
				slot = i;
		}
		if (c->context[slot].usec > usec)
			return true;
	}
	it.text = copy_line(text, len);
	if (!it.text)
		return false;
	if (slot < c->num_context)
		free(c->context[slot].text);
	else
		c->num_context++;
	c->context[slot] = it;
	return true;
}

static int compare_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	// By time, then arrival; the two copies of one line (same arrival) end up side by side.
	uint64_t xs = x->seq & ~CONTEXT_BIT, ys = y->seq & ~CONTEXT_BIT;
	if (x->usec != y->usec)
		return x->usec < y->usec ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ct_log_collector_finish(struct ct_log_collector *c, struct ct_report *r)
{
	size_t n = c->num_matched + c->num_context;
	struct item *all = calloc(n ? n : 1, sizeof(*all));
	struct ct_log_line *lines = calloc(n ? n : 1, sizeof(*lines));
	if (!all || !lines) {
		free(all);
		free(lines);
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_MEMORY, "out of memory keeping log lines");
		return;
	}
	memcpy(all, c->matched, c->num_matched * sizeof(*all));
	memcpy(all + c->num_matched, c->context, c->num_context * sizeof(*all));
	// The same line may be kept twice (it names the process and is just before the crash): it
	// shows once, with both marks.
	for (size_t i = c->num_matched; i < n; i++)
		all[i].seq |= CONTEXT_BIT;
	qsort(all, n, sizeof(*all), compare_items);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		const struct item *it = &all[i];
		bool ctx = (it->seq & CONTEXT_BIT) != 0;
		if (i && (all[i - 1].seq & ~CONTEXT_BIT) == (it->seq & ~CONTEXT_BIT)) {
			lines[out - 1].before_crash |= ctx;
			lines[out - 1].matches |= it->matches;
			continue;
		}
		struct ct_log_line *l = &lines[out++];
		l->has_time = true;
		l->usec = it->usec;
		l->file = it->file;
		l->line_number = it->line_number;
		l->text = ct_report_strdup(r, it->text);
		l->matches = it->matches;
		l->before_crash = ctx;
	}
	free(all);
	free(r->trail.logs);
	r->trail.logs = lines;
	r->trail.num_logs = out;
	if (c->dropped)
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_LOGS_CAP,
			       "%llu more log lines name the process; the %d closest to the crash are shown",
			       (unsigned long long)c->dropped, CT_LOGS_MAX_MATCHED);
}

struct ct_log_source *ct_trail_add_source(struct ct_report *r, const char *file, const char *format)
{
	struct ct_trail *t = &r->trail;
	struct ct_log_source *s = reallocarray(t->log_sources, t->num_log_sources + 1, sizeof(*s));
	if (!s)
		return NULL;
	t->log_sources = s;
	s = &s[t->num_log_sources++];
	memset(s, 0, sizeof(*s));
	s->file = ct_report_strdup(r, file);
	s->format = ct_report_strdup(r, format);
	return s;
}

static bool span_is(const char *p, size_t n, const char *s)
{
	return p && s && strlen(s) == n && !memcmp(p, s, n);
}

bool ct_log_collector_add_entry(struct ct_log_collector *c, const char *file, int64_t usec,
				const struct ct_journal_fields *f)
{
	const struct ct_log_filter *flt = &c->filter;
	unsigned m = 0;
	char pid[16];
	if (flt->has_pid && snprintf(pid, sizeof(pid), "%d", flt->pid) > 0 && span_is(f->pid, f->pid_len, pid))
		m |= CT_LOG_MATCH_PID;
	if (span_is(f->comm, f->comm_len, flt->command) || span_is(f->identifier, f->identifier_len, flt->command))
		m |= CT_LOG_MATCH_COMMAND;
	if (span_is(f->systemd_unit, f->systemd_unit_len, flt->unit) || span_is(f->unit, f->unit_len, flt->unit) ||
	    span_is(f->user_unit, f->user_unit_len, flt->unit))
		m |= CT_LOG_MATCH_UNIT;
	const char *ident = f->identifier ? f->identifier : f->comm;
	size_t ident_len = f->identifier ? f->identifier_len : f->comm_len;
	size_t msg_len = f->message_len < CT_LOG_LINE_MAX ? f->message_len : CT_LOG_LINE_MAX + 1;
	// The identifier is cut at 256 bytes and a pid longer than 15 left out: the line's size is
	// bounded whatever the entry's fields hold.
	size_t cap = (ident_len < 256 ? ident_len : 256) + (f->pid_len < 16 ? f->pid_len : 0) + msg_len + 8;
	char *line = malloc(cap);
	if (!line)
		return false;
	size_t n = 0;
	if (ident) {
		memcpy(line, ident, ident_len < 256 ? ident_len : 256);
		n = ident_len < 256 ? ident_len : 256;
		if (f->pid && f->pid_len < 16) {
			line[n++] = '[';
			memcpy(line + n, f->pid, f->pid_len);
			n += f->pid_len;
			line[n++] = ']';
		}
		line[n++] = ':';
		line[n++] = ' ';
	}
	if (f->message) {
		memcpy(line + n, f->message, msg_len);
		n += msg_len;
	}
	bool ok = ct_log_collector_add(c, file, 0, usec, line, n, m);
	free(line);
	return ok;
}
