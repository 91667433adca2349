// Model helpers of the wait-for graph (report->hang), shared by triage and the writers.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coretriage/report.h"

const char *ct_hang_lock_label(const struct ct_hang *h, long index, char *buf, size_t size)
{
	if (index < 0 || (size_t)index >= h->num_locks) {
		snprintf(buf, size, "an unknown lock");
		return buf;
	}
	const struct ct_lock *l = &h->locks[index];
	const char *kind = l->kind && !strcmp(l->kind, "thread") ? "thread exit" : l->kind ? l->kind : "lock";
	if (l->name && l->name_from_frame)
		snprintf(buf, size, "%s `%s` (0x%" PRIx64 ")", kind, l->name, l->address);
	else if (l->name)
		snprintf(buf, size, "%s `%s`", kind, l->name);
	else
		snprintf(buf, size, "%s at 0x%" PRIx64, kind, l->address);
	return buf;
}
