// Symbolization through libdwfl/libdw with inline expansion, cached by address.
#include <stdlib.h>
#include <string.h>

#include "modules/cu_index.h"
#include "modules/debugfile.h"
#include "modules/demangle.h"
#include "modules/go_symbols.h"
#include "modules/inline_chain.h"
#include "modules/modules.h"
#include "modules/scopes.h"
#include "modules/symbolize.h"
#include "util/grow.h"

#define MAX_INLINE_DEPTH CT_MAX_INLINE_DEPTH

struct cache_slot {
	uint64_t addr;
	uint32_t first, count; // entries[first .. first+count)
	bool used;
};

struct ct_symcache {
	struct cache_slot *slots;
	size_t num_slots, used;
	struct ct_sym *entries;
	size_t num_entries, cap_entries;
	/** Used when the cache cannot grow (out of memory): valid until the next call. */
	struct ct_sym scratch[MAX_INLINE_DEPTH];
	/** Address → compilation unit of every module, built per module on first use. */
	struct ct_cu_index *cu_index;
};

struct ct_symcache *ct_symcache_create(void)
{
	struct ct_symcache *c = calloc(1, sizeof(struct ct_symcache));
	if (c && !(c->cu_index = ct_cu_index_create())) {
		free(c);
		return NULL;
	}
	return c;
}

void ct_symcache_destroy(struct ct_symcache *c)
{
	if (!c)
		return;
	ct_cu_index_destroy(c->cu_index);
	free(c->slots);
	free(c->entries);
	free(c);
}

/*
 * Whether @p mod's DWARF may name anything: not when its debug file's shared dwz file is missing
 * (modules.h alt_missing: libdw reads every name kept there as NULL, and an inlined call or a
 * variable without its name would be shown under another one). gdb drops such a module's DWARF too.
 * Asking for the DWARF first is what makes libdwfl look for the shared file.
 */
static bool dwarf_names_ok(struct ct_module_set *s, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw)
		return true;
	ct_debugfile_sup(s, mod, dw);
	const struct ct_module_state *m = ct_modules_state_of(s, mod);
	return !m || !m->alt_missing;
}

bool ct_symbolize_cu(struct ct_module_set *s, Dwfl_Module *mod, uint64_t addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	if (!dwarf_names_ok(s, mod))
		return false;
	return ct_cu_index_find(s->symcache ? s->symcache->cu_index : NULL, mod, addr, cu, bias);
}

int ct_symbolize_scopes(struct ct_module_set *s, uint64_t addr, Dwarf_Die **scopes, Dwarf_Addr *bias)
{
	*scopes = NULL;
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, addr) : NULL;
	if (!dwarf_names_ok(s, mod))
		return 0;
	return mod ? ct_cu_index_scopes(s->symcache ? s->symcache->cu_index : NULL, mod, addr, scopes, bias) : 0;
}

static size_t hash_addr(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return (size_t)a;
}

static bool cache_grow(struct ct_symcache *c)
{
	size_t n = c->num_slots ? c->num_slots * 2 : 4096;
	struct cache_slot *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	for (size_t i = 0; i < c->num_slots; i++) {
		if (!c->slots[i].used)
			continue;
		size_t j = hash_addr(c->slots[i].addr) & (n - 1);
		while (slots[j].used)
			j = (j + 1) & (n - 1);
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->num_slots = n;
	return true;
}

const char *ct_demangle(struct ct_module_set *s, const char *name)
{
	return ct_demangle_symbol(s->out.strings, name);
}

/**
 * Code in an executable segment that no module covers is JIT-compiled: named from the dumped
 * process's perf map when this machine has it and the entry lies in that segment (a stale map of an
 * earlier process with the same pid names other addresses: ASLR places JIT code elsewhere).
 */
static void jit_name(struct ct_module_set *s, uint64_t addr, struct ct_sym *out)
{
	const struct ct_segment *seg = ct_core_find_segment(s->core, addr);
	if (!seg || !(seg->flags & PF_X))
		return;
	if (!s->perfmap_read) {
		s->perfmap_read = true;
		ct_perfmap_read(s->out.strings, s->core->pid, &s->perfmap);
	}
	const struct ct_perfmap_entry *e = ct_perfmap_find(&s->perfmap, addr);
	if (!e || !e->name || e->start < seg->vaddr || e->start + e->size > seg->vaddr + seg->memsz)
		return;
	out->function = e->name;
	out->offset = addr - e->start;
}

// Fills entries for @p addr: the symbol, then inline expansion from the DWARF scopes.
static size_t resolve(struct ct_module_set *s, uint64_t addr, struct ct_sym *out)
{
	struct ct_sym base = { 0 };
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	const struct ct_module_state *ms = ct_modules_find(s, addr);
	if (ms)
		base.module = ct_strpool_intern(s->out.strings, ms->name);
	if (!mod) {
		jit_name(s, addr, &base);
		out[0] = base;
		return 1;
	}
	if (!base.module) {
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		base.module = ct_strpool_intern(s->out.strings, mname);
	}
	// A PLT stub has no symbol of its own and no DWARF: gdb's name for it is the import's.
	uint64_t stub_off;
	const char *stub = ct_plt_stub_name(s, ct_modules_state_of(s, mod), addr, &stub_off);
	if (stub) {
		base.function = stub;
		base.offset = stub_off;
		out[0] = base;
		return 1;
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	// ARM/AArch64 mapping symbols ("$x", "$d", "$a", "$t") mark code/data, they name nothing.
	if (name && name[0] == '$')
		name = NULL;
	// Names count against the work budget: a dump can name a million distinct huge symbols.
	if (name && !ct_budget_take(s->budget, CT_BUDGET_TEXT, strlen(name)))
		name = NULL;
	if (name) {
		base.function = ct_demangle(s, name);
		base.offset = off;
	} else {
		// A Go executable without its symbol table (-ldflags=-s) still has its pclntab.
		size_t n = ct_go_symbolize(s, ms, addr, out, MAX_INLINE_DEPTH);
		if (n)
			return n;
	}
	if (!dwarf_names_ok(s, mod)) {
		out[0] = base;
		return 1;
	}
	struct ct_source_frame chain[CT_MAX_INLINE_DEPTH];
	size_t n = ct_inline_chain(s->out.strings, s->symcache->cu_index, mod, addr, chain);
	for (size_t i = 0; i < n; i++) {
		out[i] = base;
		out[i].file = chain[i].file;
		out[i].line = chain[i].line;
		out[i].column = chain[i].column;
		out[i].decl_file = chain[i].decl_file;
		out[i].inlined = chain[i].inlined;
		// gdb's name: the DWARF function's, not the symbol's (a clone such as "f.cold" shows "f").
		if (chain[i].function) {
			out[i].function = chain[i].function;
			if (chain[i].inlined || chain[i].has_offset)
				out[i].offset = chain[i].offset;
		} else if (chain[i].inlined) {
			// An inlined call whose name cannot be read is not the symbol's function: "??".
			out[i].function = NULL;
			out[i].offset = 0;
		}
	}
	return n;
}

size_t ct_symbolize(struct ct_module_set *s, uint64_t addr, const struct ct_sym **ret)
{
	struct ct_symcache *c = s->symcache;
	if ((c->used + 1) * 2 > c->num_slots && !cache_grow(c))
		goto uncached;
	size_t mask = c->num_slots - 1, j = hash_addr(addr) & mask;
	for (; c->slots[j].used; j = (j + 1) & mask) {
		if (c->slots[j].addr == addr) {
			*ret = &c->entries[c->slots[j].first];
			return c->slots[j].count;
		}
	}
	if (!CT_GROW(c->entries, c->cap_entries, c->num_entries + MAX_INLINE_DEPTH, 4096, 0))
		goto uncached;
	size_t count = resolve(s, addr, &c->entries[c->num_entries]);
	c->slots[j].used = true;
	c->slots[j].addr = addr;
	c->slots[j].first = (uint32_t)c->num_entries;
	c->slots[j].count = (uint32_t)count;
	c->used++;
	c->num_entries += count;
	*ret = &c->entries[c->slots[j].first];
	return count;
uncached:
	*ret = c->scratch;
	return resolve(s, addr, c->scratch);
}
