// The objects the futex waits belong to, and their holders as glibc recorded them in the dump:
// pthread_mutex_t __owner (or the lock word's tid for robust and priority-inheritance mutexes),
// pthread_rwlock_t __cur_writer while write-locked, the joined thread's tid word for pthread_join.
// Condition variables, semaphores, readers of a rwlock and glibc's internal locks record no owner:
// those waits are reported without one (docs/hangs.md). The fields are read by glibc_objects.c (the
// reader `coretriage sample` shares) over the dump's memory; this file groups waits into locks and words them.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump/elfcore.h"
#include "modules/modules.h"
#include "triage/glibc_objects.h"
#include "triage/hang.h"
#include "triage/triage.h"

/** Locks named from DWARF (each lookup walks the module's compilation units). */
#define MAX_DWARF_NAMES 64

struct placed {
	uint64_t base;
	enum ct_lock_kind kind;
	size_t thread;
};

static bool read_dump(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	return ct_core_read_fast(((const struct ct_triage_input *)ctx)->core, addr, buf, len);
}

/** A symbol starts at @p base with exactly the object's @p size: the object is placed there. */
static bool symbol_is(const void *ctx, uint64_t base, unsigned size)
{
	struct ct_data_symbol sym;
	return size && ct_data_symbol(ctx, base, &sym) && sym.start == base && sym.size == size;
}

static struct ct_glibc_mem dump_memory(const struct ct_triage_input *s)
{
	return (struct ct_glibc_mem){ .read = read_dump, .symbol_is = symbol_is, .ctx = s,
				      .big_endian = s->core->big_endian, .pointer_size = s->core->arch->pointer_size };
}

static bool read_u32(const struct ct_triage_input *s, uint64_t addr, uint32_t *ret)
{
	const struct ct_glibc_mem m = dump_memory(s);
	return ct_glibc_read_u32(&m, addr, ret);
}

/** Recognizes an unknown futex by the symbol holding it: its size and the word's offset in it. */
static enum ct_wait_object kind_from_symbol(const struct ct_triage_input *s, const struct ct_glibc_layout *L,
					    uint64_t addr, uint64_t *base_ret)
{
	struct ct_data_symbol sym;
	if (!ct_data_symbol(s, addr, &sym))
		return CT_WAIT_OBJECT_NONE;
	uint64_t off = addr - sym.start;
	*base_ret = sym.start;
	if (sym.size == L->mutex_size && off == L->mutex_lock)
		return CT_WAIT_OBJECT_MUTEX;
	if (L->cond_size && sym.size == L->cond_size && (off == L->cond_signals || off == L->cond_signals + 4))
		return CT_WAIT_OBJECT_CONDITION;
	if (L->rwlock_size && sym.size == L->rwlock_size &&
	    (off == L->rwlock_readers || off == L->rwlock_wrphase || off == L->rwlock_writers_futex))
		return CT_WAIT_OBJECT_RWLOCK;
	if (sym.size == L->sem_size && off == L->sem_value)
		return CT_WAIT_OBJECT_SEMAPHORE;
	return CT_WAIT_OBJECT_NONE;
}

static const char *const mutex_types[4] = { "normal", "recursive", "error-checking", "adaptive" };

// The fields glibc_objects.c read, into the model's lock, the reasons worded.
static void to_lock(struct ct_strpool *strings, const char *what, const struct ct_glibc_object *o, struct ct_lock *l)
{
	l->has_word = o->has_word;
	l->word = o->word;
	if (o->mutex_kind >= 0) {
		l->type = ct_strpool_intern(strings, mutex_types[o->mutex_kind]);
		l->mutex_type = (enum ct_mutex_type)(CT_MUTEX_TYPE_NORMAL + o->mutex_kind);
	}
	l->robust = o->robust;
	l->priority_inherit = o->priority_inherit;
	l->has_count = o->has_count;
	l->count = o->count;
	l->has_owner = o->has_owner;
	l->owner = o->owner;
	l->owner_field = o->owner_field ? ct_strpool_intern(strings, o->owner_field) : NULL;
	l->owner_died = o->owner_died;
	l->has_readers = o->has_readers;
	l->readers = o->readers;
	switch (o->note) {
	case CT_GLIBC_NOTE_NOT_IN_MEMORY:
		l->note = ct_strpool_printf(strings, "the %s is not in the dump", what);
		break;
	case CT_GLIBC_NOTE_BAD_KIND:
		l->note = ct_strpool_printf(strings, "__kind 0x%x is not a glibc mutex kind: owner not read", o->bad_kind);
		break;
	case CT_GLIBC_NOTE_UNLOCKED:
		l->note = ct_strpool_intern(strings, "unlocked in the dump");
		break;
	case CT_GLIBC_NOTE_RELEASED:
		l->note = ct_strpool_intern(strings, "unlocked in the dump (released just before it; the waiters were being woken)");
		break;
	case CT_GLIBC_NOTE_NO_OWNER:
		l->note = ct_strpool_intern(strings, "locked, but __owner is 0 (taken a moment before the dump, or not through pthread_mutex_lock)");
		break;
	case CT_GLIBC_NOTE_READERS:
		l->note = ct_strpool_printf(strings, "read-locked by %u reader%s; glibc does not record which threads", o->readers,
					   o->readers == 1 ? "" : "s");
		break;
	case CT_GLIBC_NOTE_NO_WRITER:
		l->note = ct_strpool_intern(strings, "no writer recorded in __cur_writer");
		break;
	default:
		break;
	}
}

static void read_lock(const struct ct_triage_input *s, const struct ct_glibc_layout *L, struct ct_lock *l)
{
	struct ct_strpool *strings = s->out.strings;
	const struct ct_glibc_mem m = dump_memory(s);
	switch (l->kind) {
	case CT_LOCK_MUTEX: {
		struct ct_glibc_object o;
		ct_glibc_read_mutex(L, &m, l->address, &o);
		to_lock(strings, "mutex", &o, l);
		break;
	}
	case CT_LOCK_RWLOCK: {
		struct ct_glibc_object o;
		ct_glibc_read_rwlock(L, &m, l->address, &o);
		to_lock(strings, "rwlock", &o, l);
		break;
	}
	case CT_LOCK_THREAD: {
		// pthread_join sleeps on the joined thread's tid word, which the kernel clears at its exit.
		uint32_t tid;
		if (read_u32(s, l->address, &tid) && tid && tid < CT_FUTEX_TID_MASK) {
			l->has_word = true;
			l->word = tid;
			l->has_owner = true;
			l->owner = (int)tid;
			l->owner_field = ct_strpool_intern(strings, "tid word");
		}
		break;
	}
	case CT_LOCK_CONDITION:
		l->note = ct_strpool_intern(strings, "a condition variable has no owner: its waiters sleep until signalled");
		break;
	case CT_LOCK_SEMAPHORE: {
		uint32_t v;
		if (read_u32(s, l->address + L->sem_value, &v)) {
			l->has_word = true;
			l->word = v;
		}
		l->note = ct_strpool_intern(strings, "a semaphore has no owner");
		break;
	}
	case CT_LOCK_GO_RUNTIME:
		l->note = ct_strpool_intern(strings, "an idle M of the Go runtime (its note or a runtime lock), not a lock of the program");
		break;
	case CT_LOCK_GLIBC_INTERNAL:
		l->note = ct_strpool_intern(strings, "a glibc-internal lock (stdio, malloc, the dynamic loader): glibc records no owner");
		break;
	default:
		l->note = ct_strpool_intern(strings, "not recognized as a glibc object: no owner is read");
		break;
	}
}

/**
 * pthread_join without glibc's frames: the wait expects the word to hold a tid of the dump and it
 * does (glibc waits on the joined thread's tid word while it is that tid; a lock word never equals a
 * tid unless it is a PI/robust mutex, which waits with FUTEX_LOCK_PI instead). @p tids: the dump's
 * tids, sorted.
 */
static bool joins_thread(const struct ct_triage_input *s, const struct ct_wait *w, const int *tids)
{
	uint32_t word;
	if (!w->has_value || !w->value || w->value >= CT_FUTEX_TID_MASK || !w->operation ||
	    (strcmp(w->operation, "wait") != 0 && strcmp(w->operation, "wait_bitset") != 0))
		return false;
	// The kernel put the thread to sleep only because the word held `val` then; when the word is in
	// the dump it must still hold it.
	if (read_u32(s, w->address, &word) && word != w->value)
		return false;
	return ct_tids_contain(tids, s->stacks->count, (int)w->value);
}

static int compare_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

void ct_locks_build(const struct ct_triage_input *s, const struct ct_glibc_layout *L, struct ct_verdict *r)
{
	const struct ct_stacks *st = s->stacks;
	if (!L || !st->count || !r->waits)
		return;
	struct placed *p = calloc(st->count, sizeof(*p));
	int *tids = calloc(st->count, sizeof(*tids));
	if (!p || !tids) {
		free(p);
		free(tids);
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < st->count; i++)
		tids[i] = st->items[i].tid;
	ct_tids_sort(tids, st->count);
	for (size_t i = 0; i < st->count; i++) {
		struct ct_wait *w = &r->waits[i];
		if (!w->present || w->object == CT_WAIT_OBJECT_NONE || !w->has_address)
			continue;
		if (w->object == CT_WAIT_OBJECT_UNKNOWN) {
			uint64_t base;
			enum ct_wait_object k = kind_from_symbol(s, L, w->address, &base);
			if (k == CT_WAIT_OBJECT_NONE && joins_thread(s, w, tids))
				k = CT_WAIT_OBJECT_JOIN;
			if (k != CT_WAIT_OBJECT_NONE) {
				w->object = k;
				w->recognized_by = ct_strpool_intern(r->strings, "address");
			}
		}
		uint64_t base;
		const struct ct_glibc_mem m = dump_memory(s);
		if (!ct_glibc_object_place(L, &m, w->object, w->address, w->wants_write, &base))
			base = w->address;
		p[n++] = (struct placed){ base, ct_lock_kind_of_wait(w->object), i };
	}
	qsort(p, n, sizeof(*p), compare_placed);
	size_t groups = 0;
	for (size_t i = 0; i < n; i++)
		groups += i == 0 || p[i].base != p[i - 1].base || p[i].kind != p[i - 1].kind;
	r->hang.locks = groups ? calloc(groups, sizeof(*r->hang.locks)) : NULL;
	if (groups && !r->hang.locks) {
		free(p);
		free(tids);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || p[i].base != p[i - 1].base || p[i].kind != p[i - 1].kind) {
			struct ct_lock *l = &r->hang.locks[r->hang.num_locks++];
			l->address = p[i].base;
			l->kind = p[i].kind;
			// DWARF member paths for the first locks; beyond, ELF symbol names only (bounded cost).
			l->name = ct_lock_name(s, p[i].base, r->hang.num_locks <= MAX_DWARF_NAMES);
			if (!l->name && r->hang.num_locks <= MAX_DWARF_NAMES) {
				const struct ct_thread *t = &st->items[p[i].thread];
				l->name = ct_lock_name_from_frame(s, t, r->waits[p[i].thread].frame, p[i].base);
				l->name_from_frame = l->name != NULL;
			}
			read_lock(s, L, l);
			const struct ct_wait *w = &r->waits[p[i].thread];
			if (l->kind == CT_LOCK_THREAD && !l->has_owner && !l->has_word && w->has_value && w->value &&
			    w->value < CT_FUTEX_TID_MASK) {
				// The tid word is not in the dump: the wait's `val` is what it held when the
				// waiter went to sleep (futex_wait sleeps only while the word equals it).
				l->has_owner = true;
				l->owner = (int)w->value;
				l->owner_field = ct_strpool_intern(r->strings, "futex value");
			}
			l->owner_in_dump = l->has_owner && ct_tids_contain(tids, st->count, l->owner);
		}
		struct ct_lock *l = &r->hang.locks[r->hang.num_locks - 1];
		l->num_waiters++;
		r->waits[p[i].thread].lock = (long)(r->hang.num_locks - 1);
	}
	free(p);
	free(tids);
}
