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
		for (unsigned k = 0; e && k < counts[i] && k < MAX_PER_BIN; k++) {
			uint64_t stored;
			if ((e & 15) || !word(h, e, &stored))
				break;
			add_free(h, e - CHUNK_HDR, CT_HEAP_BIN_TCACHE, i, k, true, stored);
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
		for (unsigned k = 0; p && k < MAX_PER_BIN; k++) {
			uint64_t stored;
			if ((p & 15) || !word(h, p + CHUNK_HDR, &stored))
				break;
			add_free(h, p, CT_HEAP_BIN_FASTBIN, i, k, true, stored);
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
	if (!arch || arch->pointer_size != 8 || !ct_glibc_version(s, major, minor) || *major != 2 || *minor < 32 ||
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

/** The chunk holding @p addr: a free chunk of the bins, else by walking the main heap (capped). */
static bool chunk_holding(const struct heap *h, uint64_t addr, struct ct_heap_chunk *ret)
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
	if (addr < h->heap_start + TCACHE_STRUCT_CHUNK || addr >= h->heap_end || addr >= h->top)
		return false;
	uint64_t p = h->heap_start;
	for (unsigned k = 0; k < MAX_WALK && p < h->top; k++) {
		uint64_t sz;
		if (!chunk_size(h, p, &sz) || sz < MINSIZE || (sz & 15) || sz > h->heap_end - p)
			return false; // a corrupt header: no claim past it
		if (addr < p + sz) {
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
			if (!v->name || strcmp(v->name, name) != 0 || !v->value || strncmp(v->value, "0x", 2) != 0)
				continue;
			char *end;
			*ret = strtoull(v->value, &end, 16);
			return end != v->value + 2;
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
	if (malloc_abort) {
		static const char *const frees[] = { "__libc_free", "free", NULL };
		static const char *const reallocs[] = { "__libc_realloc", "realloc", NULL };
		uint64_t mem;
		bool found = frame_param(t, frees, "mem", &mem);
		ret->role = "free() argument";
		static const char *const int_free[] = { "_int_free", NULL };
		uint64_t p;
		// free()'s argument may be optimized out there; _int_free holds its chunk.
		if (!found && frame_param(t, int_free, "p", &p)) {
			found = true;
			mem = p + CHUNK_HDR;
		}
		if (!found && (found = frame_param(t, reallocs, "oldmem", &mem)))
			ret->role = "realloc() argument";
		if (found && mem >= CHUNK_HDR) {
			ret->pointer = mem;
			// The chunk of a free() argument is the header right before it, not a search.
			const struct free_chunk *fc = NULL;
			for (size_t i = 0; i < h.nfree && !fc; i++)
				if (h.free[i].chunk == mem - CHUNK_HDR)
					fc = &h.free[i];
			if (fc) {
				chunk_holding(&h, mem - CHUNK_HDR, &ret->chunk);
				ret->double_free = strstr(f->abort_msg.text, "double free") != NULL;
			} else {
				// Only a chunk the heap walk reaches is one: free(p + 16) points into a chunk.
				struct ct_heap_chunk c;
				if (chunk_holding(&h, mem - CHUNK_HDR, &c)) {
					if (c.address != mem - CHUNK_HDR)
						ret->role = "free() argument (not a chunk's start: inside this chunk)";
					ret->chunk = c;
				}
			}
		}
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
		if (chunk_holding(&h, last->address, &c)) {
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
		chunk_holding(&h, fc->chunk, &ret->chunk);
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
	if (!ret->chunk.present && has_bad && chunk_holding(&h, bad, &ret->chunk)) {
		ret->pointer = bad;
		ret->role = "bad pointer";
	}
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
	if (hf->double_free && c->in_bin)
		ct_crash_add_evidence(&v->crash, v->strings, "the freed pointer 0x%" PRIx64 " (chunk 0x%" PRIx64 ", size 0x%" PRIx64 ") already sits in %s",
				      hf->pointer, c->address, c->size, bin_text(v->strings, c));
}

bool ct_when_use_after_free(const struct ct_facts *f)
{
	return f->heap && f->heap->use_after_free && f->sig.kernel_sent &&
	       (f->sig.signo == CT_SIGSEGV || f->sig.signo == CT_SIGBUS);
}

void ct_fill_use_after_free(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_heap_facts *h = f->heap;
	r->cls = CT_CLASS_USE_AFTER_FREE;
	r->confidence = CT_CONFIDENCE_HIGH;
	const struct ct_insn_facts *in = &f->insn;
	r->crash.access = ct_access_to_string(in->access);
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
	r->crash.address_kind = ct_address_kind_to_string(f->fault.valid && f->fault.mapping.present ? CT_ADDRESS_MAPPED
											     : CT_ADDRESS_UNMAPPED);
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
