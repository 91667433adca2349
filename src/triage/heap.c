// glibc heap state (docs/root-cause.md): the main arena's bins read from the dump, every walk capped,
// and what they say about the crash's pointers. Layout: glibc 2.32 to 2.38 on LP64, malloc/malloc.c
// (struct malloc_chunk: prev_size, size with PREV_INUSE 1 / IS_MMAPPED 2 / NON_MAIN_ARENA 4, fd, bk;
// struct malloc_state: mutex, flags, have_fastchunks, fastbinsY[10] at 16, top at 96, last_remainder
// at 104, bins[254] at 112; struct tcache_perthread_struct: uint16_t counts[64], tcache_entry
// *entries[64], the first chunk of the main heap, 0x290 bytes). Safe-linking (2.32, commit a1a486d7):
// a tcache or fastbin next pointer is stored as (address of the field >> 12) ^ pointer.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "triage/gather.h"
#include "triage/hang.h"
#include "triage/heap.h"
#include "unwind/stacks.h"

#define SIZE_SZ 8
#define CHUNK_HDR (2 * SIZE_SZ)
#define PREV_INUSE 1ULL
#define SIZE_BITS 7ULL
#define MINSIZE 32
#define TCACHE_BINS 64
#define TCACHE_STRUCT_CHUNK 0x290
#define NFASTBINS 10
#define NBINS 128
#define ARENA_FASTBINS 16
#define ARENA_TOP 96
#define ARENA_BINS 112
/** Entries walked per bin: tcache_count defaults to 7, a fastbin or a small bin rarely holds more. */
#define MAX_PER_BIN 64
/** Free chunks kept over all bins: a bound on the work of a hostile or huge heap. */
#define MAX_FREE 4096
/** Chunks stepped over when walking the main heap to the one holding an address. */
#define MAX_WALK 65536

struct free_chunk {
	uint64_t chunk;
	uint64_t size;
	enum ct_heap_bin_kind kind;
	unsigned index, position, count;
	bool has_stored;
	uint64_t stored; /**< the safe-linked next pointer as it sits in memory (tcache, fastbin) */
};

struct heap {
	const struct ct_triage_input *s;
	uint64_t arena, top, heap_start, heap_end;
	struct free_chunk *free;
	size_t nfree;
	bool have_key;
	uint64_t key; /**< glibc 2.34+ tcache_key, written at offset 8 of every chunk freed into the tcache */
	struct ct_heap_poison poison; /**< the first bin entry that cannot be a chunk */
};

static bool word(const struct heap *h, uint64_t addr, uint64_t *ret)
{
	return ct_core_read_word(h->s->core, addr, ret);
}

static bool chunk_size(const struct heap *h, uint64_t chunk, uint64_t *ret)
{
	uint64_t sz;
	if (!word(h, chunk + SIZE_SZ, &sz))
		return false;
	*ret = sz & ~SIZE_BITS;
	return true;
}

static void add_free(struct heap *h, uint64_t chunk, enum ct_heap_bin_kind kind, unsigned index, unsigned position,
		     bool has_stored, uint64_t stored)
{
	if (h->nfree == MAX_FREE)
		return;
	struct free_chunk fc = { .chunk = chunk, .kind = kind, .index = index, .position = position,
				 .has_stored = has_stored, .stored = stored };
	if (!chunk_size(h, chunk, &fc.size))
		fc.size = 0;
	h->free[h->nfree++] = fc;
}

/**
 * Why @p chunk, an entry of a bin that holds chunks of @p csize bytes, cannot be a chunk glibc put
 * there, or NULL. glibc itself checks the alignment (tcache_get, "unaligned tcache chunk") and a
 * fastbin chunk's size ("memory corruption (fast)"); a chunk outside the dump was never malloc's.
 */
static const char *entry_problem(const struct heap *h, uint64_t chunk, uint64_t csize)
{
	uint64_t sz;
	if (chunk & 15)
		return "not 16-byte aligned";
	// Unreadable but inside a mapping (a truncated or filtered core): no claim, the walk just ends.
	if (!chunk_size(h, chunk, &sz))
		return ct_core_find_segment(h->s->core, chunk) ? NULL : "not mapped (no mapping of the process holds it)";
	if (sz != csize)
		return "its size field does not match the bin's chunk size";
	return NULL;
}

static void note_poison(struct heap *h, enum ct_heap_bin_kind kind, unsigned index, unsigned position, uint64_t pointer,
			bool has_source, uint64_t source, const char *reason)
{
	if (h->poison.present)
		return;
	h->poison = (struct ct_heap_poison){ .present = true, .bin = kind, .index = index, .position = position,
					     .pointer = pointer, .has_source = has_source, .source = source, .reason = reason };
}

static void read_tcache(struct heap *h)
{
	uint64_t hdr;
	if (!word(h, h->heap_start + SIZE_SZ, &hdr) || (hdr & ~SIZE_BITS) != TCACHE_STRUCT_CHUNK)
		return;
	uint64_t t = h->heap_start + CHUNK_HDR;
	uint16_t counts[TCACHE_BINS];
	if (!ct_core_read_fast(h->s->core, t, counts, sizeof(counts)))
		return;
	for (unsigned i = 0; i < TCACHE_BINS; i++) {
		uint64_t e;
		if (!counts[i] || !word(h, t + 2 * TCACHE_BINS + 8ULL * i, &e))
			continue;
		size_t first = h->nfree;
		uint64_t from = 0; // the chunk whose stored next pointer gave e (0: the bin's head)
		for (unsigned k = 0; e && k < counts[i] && k < MAX_PER_BIN; k++) {
			uint64_t stored;
			const char *why = entry_problem(h, e - CHUNK_HDR, MINSIZE + 16ULL * i);
			if (why)
				note_poison(h, CT_HEAP_BIN_TCACHE, i, k, e, from != 0, from, why);
			if (why || !word(h, e, &stored))
				break;
			add_free(h, e - CHUNK_HDR, CT_HEAP_BIN_TCACHE, i, k, true, stored);
			from = e - CHUNK_HDR;
			e = stored ^ (e >> 12);
		}
		for (size_t k = first; k < h->nfree; k++)
			h->free[k].count = counts[i];
	}
}

static void read_fastbins(struct heap *h)
{
	for (unsigned i = 0; i < NFASTBINS; i++) {
		uint64_t p;
		if (!word(h, h->arena + ARENA_FASTBINS + 8ULL * i, &p))
			continue;
		size_t first = h->nfree;
		uint64_t from = 0;
		for (unsigned k = 0; p && k < MAX_PER_BIN; k++) {
			uint64_t stored;
			const char *why = entry_problem(h, p, MINSIZE + 16ULL * i);
			if (why)
				note_poison(h, CT_HEAP_BIN_FASTBIN, i, k, p, from != 0, from, why);
			if (why || !word(h, p + CHUNK_HDR, &stored))
				break;
			add_free(h, p, CT_HEAP_BIN_FASTBIN, i, k, true, stored);
			from = p;
			p = stored ^ ((p + CHUNK_HDR) >> 12);
		}
		for (size_t k = first; k < h->nfree; k++)
			h->free[k].count = (unsigned)(h->nfree - first);
	}
}

static void read_bins(struct heap *h)
{
	for (unsigned i = 1; i < NBINS; i++) {
		// bin_at(m, i): the fd/bk pair bins[2(i-1)] seen as a chunk's fd and bk.
		uint64_t bin = h->arena + ARENA_BINS + 16ULL * (i - 1) - CHUNK_HDR;
		uint64_t p;
		if (!word(h, bin + CHUNK_HDR, &p))
			continue;
		size_t first = h->nfree;
		enum ct_heap_bin_kind kind = i == 1 ? CT_HEAP_BIN_UNSORTED : i < 64 ? CT_HEAP_BIN_SMALL : CT_HEAP_BIN_LARGE;
		for (unsigned k = 0; p && p != bin && k < MAX_PER_BIN; k++) {
			add_free(h, p, kind, i, k, false, 0);
			if (!word(h, p + CHUNK_HDR, &p))
				break;
		}
		for (size_t k = first; k < h->nfree; k++)
			h->free[k].count = (unsigned)(h->nfree - first);
	}
}

static bool heap_open(const struct ct_triage_input *s, struct heap *h, unsigned *major, unsigned *minor)
{
	memset(h, 0, sizeof(*h));
	h->s = s;
	const struct ct_arch_info *arch = s->core->arch;
	// LP64 little-endian glibc with safe-linking; 2.39 is not checked against this layout yet.
	if (!arch || arch->pointer_size != 8 || !ct_glibc_version(s->mods, major, minor) || *major != 2 || *minor < 32 ||
	    *minor > 38)
		return false;
	if (!ct_find_libc_symbol(s, "main_arena", &h->arena) || !word(h, h->arena + ARENA_TOP, &h->top))
		return false;
	// The main heap is the brk area, one mapping: the top chunk lies in it, the tcache starts it.
	const struct ct_segment *seg = ct_core_find_segment(s->core, h->top);
	if (!seg)
		return false;
	h->heap_start = seg->vaddr;
	h->heap_end = seg->vaddr + seg->memsz;
	h->free = malloc(MAX_FREE * sizeof(*h->free));
	if (!h->free)
		return false;
	uint64_t key_addr;
	h->have_key = ct_find_libc_symbol(s, "tcache_key", &key_addr) && word(h, key_addr, &h->key) && h->key;
	read_tcache(h);
	read_fastbins(h);
	read_bins(h);
	return true;
}

static const struct free_chunk *free_holding(const struct heap *h, uint64_t addr)
{
	for (size_t i = 0; i < h->nfree; i++) {
		const struct free_chunk *fc = &h->free[i];
		if (fc->size && addr >= fc->chunk && addr - fc->chunk < fc->size)
			return fc;
	}
	return NULL;
}

static void neighbours(const struct heap *h, struct ct_heap_chunk *c)
{
	uint64_t next = c->address + c->size, nsz;
	if (word(h, next + SIZE_SZ, &nsz)) {
		c->has_next = true;
		c->next_address = next;
		c->next_size = nsz & ~SIZE_BITS;
		c->next_prev_inuse = nsz & PREV_INUSE;
	}
	uint64_t own, prev_size;
	if (word(h, c->address + SIZE_SZ, &own) && !(own & PREV_INUSE) && word(h, c->address, &prev_size) &&
	    prev_size && prev_size <= c->address && !(prev_size & 15)) {
		c->has_prev = true;
		c->prev_address = c->address - prev_size;
		c->prev_size = prev_size;
	}
}

/**
 * The chunk holding @p addr: a free chunk of the bins, else by walking the main heap (capped). @p user:
 * @p addr is user memory (a load's address), which an in-use chunk has up to its successor's size
 * field; else it is a chunk header's address, the successor's own.
 */
static bool chunk_holding(const struct heap *h, uint64_t addr, bool user, struct ct_heap_chunk *ret)
{
	struct ct_heap_chunk c = { 0 };
	const struct free_chunk *fc = free_holding(h, addr);
	if (fc) {
		c.present = c.free = c.in_bin = true;
		c.address = fc->chunk;
		c.size = fc->size;
		c.bin = fc->kind;
		c.index = fc->index;
		c.count = fc->count;
		c.position = fc->position;
		neighbours(h, &c);
		*ret = c;
		return true;
	}
	if (addr < h->heap_start + TCACHE_STRUCT_CHUNK || addr >= h->heap_end || addr >= h->top + (user ? SIZE_SZ : 0))
		return false;
	uint64_t p = h->heap_start;
	for (unsigned k = 0; k < MAX_WALK && p < h->top; k++) {
		uint64_t sz;
		if (!chunk_size(h, p, &sz) || sz < MINSIZE || (sz & 15) || sz > h->heap_end - p)
			return false; // a corrupt header: no claim past it
		// An in-use chunk's user memory ends in its successor's prev_size field (malloc(24): 0x20).
		uint64_t next_word;
		bool in_slack = user && addr >= p + sz && addr - (p + sz) < SIZE_SZ && word(h, p + sz + SIZE_SZ, &next_word) &&
				(next_word & PREV_INUSE);
		if (addr < p + sz || in_slack) {
			c.present = true;
			c.address = p;
			c.size = sz;
			neighbours(h, &c);
			// tcache and fastbin chunks keep their successor's PREV_INUSE set: they are free
			// only by the bins, and every bin entry was looked at above (up to the caps).
			c.free = c.has_next && !c.next_prev_inuse;
			*ret = c;
			return true;
		}
		p += sz;
	}
	return false;
}

/**
 * The first header of the main heap, walked from its start, that does not look like a chunk (size
 * under 32, misaligned, past the top chunk or the mapping) and the chunk before it: the one whose
 * end was overrun. False when the walk meets none (up to its cap) or the first chunk is the bad one.
 */
static bool find_overflow(const struct heap *h, struct ct_heap_overflow *ret)
{
	uint64_t p = h->heap_start, prev = 0, prev_size = 0;
	for (unsigned k = 0; k < MAX_WALK && p <= h->top; k++) {
		uint64_t raw;
		if (!word(h, p + SIZE_SZ, &raw))
			return false;
		uint64_t sz = raw & ~SIZE_BITS;
		// Every chunk before the top one ends at or before it; the top one ends with the mapping.
		uint64_t room = p == h->top ? h->heap_end - p : h->top - p;
		if (sz < MINSIZE || (sz & 15) || sz > room) {
			if (!prev)
				return false;
			memset(ret, 0, sizeof(*ret));
			ret->present = true;
			ret->chunk_address = prev;
			ret->chunk_size = prev_size;
			ret->header_address = p;
			ret->header_size = raw;
			// An in-use chunk's usable bytes end at its successor's size field.
			size_t n = CT_HEAP_OVERFLOW_BYTES;
			while (n && !ct_core_read_fast(h->s->core, p + SIZE_SZ, ret->bytes, n))
				n /= 2;
			ret->num_bytes = n;
			return true;
		}
		if (p == h->top)
			return false;
		prev = p;
		prev_size = sz;
		p += sz;
	}
	return false;
}

/** The hex value a rendered variable starts with ("0x55… \"text\""). */
static bool variable_pointer(const struct ct_variable *v, uint64_t *ret)
{
	if (!v->value || strncmp(v->value, "0x", 2) != 0)
		return false;
	char *end;
	*ret = strtoull(v->value, &end, 16);
	return end != v->value + 2;
}

/**
 * "`label` (local of run_overflow, frame #3)": the innermost variable of the program's own frames
 * whose value (with @p entry, or its value at the function's entry) points into [@p lo, @p hi),
 * pooled; NULL when none does.
 */
static const char *owner_of(const struct ct_triage_input *s, const struct ct_facts *f, uint64_t lo, uint64_t hi,
			    bool entry)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	for (size_t i = 0; t && f->frame_base + i < t->num_frames && i < f->num_frames && i < 64; i++) {
		const struct ct_frame *fr = &t->frames[f->frame_base + i];
		if (!f->frames[i].own)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			size_t first = pass ? fr->first_local : fr->first_parameter;
			size_t num = pass ? fr->num_locals : fr->num_parameters;
			for (size_t k = 0; k < num && first + k < t->num_variables; k++) {
				const struct ct_variable *v = &t->variables[first + k];
				uint64_t val;
				struct ct_variable at_entry = { .value = v->entry_value };
				bool has = variable_pointer(v, &val) || (entry && variable_pointer(&at_entry, &val));
				if (v->name && has && val >= lo && val < hi)
					return ct_strpool_printf(s->out.strings, "`%s` (%s of %s, frame #%zu)", v->name,
								 pass ? "local" : "parameter", fr->function ? fr->function : "??",
								 f->frame_base + i);
			}
		}
	}
	return NULL;
}

/** The value of frame parameter @p name of the innermost frame of function @p fn (a hex value). */
static bool frame_param(const struct ct_thread *t, const char *const *fns, const char *name, uint64_t *ret)
{
	for (size_t i = 0; t && i < t->num_frames && i < 16; i++) {
		const struct ct_frame *f = &t->frames[i];
		bool match = false;
		// glibc's internal aliases: __GI___libc_free is __libc_free.
		const char *name_ = f->function && strncmp(f->function, "__GI_", 5) == 0 ? f->function + 5 : f->function;
		for (const char *const *fn = fns; *fn && name_; fn++)
			match = match || strcmp(name_, *fn) == 0;
		if (!match)
			continue;
		for (size_t k = 0; k < f->num_parameters; k++) {
			const struct ct_variable *v = &t->variables[f->first_parameter + k];
			if (v->name && strcmp(v->name, name) == 0 && variable_pointer(v, ret))
				return true;
		}
	}
	return false;
}

/** "tcache bin 1 (entry 1 of 2)", "fastbin 1 (entry 1 of 1)", "small bin 5 (entry 2)", pooled. */
static const char *bin_text(struct ct_strpool *pool, const struct ct_heap_chunk *c)
{
	const char *kind = c->bin == CT_HEAP_BIN_FASTBIN ? "fastbin" : ct_strpool_printf(pool, "%s bin", ct_heap_bin_kind_to_string(c->bin));
	if (c->bin == CT_HEAP_BIN_TCACHE || c->bin == CT_HEAP_BIN_FASTBIN)
		return ct_strpool_printf(pool, "%s %u (entry %u of %u)", kind, c->index, c->position + 1, c->count);
	return ct_strpool_printf(pool, "%s %u (entry %u)", kind, c->index, c->position + 1);
}

/** The pointer handed to free() or realloc() on the crashing stack, and what it is. */
static bool freed_pointer(const struct ct_thread *t, uint64_t *mem, const char **role)
{
	static const char *const frees[] = { "__libc_free", "free", NULL };
	static const char *const reallocs[] = { "__libc_realloc", "realloc", NULL };
	static const char *const int_free[] = { "_int_free", NULL };
	*role = "free() argument";
	if (frame_param(t, frees, "mem", mem))
		return true;
	// free()'s argument may be optimized out there; _int_free holds its chunk.
	uint64_t p;
	if (frame_param(t, int_free, "p", &p) && p <= UINT64_MAX - CHUNK_HDR) {
		*mem = p + CHUNK_HDR;
		return true;
	}
	*role = "realloc() argument";
	return frame_param(t, reallocs, "oldmem", mem);
}

/**
 * What glibc's checks tripped on, for a malloc abort or a fault inside the allocator: a heap
 * overflow (the header walked to is @p mem's own chunk or the top chunk, so the walk itself shows
 * which chunk lies before it) and a poisoned bin entry.
 */
static void glibc_checks(const struct ct_triage_input *s, const struct ct_facts *f, const struct heap *h, uint64_t mem,
			 struct ct_heap_facts *ret)
{
	ret->poison = h->poison;
	struct ct_heap_overflow ov;
	if (!find_overflow(h, &ov))
		return;
	// The walk reached a real chunk start when the program holds a pointer to it (free()'s argument
	// is often optimized out in glibc's frames, not in the caller's); else a size that only looked
	// right could have led it into the middle of a chunk.
	uint64_t user = ov.header_address + CHUNK_HDR;
	if ((mem && mem == user) || ov.header_address == h->top || owner_of(s, f, user, user + 1, true)) {
		ov.owner = owner_of(s, f, ov.chunk_address + CHUNK_HDR, ov.chunk_address + ov.chunk_size, false);
		ret->overflow = ov;
	}
}

/**
 * When the crash's pointer lies in no chunk the walk reaches (its header is the overwritten one),
 * the heap section shows the chunk whose end was overrun; for a poisoned tcache head, the tcache.
 */
static void overflow_chunk(const struct heap *h, struct ct_heap_facts *ret)
{
	if (ret->chunk.present)
		return;
	if (ret->overflow.present && chunk_holding(h, ret->overflow.chunk_address, false, &ret->chunk)) {
		// Its successor's PREV_INUSE bit is part of the overwritten header: only the bins say free.
		ret->chunk.free = ret->chunk.in_bin;
		ret->pointer = ret->overflow.chunk_address + CHUNK_HDR;
		ret->role = "chunk whose end was overrun";
	} else if (ret->poison.present && ret->poison.has_source && chunk_holding(h, ret->poison.source, false, &ret->chunk)) {
		ret->pointer = ret->poison.source + CHUNK_HDR;
		ret->role = "freed chunk whose next pointer is poisoned";
	} else if (ret->poison.present && ret->poison.bin == CT_HEAP_BIN_TCACHE) {
		// The tcache_perthread_struct is the heap's first chunk: entries[] holds the bins' heads.
		ret->chunk = (struct ct_heap_chunk){ .present = true, .address = h->heap_start, .size = TCACHE_STRUCT_CHUNK };
		ret->pointer = h->heap_start + CHUNK_HDR + 2 * TCACHE_BINS + 8ULL * ret->poison.index;
		ret->role = "tcache head holding the poisoned entry";
	}
}

void ct_heap_analyze(const struct ct_triage_input *s, const struct ct_facts *f, const struct ct_verdict *v,
		     struct ct_heap_facts *ret)
{
	memset(ret, 0, sizeof(*ret));
	bool fault = (f->sig.signo == CT_SIGSEGV || f->sig.signo == CT_SIGBUS) && f->sig.kernel_sent;
	bool malloc_abort = f->sig.signo == CT_SIGABRT && f->abort_msg.present && f->abort_msg.kind == CT_ABORT_MALLOC;
	if (!fault && !malloc_abort)
		return;
	struct heap h;
	unsigned major = 0, minor = 0;
	if (!heap_open(s, &h, &major, &minor)) {
		free(h.free);
		return;
	}
	ret->analyzed = true;
	ret->glibc_major = major;
	ret->glibc_minor = minor;
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	bool in_allocator = fault && ct_fault_in_allocator(f);
	uint64_t mem = 0;
	const char *mem_role = NULL;
	bool found = (malloc_abort || in_allocator) && freed_pointer(t, &mem, &mem_role);
	if (malloc_abort || in_allocator)
		glibc_checks(s, f, &h, found ? mem : 0, ret);
	if (malloc_abort) {
		ret->role = mem_role;
		if (found && mem >= CHUNK_HDR) {
			ret->pointer = mem;
			// The chunk of a free() argument is the header right before it, not a search.
			const struct free_chunk *fc = NULL;
			for (size_t i = 0; i < h.nfree && !fc; i++)
				if (h.free[i].chunk == mem - CHUNK_HDR)
					fc = &h.free[i];
			if (fc) {
				chunk_holding(&h, mem - CHUNK_HDR, false, &ret->chunk);
				ret->double_free = strstr(f->abort_msg.text, "double free") != NULL;
			} else {
				// Only a chunk the heap walk reaches is one: free(p + 16) points into a chunk.
				struct ct_heap_chunk c;
				if (chunk_holding(&h, mem - CHUNK_HDR, false, &c)) {
					if (c.address != mem - CHUNK_HDR)
						ret->role = "free() argument (not a chunk's start: inside this chunk)";
					ret->chunk = c;
				}
			}
		}
		overflow_chunk(&h, ret);
		free(h.free);
		return;
	}
	// A fault: the bad pointer, and where the root cause says it was loaded from.
	const struct ct_insn_facts *in = &f->insn;
	bool has_bad = in->fault_mem >= 0 && in->mem[in->fault_mem].has_base_value;
	uint64_t bad = has_bad ? in->mem[in->fault_mem].base_value : 0;
	const struct ct_root_cause *rc = &v->root_cause;
	const struct ct_root_step *last = rc->present && rc->num_steps ? &rc->steps[rc->num_steps - 1] : NULL;
	if (last && last->kind == CT_ROOT_STEP_LOAD_FROM && last->has_address) {
		struct ct_heap_chunk c;
		if (chunk_holding(&h, last->address, true, &c)) {
			ret->chunk = c;
			ret->pointer = last->address;
			ret->role = "address the bad pointer was loaded from";
			if (c.free && c.in_bin) {
				ret->use_after_free = true;
				ret->how = ct_strpool_printf(s->out.strings,
							     "the bad pointer was loaded from 0x%" PRIx64 ", inside the freed chunk 0x%" PRIx64 " (%s)",
							     last->address, c.address, bin_text(s->out.strings, &c));
			}
		}
	}
	for (size_t i = 0; has_bad && !ret->use_after_free && i < h.nfree; i++) {
		const struct free_chunk *fc = &h.free[i];
		if (!fc->has_stored || fc->stored != bad || !bad)
			continue;
		chunk_holding(&h, fc->chunk, false, &ret->chunk);
		ret->pointer = fc->chunk + CHUNK_HDR;
		ret->role = "freed chunk whose next pointer is the bad pointer";
		ret->use_after_free = true;
		ret->how = ct_strpool_printf(s->out.strings,
					     "the bad pointer 0x%" PRIx64 " is the safe-linked next pointer glibc stored at 0x%" PRIx64 " in the freed chunk 0x%" PRIx64 " (%s): a pointer read from freed memory",
					     bad, fc->chunk + CHUNK_HDR, fc->chunk, bin_text(s->out.strings, &ret->chunk));
	}
	if (has_bad && !ret->use_after_free && h.have_key && bad == h.key) {
		ret->use_after_free = true;
		ret->how = ct_strpool_printf(s->out.strings,
					     "the bad pointer 0x%" PRIx64 " is glibc's tcache_key, which free() writes into every chunk it puts in the tcache",
					     bad);
	}
	if (!ret->chunk.present && has_bad && chunk_holding(&h, bad, true, &ret->chunk)) {
		ret->pointer = bad;
		ret->role = "bad pointer";
	}
	overflow_chunk(&h, ret);
	free(h.free);
}

void ct_heap_to_verdict(const struct ct_heap_facts *hf, struct ct_verdict *v)
{
	if (!hf->analyzed || !hf->chunk.present)
		return;
	struct ct_heap_state *h = &v->heap;
	const struct ct_heap_chunk *c = &hf->chunk;
	h->present = true;
	h->glibc = ct_strpool_printf(v->strings, "%u.%u", hf->glibc_major, hf->glibc_minor);
	h->role = hf->role;
	h->pointer = hf->pointer;
	h->chunk_address = c->address;
	h->chunk_size = c->size;
	h->chunk_free = c->free;
	h->has_bin = c->in_bin;
	h->bin = c->bin;
	h->bin_index = c->index;
	h->bin_count = c->count;
	h->bin_position = c->position;
	h->num_neighbours = 0;
	if (c->has_prev) {
		struct ct_heap_neighbour *n = &h->neighbours[h->num_neighbours++];
		n->address = c->prev_address;
		n->size = c->prev_size;
		n->which = "previous";
	}
	if (c->has_next) {
		struct ct_heap_neighbour *n = &h->neighbours[h->num_neighbours++];
		n->address = c->next_address;
		n->size = c->next_size;
		n->prev_inuse = c->next_prev_inuse;
		n->has_prev_inuse = true;
		n->which = "next";
	}
	h->overflow = hf->overflow;
	h->poison = hf->poison;
	if (hf->overflow.present) {
		const struct ct_heap_overflow *o = &hf->overflow;
		ct_crash_add_evidence(&v->crash, v->strings, "heap overflow: the header of chunk 0x%" PRIx64 " (size word 0x%" PRIx64 ") does not look like a chunk: the chunk 0x%" PRIx64 " (size 0x%" PRIx64 ") before it was written past its end",
				      o->header_address, o->header_size, o->chunk_address, o->chunk_size);
		char hexs[3 * CT_HEAP_OVERFLOW_BYTES + 1] = "", ascii[CT_HEAP_OVERFLOW_BYTES + 1] = "";
		for (size_t i = 0; i < o->num_bytes; i++) {
			snprintf(hexs + 3 * i, 4, "%02x ", o->bytes[i]);
			ascii[i] = o->bytes[i] >= 0x20 && o->bytes[i] < 0x7f ? (char)o->bytes[i] : '.';
		}
		if (o->num_bytes) {
			hexs[3 * o->num_bytes - 1] = '\0';
			ct_crash_add_evidence(&v->crash, v->strings, "bytes past its end (0x%" PRIx64 "): %s |%s|", o->header_address + SIZE_SZ,
					      hexs, ascii);
		}
		if (o->owner)
			ct_crash_add_evidence(&v->crash, v->strings, "%s points into the overrun chunk", o->owner);
	}
	if (hf->poison.present) {
		const struct ct_heap_poison *p = &hf->poison;
		const char *bin = p->bin == CT_HEAP_BIN_TCACHE ? "tcache bin" : "fastbin";
		if (p->has_source)
			ct_crash_add_evidence(&v->crash, v->strings, "%s poisoning: entry %u of %s %u is 0x%" PRIx64 ", the next pointer stored in the freed chunk 0x%" PRIx64 " (safe-linking decoded), %s: not a chunk glibc put there",
					      p->bin == CT_HEAP_BIN_TCACHE ? "tcache" : "fastbin", p->position + 1, bin, p->index, p->pointer, p->source, p->reason);
		else
			ct_crash_add_evidence(&v->crash, v->strings, "%s poisoning: the head of %s %u is 0x%" PRIx64 ", %s: not a chunk glibc put there (a freed chunk's next pointer was overwritten before malloc() handed that chunk out, or the bin's head itself was)",
					      p->bin == CT_HEAP_BIN_TCACHE ? "tcache" : "fastbin", bin, p->index, p->pointer, p->reason);
	}
	if (hf->double_free && c->in_bin)
		ct_crash_add_evidence(&v->crash, v->strings, "the freed pointer 0x%" PRIx64 " (chunk 0x%" PRIx64 ", size 0x%" PRIx64 ") already sits in %s",
				      hf->pointer, c->address, c->size, bin_text(v->strings, c));
}

bool ct_heap_block_at(const struct ct_triage_input *s, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct heap h;
	unsigned major, minor;
	struct ct_heap_chunk c;
	bool found = heap_open(s, &h, &major, &minor) && chunk_holding(&h, addr, true, &c) && !c.free;
	free(h.free);
	if (!found || addr < c.address + CHUNK_HDR)
		return false;
	*start = c.address + CHUNK_HDR;
	*end = c.address + c.size + SIZE_SZ;
	return true;
}

const char *ct_heap_describe(const struct ct_triage_input *s, uint64_t addr)
{
	struct heap h;
	unsigned major, minor;
	struct ct_heap_chunk c;
	const char *text = NULL;
	if (heap_open(s, &h, &major, &minor) && chunk_holding(&h, addr, true, &c))
		text = c.in_bin ? ct_strpool_printf(s->out.strings, "heap chunk 0x%" PRIx64 "+0x%" PRIx64 ", size 0x%" PRIx64 ", free in %s",
						    c.address, addr - c.address, c.size, bin_text(s->out.strings, &c))
				: ct_strpool_printf(s->out.strings, "heap chunk 0x%" PRIx64 "+0x%" PRIx64 ", size 0x%" PRIx64 ", %s", c.address,
						    addr - c.address, c.size, c.free ? "free" : "in use");
	free(h.free);
	return text;
}

bool ct_when_use_after_free(const struct ct_facts *f)
{
	return f->heap && f->heap->use_after_free && f->sig.kernel_sent &&
	       (f->sig.signo == CT_SIGSEGV || f->sig.signo == CT_SIGBUS);
}

void ct_fill_use_after_free(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_heap_facts *h = f->heap;
	r->crash.cls = CT_CLASS_USE_AFTER_FREE;
	r->crash.confidence = CT_CONFIDENCE_HIGH;
	const struct ct_insn_facts *in = &f->insn;
	r->crash.access = in->access;
	uint64_t addr = 0;
	bool has_addr = false;
	if (f->sig.has_fault_address) {
		addr = f->sig.fault_address;
		has_addr = true;
	} else if (in->fault_mem >= 0 && in->mem[in->fault_mem].has_address) {
		addr = in->mem[in->fault_mem].address;
		has_addr = true;
	}
	r->crash.has_address = has_addr;
	r->crash.address = addr;
	r->crash.has_address_kind = true;
	r->crash.address_kind = f->fault.valid && f->fault.mapping.present ? CT_ADDRESS_MAPPED : CT_ADDRESS_UNMAPPED;
	const struct ct_frame_fact *b = f->blame >= 0 ? &f->frames[f->blame] : NULL;
	r->crash.summary = ct_strpool_printf(r->strings, "use after free: %s through a pointer read from freed memory%s%s%s%s",
					     in->access == CT_ACCESS_WRITE ? "write" : "read", b && b->function ? " in " : "",
					     b && b->function ? b->function : "",
					     b && b->file ? ct_strpool_printf(r->strings, " (%s:%d)", strrchr(b->file, '/') ? strrchr(b->file, '/') + 1 : b->file, b->line) : "",
					     "");
	ct_crash_add_evidence(&r->crash, r->strings, "%s", h->how);
	if (in->decoded)
		ct_crash_add_evidence(&r->crash, r->strings, "instruction at 0x%" PRIx64 ": %s", in->address, in->text);
	if (f->culprit)
		ct_crash_add_evidence(&r->crash, r->strings, "%s held the bad pointer", f->culprit);
}
