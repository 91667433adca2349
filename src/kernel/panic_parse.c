// The panic record, parsed from the kernel log: what the kernel itself said when it died. Handles the
// ways a log ends: "Kernel panic - not syncing" with its own Call Trace; an Oops that went straight to
// crash_kexec (kdump loaded: no panic line follows); and QEMU dumps, cut before the last lines.
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"

// A 2^18-byte log holds ~4,000 lines; 2^20 lines bounds a huge log_buf_len= buffer.
#define MAX_LINES (1u << 20)
// The CPU:/RIP:/Call Trace lines of one event follow its headline within a screenful; an OOM report
// puts the task table in between, hence the generous window.
#define EVENT_WINDOW 400
// A Call Trace longer than this is a stack overflow's recursion; the head is what people read.
#define MAX_TRACE_LINES 256

struct line {
	const char *s; /**< message text, after the "[    t.tttttt] " prefix */
	size_t len;
	bool has_ts;
	double ts;
};

static bool has(const struct line *l, const char *needle)
{
	size_t n = strlen(needle);
	if (n > l->len)
		return false;
	for (size_t i = 0; i + n <= l->len; i++) {
		if (memcmp(l->s + i, needle, n) == 0)
			return true;
	}
	return false;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l->len >= n && memcmp(l->s, prefix, n) == 0;
}

/* Pooled copy of the line's text from @p from (a pointer into it) to its end. */
static const char *pool_rest(struct ct_strpool *pool, const struct line *l, const char *from)
{
	return ct_strpool_intern_len(pool, from, l->len - (size_t)(from - l->s));
}

static const char *find_in(const struct line *l, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; n <= l->len && i + n <= l->len; i++) {
		if (memcmp(l->s + i, needle, n) == 0)
			return l->s + i;
	}
	return NULL;
}

static size_t split_lines(const char *log, struct line **ret)
{
	size_t cap = 1024, n = 0;
	struct line *lines = malloc(cap * sizeof(*lines));
	if (!lines)
		return 0;
	for (const char *p = log; *p && n < MAX_LINES;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct line l = { .s = p, .len = len };
		// "[    3.459698] text": remember the timestamp, keep the text.
		if (len > 2 && p[0] == '[') {
			const char *close = memchr(p, ']', len);
			if (close) {
				char *end;
				double t = strtod(p + 1, &end);
				if (end == close) {
					l.has_ts = true;
					l.ts = t;
				}
				l.s = close + 1;
				if (l.s < p + len && *l.s == ' ')
					l.s++;
				l.len = len - (size_t)(l.s - p);
			}
		}
		if (n == cap) {
			struct line *t = realloc(lines, cap * 2 * sizeof(*lines));
			if (!t)
				break;
			lines = t;
			cap *= 2;
		}
		lines[n++] = l;
		p = nl ? nl + 1 : p + len;
	}
	*ret = lines;
	return n;
}

static bool parse_hex_after(const struct line *l, const char *key, uint64_t *ret)
{
	const char *p = find_in(l, key);
	if (!p)
		return false;
	p += strlen(key);
	while (p < l->s + l->len && *p == ' ')
		p++;
	char buf[24];
	size_t n = 0;
	if (p + 2 <= l->s + l->len && p[0] == '0' && p[1] == 'x')
		p += 2;
	while (p < l->s + l->len && isxdigit((unsigned char)*p) && n < sizeof(buf) - 1)
		buf[n++] = *p++;
	if (n == 0)
		return false;
	buf[n] = '\0';
	*ret = strtoull(buf, NULL, 16);
	return true;
}

/* "CPU: 1 PID: 100 Comm: insmod Kdump: loaded Tainted: G           OE      6.1.0-57-amd64 #1 …" */
static void parse_cpu_line(struct ct_strpool *pool, const struct line *l, struct ct_panic_record *rec)
{
	const char *end = l->s + l->len, *p;
	char buf[512];
	size_t n = l->len < sizeof(buf) - 1 ? l->len : sizeof(buf) - 1;
	memcpy(buf, l->s, n);
	buf[n] = '\0';
	int cpu, pid;
	if (sscanf(buf, "CPU: %d PID: %d", &cpu, &pid) == 2) {
		rec->has_cpu = rec->has_pid = true;
		rec->cpu = cpu;
		rec->pid = pid;
	}
	p = find_in(l, " Comm: ");
	if (p) {
		p += 7;
		const char *stop = end;
		const char *markers[] = { " Kdump: ", " Not tainted", " Tainted: " };
		for (size_t i = 0; i < 3; i++) {
			struct line rest = { .s = p, .len = (size_t)(end - p) };
			const char *m = find_in(&rest, markers[i]);
			if (m && m < stop)
				stop = m;
		}
		rec->comm = ct_strpool_intern_len(pool, p, (size_t)(stop - p));
	}
	if (find_in(l, " Kdump: loaded"))
		rec->kdump_loaded = true;
	p = find_in(l, " Tainted: ");
	if (p) {
		// The taint field is one column per flag, blank when clear, then the release (which has
		// digits). 'G' only says "no proprietary module": it is not a taint.
		char taint[64];
		size_t tn = 0;
		p += 10;
		while (p < end) {
			while (p < end && *p == ' ')
				p++;
			const char *w = p;
			while (p < end && *p != ' ')
				p++;
			bool letters = p > w;
			for (const char *q = w; q < p; q++)
				letters = letters && isupper((unsigned char)*q);
			if (!letters)
				break;
			for (const char *q = w; q < p && tn < sizeof(taint) - 1; q++) {
				if (*q != 'G')
					taint[tn++] = *q;
			}
		}
		taint[tn] = '\0';
		rec->taint = ct_strpool_intern(pool, taint);
	} else if (find_in(l, " Not tainted")) {
		rec->taint = ct_strpool_intern(pool, "");
	}
}

static void parse_modules(struct ct_strpool *pool, const struct line *l, struct ct_panic_record *rec)
{
	const char *p = l->s + strlen("Modules linked in:"), *end = l->s + l->len;
	size_t cap = 0;
	// One module name per word; a list longer than this is cut (the kernel prints all of them).
	for (unsigned n = 0; p < end && n < 4096; n++) {
		while (p < end && *p == ' ')
			p++;
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		if (p == w)
			break;
		if (rec->num_modules == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			const char **t = realloc(rec->modules, ncap * sizeof(*t));
			if (!t)
				return;
			rec->modules = t;
			cap = ncap;
		}
		rec->modules[rec->num_modules++] = ct_strpool_intern_len(pool, w, (size_t)(p - w));
	}
}

static bool is_trace_entry(const struct line *l)
{
	const char *p = l->s, *end = l->s + l->len;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '<')
		return true; // <TASK>, </TASK>, <IRQ>, </IRQ>, <NMI>, …
	struct line rest = { .s = p, .len = (size_t)(end - p) };
	// "? 0xffffffffc02b1000": an address the kernel could not name (module init text already freed, …).
	if (starts(&rest, "? 0x") || starts(&rest, "0x"))
		return true;
	return find_in(&rest, "+0x") && !starts(&rest, "RIP: ") && !starts(&rest, "Code: ");
}

static void parse_call_trace(struct ct_strpool *pool, const struct line *lines, size_t n, size_t from,
			     struct ct_panic_record *rec)
{
	size_t cap = 0;
	for (size_t i = from; i < n && rec->num_call_trace < MAX_TRACE_LINES; i++) {
		if (!is_trace_entry(&lines[i]))
			break;
		const char *p = lines[i].s, *end = p + lines[i].len;
		while (p < end && *p == ' ')
			p++;
		if (*p == '<') {
			// </TASK> closes the kernel part; what follows are the user registers.
			if (p + 2 < end && p[1] == '/' && p[2] == 'T')
				break;
			continue;
		}
		if (rec->num_call_trace == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			const char **t = realloc(rec->call_trace, ncap * sizeof(*t));
			if (!t)
				return;
			rec->call_trace = t;
			cap = ncap;
		}
		rec->call_trace[rec->num_call_trace++] = ct_strpool_intern_len(pool, p, (size_t)(end - p));
	}
}

enum headline_kind { HL_NONE, HL_NULL, HL_PAGE_FAULT, HL_GPF, HL_BUG, HL_STACK, HL_SOFT, HL_HARD, HL_HUNG, HL_WARN,
		     HL_MCE, HL_SYSRQ, HL_OOM, HL_RCU, HL_DIE };

// A die() header that follows its own headline ("Oops: 0002" after "BUG: kernel NULL pointer …",
// "invalid opcode: 0000" after "kernel BUG at", "stack guard page: 0000" after "BUG: TASK stack guard
// page was hit") is found this many lines after it at most: arm64 prints 12 lines of "Mem abort info" and
// the page-table walk between "Unable to handle kernel NULL pointer dereference" and "Internal error: Oops".
#define DIE_AFTER_HEADLINE 16

static bool is_die_header(const struct line *l)
{
	struct ct_die_header d;
	return ct_die_header_parse(l->s, l->len, &d);
}

static enum headline_kind headline_kind(const struct line *l)
{
	// x86 "BUG: …"; arm64 (arch/arm64/mm/fault.c die_kernel_fault) "Unable to handle kernel …".
	if (starts(l, "BUG: kernel NULL pointer dereference") || has(l, "nable to handle kernel NULL pointer"))
		return HL_NULL;
	if (starts(l, "BUG: unable to handle page fault") || has(l, "nable to handle kernel paging request"))
		return HL_PAGE_FAULT;
	if (starts(l, "general protection fault"))
		return HL_GPF;
	if (starts(l, "kernel BUG at "))
		return HL_BUG;
	// 6.x: "BUG: TASK stack guard page was hit at …" (also "IRQ stack", "NMI stack"); 4.x–5.x: the die
	// header "kernel stack overflow (double-fault): 0000 [#1]".
	if (has(l, "kernel stack overflow") || (starts(l, "BUG: ") && has(l, "stack guard page was hit")))
		return HL_STACK;
	if (has(l, "BUG: soft lockup"))
		return HL_SOFT;
	if (has(l, "Watchdog detected hard LOCKUP"))
		return HL_HARD;
	if (starts(l, "INFO: task ") && has(l, "blocked for more than"))
		return HL_HUNG;
	if (starts(l, "WARNING: CPU: "))
		return HL_WARN;
	if (starts(l, "mce: [Hardware Error]") || has(l, "Machine check"))
		return HL_MCE;
	if (starts(l, "sysrq: Trigger a crash"))
		return HL_SYSRQ;
	if (has(l, " invoked oom-killer: "))
		return HL_OOM;
	// "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", "… self-detected stall on CPU"
	if (starts(l, "rcu: INFO: ") && has(l, "stall"))
		return HL_RCU;
	if (is_die_header(l))
		return HL_DIE;
	return HL_NONE;
}

/* "INFO: task insmod:123 blocked for more than 2 seconds." */
static void parse_blocked_task(struct ct_strpool *pool, const struct line *l, struct ct_panic_record *rec)
{
	const char *p = l->s + strlen("INFO: task "), *end = l->s + l->len;
	const struct line rest = { .s = p, .len = (size_t)(end - p) };
	const char *blocked = find_in(&rest, " blocked for");
	if (!blocked)
		return;
	const char *colon = blocked;
	while (colon > p && colon[-1] != ':')
		colon--;
	if (colon == p)
		return;
	rec->blocked_comm = ct_strpool_intern_len(pool, p, (size_t)(colon - 1 - p));
	char *e;
	long pid = strtol(colon, &e, 10);
	if (e == blocked && pid >= 0 && pid < (1l << 30)) {
		rec->has_blocked_pid = true;
		rec->blocked_pid = (int)pid;
	}
}

void ct_panic_set_culprit(struct ct_strpool *pool, struct ct_panic_record *rec, const struct ct_ksym_text *t,
			  const char *line, const char *source)
{
	rec->culprit_function = ct_strpool_intern(pool, t->function);
	rec->culprit_module = ct_strpool_intern(pool, t->module);
	rec->has_culprit_offset = t->has_offset;
	rec->culprit_offset = t->offset;
	rec->culprit_line = line;
	rec->culprit_source = source;
}

static void culprit_from_text(struct ct_strpool *pool, struct ct_panic_record *rec, const char *text, const char *source)
{
	struct ct_ksym_text t;
	if (ct_ksym_text_parse(text, strlen(text), &t))
		ct_panic_set_culprit(pool, rec, &t, text, source);
}

/*
 * The culprit the log names directly: the function of a stack-protector panic ("… corrupted in:
 * func+0x4a/0x50 [mod]"), else the faulting instruction of the RIP line. A hung task's culprit comes
 * from its Call Trace later (ct_panic_culprit_from_trace): its RIP is the sleeping scheduler.
 */
static void set_culprit(struct ct_strpool *pool, struct ct_panic_record *rec)
{
	static const char stackprot[] = "stack-protector: Kernel stack is corrupted in: ";
	if (rec->stack_protector && rec->panic_reason && !strncmp(rec->panic_reason, stackprot, strlen(stackprot)))
		culprit_from_text(pool, rec, rec->panic_reason + strlen(stackprot), "stack-protector panic");
	if (!rec->culprit_function && rec->pc_symbol && !rec->hung_task)
		culprit_from_text(pool, rec, rec->pc_symbol, rec->pc_source);
}

void ct_panic_parse(struct ct_strpool *pool, const char *log, struct ct_panic_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	struct line *lines = NULL;
	size_t n = split_lines(log, &lines);
	if (!lines)
		return;
	// The last "Kernel panic" is the one that stopped the machine.
	size_t panic_idx = n;
	for (size_t i = n; i-- > 0;) {
		const char *p = find_in(&lines[i], "Kernel panic - not syncing: ");
		// "---[ end Kernel panic - not syncing: … ]---" closes the panic's own lines: not the panic.
		if (p && starts(&lines[i], "---[ end "))
			continue;
		if (p) {
			panic_idx = i;
			rec->panic_reason = pool_rest(pool, &lines[i], p + strlen("Kernel panic - not syncing: "));
			break;
		}
	}
	// The headline: the last crash event before the panic (or before the end of the log, when the
	// Oops went straight to crash_kexec or QEMU stopped early). A WARN only counts when the panic says
	// panic_on_warn: warnings are common and usually harmless.
	bool warn_panic = rec->panic_reason && (strstr(rec->panic_reason, "panic_on_warn") != NULL);
	size_t head_idx = n;
	enum headline_kind kind = HL_NONE;
	for (size_t i = panic_idx; i-- > 0;) {
		enum headline_kind k = headline_kind(&lines[i]);
		if (k == HL_NONE || (k == HL_WARN && !warn_panic))
			continue;
		head_idx = i;
		kind = k;
		break;
	}
	// A die header usually follows the headline that names the fault: take that one as the headline.
	if (kind == HL_DIE) {
		for (size_t i = head_idx, k = 0; i-- > 0 && k < DIE_AFTER_HEADLINE; k++) {
			enum headline_kind e = headline_kind(&lines[i]);
			if (e == HL_NONE)
				continue;
			if (e != HL_DIE) {
				head_idx = i;
				kind = e;
			}
			break;
		}
	}
	// OOM reports start with "… invoked oom-killer" but the panic decides; same for sysrq.
	size_t anchor = head_idx < n ? head_idx : panic_idx;
	if (anchor == n) {
		rec->found = false;
	} else {
		rec->found = true;
		if (head_idx < n)
			rec->headline = pool_rest(pool, &lines[head_idx], lines[head_idx].s);
		switch (kind) {
		case HL_NULL: rec->null_deref = true; break;
		case HL_PAGE_FAULT: rec->page_fault = true; break;
		case HL_GPF: rec->gpf = true; break;
		case HL_BUG: rec->kernel_bug = true; break;
		case HL_STACK: rec->stack_overflow = true; break;
		case HL_SOFT: rec->lockup_soft = true; break;
		case HL_HARD: rec->lockup_hard = true; break;
		case HL_HUNG: rec->hung_task = true; break;
		case HL_WARN: rec->warn = true; break;
		case HL_MCE: rec->mce = true; break;
		case HL_SYSRQ: rec->sysrq = true; break;
		case HL_OOM: rec->oom = true; break;
		case HL_RCU: rec->rcu_stall = true; break;
		case HL_DIE: break;
		case HL_NONE: break;
		}
		rec->reason_kind = ct_panic_reason_classify(rec->panic_reason);
		switch (rec->reason_kind) {
		case CT_REASON_SOFT_LOCKUP: rec->lockup_soft = true; break;
		case CT_REASON_HARD_LOCKUP: rec->lockup_hard = true; break;
		case CT_REASON_HUNG_TASK: rec->hung_task = true; break;
		case CT_REASON_RCU_STALL: rec->rcu_stall = true; break;
		case CT_REASON_STACK_PROTECTOR: rec->stack_protector = true; break;
		case CT_REASON_STACK_OVERFLOW: rec->stack_overflow = true; break;
		case CT_REASON_OOM: rec->oom = true; break;
		case CT_REASON_SYSRQ: rec->sysrq = true; break;
		case CT_REASON_MCE: rec->mce = true; break;
		case CT_REASON_INIT_KILLED: rec->init_killed = true; break;
		default: break;
		}
		if (kind == HL_HUNG)
			parse_blocked_task(pool, &lines[head_idx], rec);
		if (head_idx < n) {
			uint64_t a;
			if (parse_hex_after(&lines[head_idx], "address: ", &a) ||
			    parse_hex_after(&lines[head_idx], "non-canonical address ", &a) ||
			    parse_hex_after(&lines[head_idx], "dereference at ", &a) ||
			    parse_hex_after(&lines[head_idx], "at virtual address ", &a) ||
			    parse_hex_after(&lines[head_idx], "paging request at ", &a)) {
				rec->has_address = true;
				rec->address = a;
			}
		}
		size_t end = anchor + EVENT_WINDOW < n ? anchor + EVENT_WINDOW : n;
		bool have_cpu = false, have_trace = false;
		size_t pf = 0;
		for (size_t i = anchor; i < end; i++) {
			const struct line *l = &lines[i];
			if (!have_cpu && starts(l, "CPU: ") && find_in(l, " PID: ")) {
				parse_cpu_line(pool, l, rec);
				have_cpu = true;
			} else if (!rec->has_die && ct_die_header_parse(l->s, l->len, &rec->die)) {
				// "Oops: 0002 [#1]", "divide error: 0000 [#1]", "stack guard page: 0000 [#1]", …
				rec->has_die = true;
				rec->oops_line = pool_rest(pool, l, l->s);
				rec->exception = ct_strpool_intern_len(pool, l->s, rec->die.name_len);
				if (!rec->has_error_code) {
					rec->has_error_code = true;
					rec->error_code = rec->die.error_code;
				}
			} else if (starts(l, "#PF: ") && pf < 2) {
				rec->pf_lines[pf++] = pool_rest(pool, l, l->s);
				uint64_t code;
				if (parse_hex_after(l, "error_code(", &code)) {
					rec->has_error_code = true;
					rec->error_code = code;
				}
			} else if (!rec->rip_line && (starts(l, "RIP: 0010:") || starts(l, "pc : "))) {
				// x86 "RIP: 0010:func+0x5/0x11 [mod]"; arm64 __show_regs() "pc : func+0x14/0x1c [mod]".
				bool x86 = starts(l, "RIP: ");
				rec->rip_line = pool_rest(pool, l, l->s);
				rec->pc_symbol = rec->rip_line + (x86 ? strlen("RIP: 0010:") : strlen("pc : "));
				rec->pc_source = x86 ? "RIP line" : "pc line";
			} else if (starts(l, "CR2: ") && !find_in(l, "CR3:") && !rec->has_address) {
				uint64_t a;
				if (parse_hex_after(l, "CR2: ", &a)) {
					rec->has_address = true;
					rec->address = a;
				}
			} else if (!rec->modules && starts(l, "Modules linked in:")) {
				parse_modules(pool, l, rec);
			} else if (!have_trace && (starts(l, "Call Trace:") || starts(l, " Call Trace:") ||
						   starts(l, "Call trace:"))) {
				// arm64 dump_backtrace() prints "Call trace:" and no "?" entries.
				parse_call_trace(pool, lines, n, i + 1, rec);
				have_trace = true;
			}
		}
		set_culprit(pool, rec);
		const struct line *t = panic_idx < n ? &lines[panic_idx] : &lines[anchor];
		if (t->has_ts) {
			rec->has_uptime = true;
			rec->uptime = t->ts;
		}
	}
	free(lines);
}

void ct_panic_record_deinit(struct ct_panic_record *rec)
{
	free(rec->call_trace);
	free(rec->modules);
	memset(rec, 0, sizeof(*rec));
}
