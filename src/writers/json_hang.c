// The wait state of each thread ("wait") and the wait-for graph ("hang") of the JSON report
// (docs/json-report.md). Optional facts are omitted when unknown.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writers/hang_writers.h"

static void set_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, ct_json_string_value(s));
}

json_t *ct_json_thread_wait(const struct ct_thread *t)
{
	const struct ct_wait *w = &t->wait;
	if (!w->present)
		return NULL;
	json_t *j = json_object();
	json_object_set_new(j, "syscall", ct_json_string_value(w->syscall));
	json_object_set_new(j, "number", json_integer(w->number));
	json_object_set_new(j, "text", ct_json_string_value(w->text));
	set_str(j, "operation", w->operation);
	if (w->has_fd)
		json_object_set_new(j, "fd", json_integer(w->fd));
	if (w->has_timeout_ms)
		json_object_set_new(j, "timeout_ms", json_integer(w->timeout_ms));
	if (w->has_duration) {
		json_object_set_new(j, "duration_ns", json_integer((json_int_t)w->duration_ns));
		json_object_set_new(j, "absolute", json_boolean(w->absolute));
	}
	if (w->has_address)
		json_object_set_new(j, "address", ct_json_hex_value(w->address));
	if (w->has_value)
		json_object_set_new(j, "value", json_integer(w->value));
	if (w->has_pid)
		json_object_set_new(j, "pid", json_integer(w->pid));
	set_str(j, "object", ct_wait_object_to_string(w->object));
	set_str(j, "recognized_by", w->recognized_by);
	if (w->object == CT_WAIT_OBJECT_RWLOCK)
		json_object_set_new(j, "wants_write", json_boolean(w->wants_write));
	json_object_set_new(j, "lock", w->lock >= 0 ? json_integer(w->lock) : json_null());
	json_object_set_new(j, "frame", w->frame >= 0 ? json_integer(w->frame) : json_null());
	json_object_set_new(j, "function", ct_json_string_value(w->function));
	return j;
}

static json_t *lock_json(const struct ct_lock *l)
{
	json_t *j = json_object();
	json_object_set_new(j, "address", ct_json_hex_value(l->address));
	json_object_set_new(j, "kind", ct_json_string_value(ct_lock_kind_to_string(l->kind)));
	json_object_set_new(j, "name", ct_json_string_value(l->name));
	json_object_set_new(j, "name_from_frame", json_boolean(l->name_from_frame));
	set_str(j, "type", l->type);
	json_object_set_new(j, "robust", json_boolean(l->robust));
	json_object_set_new(j, "priority_inherit", json_boolean(l->priority_inherit));
	if (l->has_word)
		json_object_set_new(j, "word", ct_json_hex_value(l->word));
	json_object_set_new(j, "owner", l->has_owner ? json_integer(l->owner) : json_null());
	if (l->has_owner) {
		json_object_set_new(j, "owner_field", ct_json_string_value(l->owner_field));
		json_object_set_new(j, "owner_in_dump", json_boolean(l->owner_in_dump));
		json_object_set_new(j, "owner_died", json_boolean(l->owner_died));
	}
	if (l->has_count)
		json_object_set_new(j, "count", json_integer(l->count));
	if (l->has_readers)
		json_object_set_new(j, "readers", json_integer(l->readers));
	json_object_set_new(j, "waiters", json_integer((json_int_t)l->num_waiters));
	set_str(j, "note", l->note);
	return j;
}

static json_t *id_array(const int64_t *ids, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n && i < CT_GO_HANG_LISTED; i++)
		json_array_append_new(a, json_integer(ids[i]));
	return a;
}

/** hang.goroutines: a Go process's goroutines by wait, its sync locks, who can still run. */
static json_t *go_hang_json(const struct ct_go_hang *g)
{
	json_t *j = json_object();
	json_object_set_new(j, "count", json_integer((json_int_t)g->goroutines));
	json_t *by = json_array();
	for (size_t i = 0; i < g->num_counts; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "wait", ct_json_string_value(g->counts[i].wait));
		json_object_set_new(o, "sync", ct_json_string_value(g->counts[i].sync));
		json_object_set_new(o, "count", json_integer((json_int_t)g->counts[i].count));
		json_array_append_new(by, o);
	}
	json_object_set_new(j, "by_wait", by);
	json_object_set_new(j, "busy", json_integer((json_int_t)g->num_busy));
	json_object_set_new(j, "busy_ids", id_array(g->busy, g->num_busy));
	json_object_set_new(j, "may_wake", json_integer((json_int_t)g->num_may_wake));
	json_object_set_new(j, "may_wake_ids", id_array(g->may_wake, g->num_may_wake));
	json_t *locks = json_array();
	for (size_t i = 0; i < g->num_locks; i++) {
		const struct ct_go_lock *l = &g->locks[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", ct_json_string_value(l->kind));
		json_object_set_new(o, "address", ct_json_hex_value(l->address));
		json_object_set_new(o, "name", ct_json_string_value(l->name));
		json_object_set_new(o, "call", ct_json_string_value(l->sync));
		json_object_set_new(o, "waiters", json_integer((json_int_t)l->num_waiters));
		json_object_set_new(o, "waiter_ids", id_array(l->waiters, l->num_waiters));
		json_object_set_new(o, "releasable", json_boolean(g->num_busy || g->num_may_wake));
		json_array_append_new(locks, o);
	}
	json_object_set_new(j, "locks", locks);
	json_object_set_new(j, "lock_unknown", json_integer((json_int_t)g->num_lock_unknown));
	return j;
}

json_t *ct_json_hang(const struct ct_report *r)
{
	const struct ct_hang *h = &r->hang;
	if (!h->present)
		return NULL;
	json_t *j = json_object();
	json_object_set_new(j, "glibc", ct_json_string_value(h->glibc));
	json_t *threads = json_array();
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		if (!t->wait.present)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "tid", json_integer(t->tid));
		json_object_set_new(o, "state", ct_json_string_value(t->wait.text));
		json_object_set_new(o, "function", ct_json_string_value(t->wait.function));
		long li = t->wait.lock;
		const struct ct_lock *l = li >= 0 && (size_t)li < h->num_locks ? &h->locks[li] : NULL;
		json_object_set_new(o, "lock", l ? json_integer(li) : json_null());
		json_object_set_new(o, "holder", l && l->has_owner ? json_integer(l->owner) : json_null());
		json_array_append_new(threads, o);
	}
	json_object_set_new(j, "threads", threads);
	json_t *locks = json_array();
	for (size_t i = 0; i < h->num_locks; i++)
		json_array_append_new(locks, lock_json(&h->locks[i]));
	json_object_set_new(j, "locks", locks);
	json_t *cycles = json_array();
	for (size_t k = 0; k < h->num_cycles; k++) {
		const struct ct_cycle *c = &h->cycles[k];
		json_t *o = json_object(), *tids = json_array(), *lks = json_array(), *fns = json_array();
		json_t *holds = json_array();
		for (size_t i = 0; i < c->length; i++) {
			const struct ct_cycle_member *m = &h->members[c->start + i];
			json_array_append_new(tids, json_integer(m->tid));
			json_array_append_new(lks, m->lock >= 0 ? json_integer(m->lock) : json_null());
			json_array_append_new(fns, ct_json_string_value(m->function));
			json_array_append_new(holds, ct_json_string_value(m->holds_as));
		}
		json_object_set_new(o, "threads", tids);
		json_object_set_new(o, "locks", lks);
		json_object_set_new(o, "functions", fns);
		json_object_set_new(o, "holds_as", holds);
		json_object_set_new(o, "self", json_boolean(c->length == 1));
		json_array_append_new(cycles, o);
	}
	json_object_set_new(j, "cycles", cycles);
	json_t *sums = json_array();
	for (size_t i = 0; i < h->num_summaries; i++)
		json_array_append_new(sums, ct_json_string_value(h->summaries[i]));
	json_object_set_new(j, "summaries", sums);
	if (h->go.present)
		json_object_set_new(j, "goroutines", go_hang_json(&h->go));
	return j;
}
