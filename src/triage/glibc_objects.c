// glibc's synchronization objects around a futex word (glibc_objects.h), with the offsets of
// glibc_layout.c, over a memory callback: a dump's memory for a core or -p (locks.c), the window
// copied around a sampled thread's futex word (src/process/sample.c). Sources of the fields and
// bits: nptl/pthread_mutex_lock.c (__owner, the robust/PI lock word), nptl/pthread_rwlock_common.c
// (__readers' bits, __cur_writer), nptl/pthread_cond_wait.c (__g_signals[0..1]).
#include <string.h>

#include "triage/glibc_objects.h"
#include "util/bytes.h"

bool ct_glibc_read_u32(const struct ct_glibc_mem *m, uint64_t addr, uint32_t *ret)
{
	uint8_t b[4];
	if (!m->read(m->ctx, addr, b, 4))
		return false;
	*ret = ct_load32(b, m->big_endian);
	return true;
}

static bool symbol_is(const struct ct_glibc_mem *m, uint64_t base, unsigned size)
{
	return size && m->symbol_is && m->symbol_is(m->ctx, base, size);
}

static bool place_condition(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t a, uint64_t *ret)
{
	if (!L->cond_size)
		return false;
	// Waiters sleep on __g_signals[0] or [1]: the 8-byte alignment of the object tells which.
	for (unsigned g = 0; g < 2; g++) {
		if (symbol_is(m, a - L->cond_signals - 4 * g, L->cond_size)) {
			*ret = a - L->cond_signals - 4 * g;
			return true;
		}
	}
	if (m->pointer_size != 8)
		return false;
	*ret = a - L->cond_signals - ((a - L->cond_signals) % 8 ? 4 : 0);
	return true;
}

static bool place_rwlock(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t a, bool wants_write,
			 uint64_t *ret)
{
	if (!L->rwlock_size)
		return false;
	// Writers sleep on __writers_futex or __wrphase_futex, readers on __wrphase_futex or on
	// __readers (with PTHREAD_RWLOCK_RWAITING set in it, a bit __wrphase_futex never has).
	unsigned cands[2] = { wants_write ? L->rwlock_wrphase : L->rwlock_readers,
			      wants_write ? L->rwlock_writers_futex : L->rwlock_wrphase };
	for (unsigned i = 0; i < 2; i++) {
		if (symbol_is(m, a - cands[i], L->rwlock_size)) {
			*ret = a - cands[i];
			return true;
		}
	}
	if (m->pointer_size != 8)
		return false;
	if (wants_write) {
		*ret = a - ((a - L->rwlock_wrphase) % 8 == 0 ? L->rwlock_wrphase : L->rwlock_writers_futex);
		return true;
	}
	uint32_t word;
	if (a % 8 || !ct_glibc_read_u32(m, a, &word))
		return false;
	*ret = a - ((word & CT_RWLOCK_RWAITING) ? L->rwlock_readers : L->rwlock_wrphase);
	return true;
}

bool ct_glibc_object_place(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, enum ct_wait_object kind,
			   uint64_t addr, bool wants_write, uint64_t *ret)
{
	switch (kind) {
	case CT_WAIT_OBJECT_MUTEX:
		*ret = addr - L->mutex_lock;
		return true;
	case CT_WAIT_OBJECT_SEMAPHORE:
		*ret = addr - L->sem_value;
		return true;
	case CT_WAIT_OBJECT_JOIN: case CT_WAIT_OBJECT_GLIBC_INTERNAL: case CT_WAIT_OBJECT_UNKNOWN:
	case CT_WAIT_OBJECT_GO_RUNTIME:
		*ret = addr;
		return true;
	case CT_WAIT_OBJECT_CONDITION:
		return place_condition(L, m, addr, ret);
	case CT_WAIT_OBJECT_RWLOCK:
		return place_rwlock(L, m, addr, wants_write, ret);
	default:
		return false;
	}
}

void ct_glibc_read_mutex(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t base,
			 struct ct_glibc_object *o)
{
	memset(o, 0, sizeof(*o));
	o->mutex_kind = -1;
	uint32_t word, count, owner, kind;
	if (!ct_glibc_read_u32(m, base + L->mutex_lock, &word) || !ct_glibc_read_u32(m, base + L->mutex_count, &count) ||
	    !ct_glibc_read_u32(m, base + L->mutex_owner, &owner) || !ct_glibc_read_u32(m, base + L->mutex_kind, &kind)) {
		o->note = CT_GLIBC_NOTE_NOT_IN_MEMORY;
		return;
	}
	o->has_word = true;
	o->word = word;
	// Any bit beyond glibc's kind flags (and the priority ceiling of PRIO_PROTECT) is not a glibc mutex.
	uint32_t known = CT_MUTEX_KIND_MASK | CT_MUTEX_ROBUST | CT_MUTEX_PRIO_INHERIT | CT_MUTEX_PRIO_PROTECT |
			 CT_MUTEX_PSHARED | CT_MUTEX_ELISION | CT_MUTEX_NO_ELISION |
			 ((kind & CT_MUTEX_PRIO_PROTECT) ? 0x00fff000u : 0);
	if (kind & ~known) {
		o->note = CT_GLIBC_NOTE_BAD_KIND;
		o->bad_kind = kind;
		return;
	}
	o->mutex_kind = (int)(kind & CT_MUTEX_KIND_MASK);
	o->robust = kind & CT_MUTEX_ROBUST;
	o->priority_inherit = kind & CT_MUTEX_PRIO_INHERIT;
	if ((kind & CT_MUTEX_KIND_MASK) == 1 && count) {
		o->has_count = true;
		o->count = count;
	}
	if (o->robust || o->priority_inherit) {
		// The kernel's futex protocol: the lock word is the owner's tid with two flag bits.
		if (word & CT_FUTEX_TID_MASK) {
			o->has_owner = true;
			o->owner = (int)(word & CT_FUTEX_TID_MASK);
			o->owner_field = "lock word";
			o->owner_died = word & CT_FUTEX_OWNER_DIED;
		} else {
			o->note = CT_GLIBC_NOTE_UNLOCKED;
		}
		return;
	}
	if (word == 0) {
		o->note = CT_GLIBC_NOTE_RELEASED;
	} else if (owner && owner < CT_FUTEX_TID_MASK) {
		o->has_owner = true;
		o->owner = (int)owner;
		o->owner_field = "__owner";
	} else {
		o->note = CT_GLIBC_NOTE_NO_OWNER;
	}
}

void ct_glibc_read_rwlock(const struct ct_glibc_layout *L, const struct ct_glibc_mem *m, uint64_t base,
			  struct ct_glibc_object *o)
{
	memset(o, 0, sizeof(*o));
	o->mutex_kind = -1;
	uint32_t readers, writer;
	if (!ct_glibc_read_u32(m, base + L->rwlock_readers, &readers) ||
	    !ct_glibc_read_u32(m, base + L->rwlock_cur_writer, &writer)) {
		o->note = CT_GLIBC_NOTE_NOT_IN_MEMORY;
		return;
	}
	o->has_word = true;
	o->word = readers;
	if ((readers & CT_RWLOCK_WRLOCKED) && writer && writer < CT_FUTEX_TID_MASK) {
		o->has_owner = true;
		o->owner = (int)writer;
		o->owner_field = "__cur_writer";
	} else if (!(readers & CT_RWLOCK_WRPHASE) && readers >> CT_RWLOCK_READER_SHIFT) {
		o->has_readers = true;
		o->readers = readers >> CT_RWLOCK_READER_SHIFT;
		o->note = CT_GLIBC_NOTE_READERS;
	} else {
		o->note = CT_GLIBC_NOTE_NO_WRITER;
	}
}
