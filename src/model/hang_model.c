// Model helpers of the wait-for graph (report->hang), shared by triage and the writers.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coretriage/report.h"

static const char *const wait_object_names[CT_WAIT_OBJECT_NUM_] = {
	[CT_WAIT_OBJECT_NONE] = NULL,
	[CT_WAIT_OBJECT_MUTEX] = "mutex",
	[CT_WAIT_OBJECT_CONDITION] = "condition",
	[CT_WAIT_OBJECT_RWLOCK] = "rwlock",
	[CT_WAIT_OBJECT_SEMAPHORE] = "semaphore",
	[CT_WAIT_OBJECT_JOIN] = "join",
	[CT_WAIT_OBJECT_GLIBC_INTERNAL] = "glibc-internal",
	[CT_WAIT_OBJECT_UNKNOWN] = "unknown",
	[CT_WAIT_OBJECT_GO_RUNTIME] = "go-runtime",
};

const char *ct_wait_object_to_string(enum ct_wait_object object)
{
	return (unsigned)object < CT_WAIT_OBJECT_NUM_ ? wait_object_names[object] : NULL;
}

static const char *const lock_kind_names[CT_LOCK_KIND_NUM_] = {
	[CT_LOCK_MUTEX] = "mutex",
	[CT_LOCK_RWLOCK] = "rwlock",
	[CT_LOCK_CONDITION] = "condition",
	[CT_LOCK_SEMAPHORE] = "semaphore",
	[CT_LOCK_THREAD] = "thread",
	[CT_LOCK_GLIBC_INTERNAL] = "glibc-internal",
	[CT_LOCK_UNKNOWN] = "unknown",
	[CT_LOCK_GO_RUNTIME] = "go-runtime",
};

const char *ct_lock_kind_to_string(enum ct_lock_kind kind)
{
	return (unsigned)kind < CT_LOCK_KIND_NUM_ ? lock_kind_names[kind] : "unknown";
}

enum ct_lock_kind ct_lock_kind_of_wait(enum ct_wait_object object)
{
	switch (object) {
	case CT_WAIT_OBJECT_MUTEX: return CT_LOCK_MUTEX;
	case CT_WAIT_OBJECT_CONDITION: return CT_LOCK_CONDITION;
	case CT_WAIT_OBJECT_RWLOCK: return CT_LOCK_RWLOCK;
	case CT_WAIT_OBJECT_SEMAPHORE: return CT_LOCK_SEMAPHORE;
	case CT_WAIT_OBJECT_JOIN: return CT_LOCK_THREAD;
	case CT_WAIT_OBJECT_GLIBC_INTERNAL: return CT_LOCK_GLIBC_INTERNAL;
	case CT_WAIT_OBJECT_GO_RUNTIME: return CT_LOCK_GO_RUNTIME;
	default: return CT_LOCK_UNKNOWN;
	}
}

const char *ct_hang_lock_label(const struct ct_hang *h, long index, char *buf, size_t size)
{
	if (index < 0 || (size_t)index >= h->num_locks) {
		snprintf(buf, size, "an unknown lock");
		return buf;
	}
	const struct ct_lock *l = &h->locks[index];
	const char *kind = l->kind == CT_LOCK_THREAD ? "thread exit" : ct_lock_kind_to_string(l->kind);
	if (l->name && l->name_from_frame)
		snprintf(buf, size, "%s `%s` (0x%" PRIx64 ")", kind, l->name, l->address);
	else if (l->name)
		snprintf(buf, size, "%s `%s`", kind, l->name);
	else
		snprintf(buf, size, "%s at 0x%" PRIx64, kind, l->address);
	return buf;
}
