// Symbolization through libdwfl/libdw with inline expansion, cached by address.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "modules/symbolize.h"

// Declared by libstdc++ (cxxabi.h is C++ only).
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/** Inline chains deeper than this are cut (real code rarely exceeds 10). */
#define MAX_INLINE_DEPTH 32

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
};

struct ct_symcache *ct_symcache_create(void)
{
	return calloc(1, sizeof(struct ct_symcache));
}

void ct_symcache_destroy(struct ct_symcache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c->entries);
	free(c);
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

const char *ct_demangle(struct ct_session *s, const char *name)
{
	if (!name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		int status = -1;
		char *d = __cxa_demangle(name, NULL, NULL, &status);
		if (d && status == 0) {
			const char *r = ct_report_strdup(s->report, d);
			free(d);
			return r;
		}
		free(d);
	}
	// Versioned ELF symbols ("__libc_start_main@@GLIBC_2.34"): the version is noise in a backtrace.
	const char *at = strchr(name, '@');
	if (at && at != name)
		return ct_strpool_intern_len(&s->report->strings, name, (size_t)(at - name));
	return ct_report_strdup(s->report, name);
}

static const char *die_name(struct ct_session *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name)
		name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name ? ct_demangle(s, name) : NULL;
}

static const char *call_file(struct ct_session *s, Dwarf_Die *cudie, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	if (!dwarf_attr(inl, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) != 0)
		return NULL;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return ct_report_strdup(s->report, dwarf_filesrc(files, idx, NULL, NULL));
}

static int attr_int(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	if (!dwarf_attr(die, name, &attr) || dwarf_formudata(&attr, &v) != 0 || v > 0x7fffffff)
		return 0;
	return (int)v;
}

// Fills entries for @p addr: the symbol, then inline expansion from the DWARF scopes.
static size_t resolve(struct ct_session *s, uint64_t addr, struct ct_sym *out)
{
	struct ct_sym base = { 0 };
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	if (!mod)
		mod = NULL;
	const struct ct_module_state *ms = ct_modules_find(s, addr);
	if (ms)
		base.module = ct_report_strdup(s->report, ms->name);
	if (!mod) {
		out[0] = base;
		return 1;
	}
	if (!base.module) {
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		base.module = ct_report_strdup(s->report, mname);
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	// ARM/AArch64 mapping symbols ("$x", "$d", "$a", "$t") mark code/data, they name nothing.
	if (name && name[0] == '$')
		name = NULL;
	if (name) {
		base.function = ct_demangle(s, name);
		base.offset = off;
	}
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	if (line) {
		int lineno = 0, col = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
		base.file = ct_report_strdup(s->report, file);
		base.line = lineno;
		base.column = col;
	}
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cudie ? dwarf_getscopes(cudie, addr - bias, &scopes) : 0;
	if (n > 0) {
		// dwarf_getscopes continues into the abstract origin's scopes after the first inlined
		// level; the physical nesting (inline inside inline inside …) comes from the innermost
		// scope's own parents, as eu-addr2line -i does.
		Dwarf_Die innermost = scopes[0];
		Dwarf_Die *physical = NULL;
		int m = dwarf_getscopes_die(&innermost, &physical);
		free(scopes);
		scopes = m > 0 ? physical : NULL;
		n = m > 0 ? m : 0;
		if (m <= 0)
			free(physical);
	}
	size_t count = 0;
	// scopes[0] is innermost. Each inlined_subroutine is a frame of its own; its call site gives
	// the location in the scope that contains it.
	const char *file = base.file;
	int lineno = base.line, col = base.column;
	for (int i = 0; i < n && count < MAX_INLINE_DEPTH - 1; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		struct ct_sym *e = &out[count++];
		*e = base;
		e->function = die_name(s, &scopes[i]);
		e->offset = 0;
		e->file = file;
		e->line = lineno;
		e->column = col;
		e->inlined = true;
		Dwarf_Addr low = 0;
		if (dwarf_lowpc(&scopes[i], &low) == 0 && addr - bias >= low)
			e->offset = addr - bias - low;
		file = call_file(s, cudie, &scopes[i]);
		lineno = attr_int(&scopes[i], DW_AT_call_line);
		col = attr_int(&scopes[i], DW_AT_call_column);
	}
	free(scopes);
	struct ct_sym *outer = &out[count++];
	*outer = base;
	outer->file = file;
	outer->line = lineno;
	outer->column = col;
	outer->inlined = false;
	return count;
}

size_t ct_symbolize(struct ct_session *s, uint64_t addr, const struct ct_sym **ret)
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
	if (c->num_entries + MAX_INLINE_DEPTH > c->cap_entries) {
		size_t n = c->cap_entries ? c->cap_entries * 2 : 4096;
		struct ct_sym *e = reallocarray(c->entries, n, sizeof(*e));
		if (!e)
			goto uncached;
		c->entries = e;
		c->cap_entries = n;
	}
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
