// Go's own symbol table, the pclntab (modules/go_pclntab.h; the runtime's runtime/symtab.go, Go 1.18
// and 1.19: magic 0xfffffff0): function entries, names, and the pc-value tables that give each pc's stack-pointer
// delta (pcsp), file (pcfile), line (pcln) and inlining (pcdata 2 + funcdata 3). It is read from
// the executable's file mapping and every offset in it is checked against the section's size: a
// hostile or cut table gives no answer, never a read outside it.
#include <string.h>

#include "modules/go_pclntab.h"
#include "util/bisect.h"
#include "util/bytes.h"

/** The pcHeader magic of Go 1.18 and 1.19 (1.20 changed _func and uses 0xfffffff1). */
#define GO118_MAGIC 0xfffffff0u
/** Bytes of a Go 1.18/1.19 _func before its pcdata offsets. */
#define FUNC_SIZE 40
/** Longest function or file name accepted (bytes, without the NUL). */
#define MAX_NAME 4096

static bool u32_at(const struct ct_go_pcln *p, uint64_t off, uint32_t *ret)
{
	if (!ct_in_bounds(p->size, off, 4))
		return false;
	*ret = ct_load32(p->data + off, false);
	return true;
}

static bool word_at(const struct ct_go_pcln *p, uint64_t off, uint64_t *ret)
{
	if (!ct_in_bounds(p->size, off, p->ptr_size))
		return false;
	*ret = p->ptr_size == 8 ? ct_load64(p->data + off, false) : ct_load32(p->data + off, false);
	return true;
}

bool ct_go_pcln_init(struct ct_go_pcln *p, const uint8_t *data, size_t size, uint64_t addr)
{
	*p = (struct ct_go_pcln){ .data = data, .size = size, .addr = addr };
	uint32_t magic;
	if (size < 8 || !u32_at(p, 0, &magic) || magic != GO118_MAGIC || data[4] || data[5])
		return false;
	p->min_lc = data[6];
	p->ptr_size = data[7];
	if ((p->ptr_size != 4 && p->ptr_size != 8) || !p->min_lc)
		return false;
	uint64_t w[8];
	for (unsigned i = 0; i < 8; i++) {
		if (!word_at(p, 8 + (uint64_t)i * p->ptr_size, &w[i]))
			return false;
	}
	p->nfunc = w[0];
	p->text = w[2];
	p->funcname = w[3];
	p->cutab = w[4];
	p->filetab = w[5];
	p->pctab = w[6];
	p->pcln = w[7];
	// The function table: nfunc + 1 pairs (entry offset, _func offset); the last one ends the text.
	return p->nfunc && p->nfunc < (1u << 24) && ct_in_bounds(size, p->pcln, (p->nfunc + 1) * 8) &&
	       p->funcname < size && p->cutab < size && p->filetab < size && p->pctab < size;
}

struct entry_key {
	const struct ct_go_pcln *p;
	uint32_t rel;
};

// Is entry @p i + 1 of the function table at or below the key?
static enum ct_bisect_answer entry_at_or_below(const void *ctx, size_t i)
{
	const struct entry_key *k = ctx;
	uint32_t e;
	if (!u32_at(k->p, k->p->pcln + (i + 1) * 8, &e))
		return CT_BISECT_ERROR;
	return e <= k->rel ? CT_BISECT_BEFORE : CT_BISECT_AFTER;
}

bool ct_go_pcln_func(const struct ct_go_pcln *p, uint64_t pc, struct ct_go_func *ret)
{
	uint32_t end;
	if (pc < p->text || !u32_at(p, p->pcln + p->nfunc * 8, &end) || pc - p->text >= end)
		return false;
	uint32_t rel = (uint32_t)(pc - p->text);
	// The last entry whose start is at or below pc (the table is sorted by entry): entry 0 when no
	// later one is, so the search runs over entries 1 … nfunc - 1.
	size_t lo;
	if (!ct_bisect_try(p->nfunc - 1, entry_at_or_below, &(struct entry_key){ p, rel }, &lo))
		return false;
	uint32_t funcoff, f[9];
	if (!u32_at(p, p->pcln + lo * 8 + 4, &funcoff))
		return false;
	uint64_t at = p->pcln + funcoff;
	for (unsigned i = 0; i < 9; i++) {
		if (!u32_at(p, at + i * 4, &f[i]))
			return false;
	}
	if (!ct_in_bounds(p->size, at, FUNC_SIZE))
		return false;
	*ret = (struct ct_go_func){
		.off = at, .entry = p->text + f[0], .nameoff = (int32_t)f[1], .pcsp = f[4], .pcfile = f[5], .pcln = f[6],
		.npcdata = f[7], .cu = f[8], .funcid = p->data[at + 36], .flag = p->data[at + 37], .nfuncdata = p->data[at + 39],
	};
	return ret->entry <= pc && ct_in_bounds(p->size, at + FUNC_SIZE, (uint64_t)ret->npcdata * 4 + ret->nfuncdata * 4u);
}

// A NUL-terminated name at @p off of the table, NULL when it does not end within it (or MAX_NAME).
static const char *name_at(const struct ct_go_pcln *p, uint64_t off)
{
	if (off >= p->size)
		return NULL;
	size_t left = p->size - (size_t)off;
	const void *nul = memchr(p->data + off, 0, left < MAX_NAME + 1 ? left : MAX_NAME + 1);
	return nul ? (const char *)p->data + off : NULL;
}

const char *ct_go_pcln_name(const struct ct_go_pcln *p, int32_t nameoff)
{
	return nameoff < 0 ? NULL : name_at(p, p->funcname + (uint64_t)nameoff);
}

// Go's readvarint, bounded by the table.
static bool varint(const struct ct_go_pcln *p, uint64_t *at, uint32_t *ret)
{
	uint32_t v = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*at >= p->size)
			return false;
		uint8_t b = p->data[(*at)++];
		v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

bool ct_go_pcln_value(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t off, uint64_t target,
		      int32_t *ret)
{
	if (!off)
		return false;
	uint64_t at = p->pctab + off, pc = f->entry;
	int32_t val = -1;
	// Go's step(): (value delta, zig-zag varint; pc delta, varint × the instruction quantum)
	// pairs until a zero value delta after the first. Each pair takes at least two bytes, so the
	// walk ends within the table's size.
	for (bool first = true;; first = false) {
		uint32_t uv, pcd;
		if (at >= p->size || (p->data[at] == 0 && !first) || !varint(p, &at, &uv) || !varint(p, &at, &pcd))
			return false;
		val += (int32_t)(-(uv & 1) ^ (uv >> 1));
		pc += (uint64_t)pcd * p->min_lc;
		if (target < pc) {
			*ret = val;
			return true;
		}
	}
}

int32_t ct_go_pcln_pcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index, uint64_t target)
{
	uint32_t off;
	int32_t val;
	if (index >= f->npcdata || !u32_at(p, f->off + FUNC_SIZE + (uint64_t)index * 4, &off) ||
	    !ct_go_pcln_value(p, f, off, target, &val))
		return -1;
	return val;
}

uint32_t ct_go_pcln_funcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index)
{
	uint32_t off;
	if (index >= f->nfuncdata || !u32_at(p, f->off + FUNC_SIZE + (uint64_t)f->npcdata * 4 + (uint64_t)index * 4, &off))
		return UINT32_MAX;
	return off;
}

const char *ct_go_pcln_file(const struct ct_go_pcln *p, const struct ct_go_func *f, int32_t fileno)
{
	uint32_t off;
	if (fileno < 0 || !u32_at(p, p->cutab + ((uint64_t)f->cu + (uint64_t)fileno) * 4, &off) || off == UINT32_MAX)
		return NULL;
	return name_at(p, p->filetab + off);
}

bool ct_go_pcln_line(const struct ct_go_pcln *p, const struct ct_go_func *f, uint64_t pc, const char **file, int *line)
{
	int32_t fileno, ln;
	*file = NULL;
	*line = 0;
	if (ct_go_pcln_value(p, f, f->pcfile, pc, &fileno))
		*file = ct_go_pcln_file(p, f, fileno);
	if (ct_go_pcln_value(p, f, f->pcln, pc, &ln) && ln > 0)
		*line = ln;
	return *file || *line;
}

uint64_t ct_go_moduledata_search(const struct ct_go_pcln *p, const uint8_t *bytes, uint64_t size, uint64_t addr,
				 uint64_t max_words)
{
	const unsigned ps = p->ptr_size;
	if (!bytes)
		return 0;
	for (uint64_t off = 0; off + 2 * ps <= size && off / ps < max_words; off += ps) {
		uint64_t at = ps == 8 ? ct_load64(bytes + off, false) : ct_load32(bytes + off, false);
		uint64_t names = ps == 8 ? ct_load64(bytes + off + ps, false) : ct_load32(bytes + off + ps, false);
		if (at == p->addr && names == p->addr + p->funcname)
			return addr + off;
	}
	return 0;
}
