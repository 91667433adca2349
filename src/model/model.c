// The report model's constructors and small accessors. No analysis, no output here.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/report.h"
#include "model/diag_codes.h"
#include "util/grow.h"

static const char *const trust_names[CT_TRUST_NUM_] = {
	[CT_TRUST_CONTEXT] = "context",	  [CT_TRUST_CFI] = "cfi",
	[CT_TRUST_FRAME_POINTER] = "frame-pointer", [CT_TRUST_SCAN] = "scan",
	[CT_TRUST_SIGNAL] = "signal",	  [CT_TRUST_BAD_CALL] = "bad-call",
	[CT_TRUST_CALL_SITE] = "call-site",
	[CT_TRUST_PROLOGUE] = "prologue",
	[CT_TRUST_PCLNTAB] = "pclntab",
};

const char *ct_trust_to_string(enum ct_trust trust)
{
	return (unsigned)trust < CT_TRUST_NUM_ ? trust_names[trust] : "?";
}

static const char *const severity_names[CT_SEVERITY_NUM_] = {
	[CT_SEVERITY_INFO] = "info",
	[CT_SEVERITY_WARNING] = "warning",
	[CT_SEVERITY_ERROR] = "error",
};

const char *ct_severity_to_string(enum ct_severity severity)
{
	return (unsigned)severity < CT_SEVERITY_NUM_ ? severity_names[severity] : "?";
}

bool ct_report_init(struct ct_report *report)
{
	memset(report, 0, sizeof(*report));
	ct_strpool_init(&report->strings);
	ct_crash_init(&report->crash, &report->strings);
	return true;
}

void ct_crash_init(struct ct_crash *crash, struct ct_strpool *strings)
{
	memset(crash, 0, sizeof(*crash));
	(void)strings;
	crash->cls = CT_CLASS_UNKNOWN;
	crash->confidence = CT_CONFIDENCE_LOW;
	crash->access = CT_ACCESS_NONE;
	crash->blame_frame = -1;
}

void ct_crash_free(struct ct_crash *crash)
{
	free(crash->evidence);
	free(crash->details);
	crash->evidence = NULL;
	crash->details = NULL;
	crash->num_evidence = crash->num_details = 0;
}

void ct_hang_free(struct ct_hang *hang)
{
	free(hang->locks);
	free(hang->members);
	free(hang->cycles);
	free(hang->summaries);
	free(hang->go.counts);
	free(hang->go.locks);
	memset(hang, 0, sizeof(*hang));
}

void ct_report_deinit(struct ct_report *report)
{
	ct_threads_free(report->threads, report->num_threads);
	free(report->modules);
	free(report->disasm);
	free(report->diagnostics.items);
	free(report->environment);
	free(report->process.args);
	ct_crash_free(&report->crash);
	free(report->kernel.log_call_trace);
	free(report->kernel.modules_linked_in);
	for (size_t i = 0; i < report->kernel.num_tasks; i++)
		free(report->kernel.tasks[i].stack.frames);
	free(report->kernel.tasks);
	ct_hang_free(&report->hang);
	ct_root_cause_free(&report->root_cause);
	ct_trail_deinit(&report->trail);
	ct_runtime_free(&report->runtime);
	ct_strpool_deinit(&report->strings);
	memset(report, 0, sizeof(*report));
}

const char *ct_report_strdup(struct ct_report *report, const char *s)
{
	return ct_strpool_intern(&report->strings, s);
}

const char *ct_report_printf(struct ct_report *report, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *ret = ct_strpool_vprintf(&report->strings, fmt, ap);
	va_end(ap);
	return ret;
}

// Grows a report-owned array by one element; returns the new zeroed element or NULL.
static void *array_push(void **array, size_t *count, size_t *capacity, size_t elem)
{
	if (!ct_grow(array, capacity, *count + 1, elem, 8, 0))
		return NULL;
	void *slot = (char *)*array + *count * elem;
	memset(slot, 0, elem);
	(*count)++;
	return slot;
}

// Arrays other than frames grow by powers of two: capacity = next power of two >= count.
static size_t pow2_capacity(size_t count)
{
	if (!count)
		return 0;
	size_t c = 8;
	while (c < count)
		c *= 2;
	return c;
}

#define PUSH(arr, cnt) ({                                                    \
	size_t cap_ = pow2_capacity(cnt);                                        \
	(__typeof__(&(arr)[0]))array_push((void **)&(arr), &(cnt), &cap_, sizeof((arr)[0])); })

static bool diag_add(const struct ct_sink *sink, enum ct_severity severity, int tid, enum ct_diag_code code,
		     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static bool diag_add(const struct ct_sink *sink, enum ct_severity severity, int tid, enum ct_diag_code code,
		     const char *fmt, va_list ap)
{
	struct ct_diagnostics *list = sink->diagnostics;
	if (list->count >= CT_MAX_DIAGNOSTICS)
		return false;
	const char *msg = ct_strpool_vprintf(sink->strings, fmt, ap);
	if (!msg)
		return false;
	struct ct_diagnostic *d = PUSH(list->items, list->count);
	if (!d)
		return false;
	d->severity = severity;
	d->tid = tid;
	d->code = ct_diag_code_to_string(code); // static: the table outlives every report
	d->message = msg;
	return true;
}

bool ct_sink_diag(const struct ct_sink *sink, enum ct_severity severity, int tid, enum ct_diag_code code,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = diag_add(sink, severity, tid, code, fmt, ap);
	va_end(ap);
	return ok;
}

bool ct_report_diag(struct ct_report *report, enum ct_severity severity, int tid, enum ct_diag_code code,
		    const char *fmt, ...)
{
	const struct ct_sink sink = ct_report_sink(report);
	va_list ap;
	va_start(ap, fmt);
	bool ok = diag_add(&sink, severity, tid, code, fmt, ap);
	va_end(ap);
	return ok;
}

struct ct_sink ct_report_sink(struct ct_report *report)
{
	return (struct ct_sink){ .strings = &report->strings, .diagnostics = &report->diagnostics };
}

bool ct_report_has_warnings(const struct ct_report *report)
{
	for (size_t i = 0; i < report->diagnostics.count; i++) {
		if (report->diagnostics.items[i].severity >= CT_SEVERITY_WARNING)
			return true;
	}
	return false;
}

bool ct_report_is_complete(const struct ct_report *report)
{
	if (ct_report_has_warnings(report))
		return false;
	for (size_t i = 0; i < report->num_threads; i++) {
		if (report->threads[i].num_frames == 0)
			return false;
	}
	return true;
}

struct ct_thread *ct_report_add_thread(struct ct_report *report)
{
	return PUSH(report->threads, report->num_threads);
}

struct ct_frame *ct_thread_add_frame(struct ct_thread *thread)
{
	return array_push((void **)&thread->frames, &thread->num_frames, &thread->capacity_frames,
			  sizeof(*thread->frames));
}

void ct_threads_free(struct ct_thread *threads, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(threads[i].frames);
		free(threads[i].registers);
		free(threads[i].variables);
	}
	free(threads);
}

struct ct_variable *ct_thread_add_variable(struct ct_thread *thread)
{
	return array_push((void **)&thread->variables, &thread->num_variables, &thread->capacity_variables,
			  sizeof(*thread->variables));
}

struct ct_module *ct_report_add_module(struct ct_report *report)
{
	struct ct_module *m = PUSH(report->modules, report->num_modules);
	if (m)
		m->build_id_match = -1;
	return m;
}

bool ct_crash_add_evidence(struct ct_crash *crash, struct ct_strpool *strings, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *s = ct_strpool_vprintf(strings, fmt, ap);
	va_end(ap);
	if (!s)
		return false;
	const char **slot = PUSH(crash->evidence, crash->num_evidence);
	if (!slot)
		return false;
	*slot = s;
	return true;
}

static struct ct_detail *add_detail(struct ct_crash *crash, struct ct_strpool *strings, const char *key)
{
	// Replace an existing key so details stay unique.
	for (size_t i = 0; i < crash->num_details; i++) {
		if (strcmp(crash->details[i].key, key) == 0)
			return &crash->details[i];
	}
	struct ct_detail *d = PUSH(crash->details, crash->num_details);
	if (d)
		d->key = ct_strpool_intern(strings, key);
	return d;
}

bool ct_crash_add_detail_string(struct ct_crash *crash, struct ct_strpool *strings, const char *key, const char *value)
{
	struct ct_detail *d = add_detail(crash, strings, key);
	if (!d)
		return false;
	d->kind = CT_VALUE_STRING;
	d->string = ct_strpool_intern(strings, value);
	return true;
}

bool ct_crash_add_detail_int(struct ct_crash *crash, struct ct_strpool *strings, const char *key, int64_t value)
{
	struct ct_detail *d = add_detail(crash, strings, key);
	if (!d)
		return false;
	d->kind = CT_VALUE_INT;
	d->integer = value;
	return true;
}

bool ct_crash_add_detail_address(struct ct_crash *crash, struct ct_strpool *strings, const char *key, uint64_t value)
{
	struct ct_detail *d = add_detail(crash, strings, key);
	if (!d)
		return false;
	d->kind = CT_VALUE_ADDRESS;
	d->address = value;
	return true;
}

bool ct_crash_add_detail_bool(struct ct_crash *crash, struct ct_strpool *strings, const char *key, bool value)
{
	struct ct_detail *d = add_detail(crash, strings, key);
	if (!d)
		return false;
	d->kind = CT_VALUE_BOOL;
	d->integer = value;
	return true;
}

bool ct_report_add_environment(struct ct_report *report, const char *key, const char *value)
{
	struct ct_detail *d = PUSH(report->environment, report->num_environment);
	if (!d)
		return false;
	d->key = ct_report_strdup(report, key);
	d->kind = CT_VALUE_STRING;
	d->string = ct_report_strdup(report, value);
	return true;
}

struct ct_thread *ct_report_crashing_thread(const struct ct_report *report)
{
	for (size_t i = 0; i < report->num_threads; i++) {
		if (report->threads[i].crashed)
			return &report->threads[i];
	}
	return NULL;
}

const struct ct_module *ct_report_find_module(const struct ct_report *report, uint64_t address)
{
	for (size_t i = 0; i < report->num_modules; i++) {
		const struct ct_module *m = &report->modules[i];
		if (address >= m->base && address < m->end)
			return m;
	}
	return NULL;
}
