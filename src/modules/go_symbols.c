// Names from Go's pclntab for a Go executable without a symbol table (go_symbols.h). The table and
// the inline tree are the executable's own bytes (read from the file, never the dump): a binary
// built with -ldflags=-s names its frames exactly as the same program's unstripped build does.
#include <elfutils/libdwfl.h>
#include <string.h>

#include "arch/arch.h"
#include "modules/elf_section.h"
#include "modules/go_symbols.h"
#include "modules/modules.h"
#include "modules/symbolize.h"
#include "util/budget.h"
#include "util/bytes.h"

/** PCDATA_InlTreeIndex, FUNCDATA_InlTree, and the size of a Go 1.18/1.19 inlinedCall. */
#define PCDATA_INLTREE 2u
#define FUNCDATA_INLTREE 3u
#define INLINED_CALL_SIZE 20u

bool ct_go_pcln_of(const struct ct_module_state *m, unsigned pointer_size, struct ct_go_pcln *ret)
{
	Dwarf_Addr bias = 0;
	Elf *elf = m && m->dwfl_module && m->match != 0 ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
	struct ct_elf_section pclntab;
	return elf && ct_elf_section(elf, bias, ".gopclntab", &pclntab) && pclntab.bytes &&
	       pclntab.size <= CT_GO_MAX_PCLNTAB && ct_go_pcln_init(ret, pclntab.bytes, (size_t)pclntab.size, pclntab.addr) &&
	       ret->ptr_size == pointer_size;
}

size_t ct_go_places(struct ct_module_set *s, const struct ct_go_pcln *p, uint64_t gofunc, const struct ct_go_func *f,
		    uint64_t tracepc, struct ct_go_place *out, size_t max)
{
	size_t n = 0;
	uint32_t inl = ct_go_pcln_funcdata(p, f, FUNCDATA_INLTREE);
	// Each inlinedCall of the tree: its function's name (+12) and the pc of its call in the
	// enclosing body (+16), whose own index leads one level out.
	for (int depth = 0; inl != UINT32_MAX && gofunc && depth < CT_GO_MAX_INLINE && n + 1 < max; depth++) {
		int32_t ix = ct_go_pcln_pcdata(p, f, PCDATA_INLTREE, tracepc);
		uint8_t call[INLINED_CALL_SIZE];
		if (ix < 0 || !ct_modules_read_code(s, gofunc + inl + (uint64_t)ix * INLINED_CALL_SIZE, call, sizeof(call)))
			break;
		out[n++] = (struct ct_go_place){ .nameoff = (int32_t)ct_load32(call + 12, false), .tracepc = tracepc,
						 .inlined = true };
		tracepc = f->entry + ct_load32(call + 16, false);
	}
	out[n++] = (struct ct_go_place){ .nameoff = f->nameoff, .tracepc = tracepc };
	return n;
}

// The executable's table and its moduledata.gofunc, found once.
static const struct ct_go_symtab *symtab(struct ct_module_set *s)
{
	struct ct_go_symtab *g = &s->go;
	if (g->read)
		return g->ok ? g : NULL;
	g->read = true;
	const struct ct_module_state *exe = NULL;
	for (size_t i = 0; i < s->num_modules && !exe; i++) {
		if (s->modules[i].is_main)
			exe = &s->modules[i];
	}
	unsigned psize = s->core && s->core->arch ? s->core->arch->pointer_size : 8;
	if (!exe || (s->core && s->core->big_endian) || !ct_go_pcln_of(exe, psize, &g->pcln))
		return NULL;
	g->ok = true;
	g->exe = exe;
	g->has_symbols = dwfl_module_getsymtab(exe->dwfl_module) > 0;
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(exe->dwfl_module, &bias);
	struct ct_elf_section noptrdata;
	uint64_t md = elf && ct_elf_section(elf, bias, ".noptrdata", &noptrdata)
		? ct_go_moduledata_search(&g->pcln, noptrdata.bytes, noptrdata.size, noptrdata.addr, CT_GO_MAX_SEARCH_WORDS)
		: 0;
	uint8_t word[8];
	if (md && ct_modules_read_code(s, md + (uint64_t)CT_GO118_MD_GOFUNC_WORD * psize, word, psize))
		g->gofunc = psize == 8 ? ct_load64(word, false) : ct_load32(word, false);
	return g;
}

// A name of the table, pooled; names spend the work budget as the symbol table's do.
static const char *name(struct ct_module_set *s, const struct ct_go_pcln *p, int32_t nameoff)
{
	const char *n = ct_go_pcln_name(p, nameoff);
	if (!n || !ct_budget_take(s->budget, CT_BUDGET_TEXT, strlen(n)))
		return NULL;
	return ct_strpool_intern(s->out.strings, n);
}

size_t ct_go_symbolize(struct ct_module_set *s, const struct ct_module_state *m, uint64_t addr, struct ct_sym *out,
		       size_t max)
{
	const struct ct_go_symtab *g = m && m->is_main && max ? symtab(s) : NULL;
	struct ct_go_func f;
	if (!g || m != g->exe || g->has_symbols || !ct_go_pcln_func(&g->pcln, addr, &f))
		return 0;
	struct ct_go_place places[CT_GO_MAX_INLINE];
	size_t n = ct_go_places(s, &g->pcln, g->gofunc, &f, addr, places, max < CT_GO_MAX_INLINE ? max : CT_GO_MAX_INLINE);
	const char *module = ct_strpool_intern(s->out.strings, m->name);
	for (size_t i = 0; i < n; i++) {
		const char *file;
		int line;
		ct_go_pcln_line(&g->pcln, &f, places[i].tracepc, &file, &line);
		out[i] = (struct ct_sym){
			.function = name(s, &g->pcln, places[i].nameoff), .module = module,
			.file = file ? ct_strpool_intern(s->out.strings, file) : NULL, .line = line,
			.inlined = places[i].inlined, .source = "pclntab",
		};
	}
	// The function's offset, as a symbol's: from its entry (an inlined call has none).
	out[n - 1].offset = addr - f.entry;
	return n;
}

bool ct_go_frame_at(struct ct_module_set *s, uint64_t pc, struct ct_go_frame *ret)
{
	// The table first: for a program that is not Go it is known absent after the first frame, and
	// the unwinder asks at every frame.
	const struct ct_go_symtab *g = symtab(s);
	const struct ct_module_state *m = g ? ct_modules_find(s, pc) : NULL;
	struct ct_go_func f;
	int32_t delta;
	if (!g || !m || m != g->exe || !ct_go_pcln_func(&g->pcln, pc, &f) ||
	    !ct_go_pcln_value(&g->pcln, &f, f.pcsp, pc, &delta) || delta < 0)
		return false;
	*ret = (struct ct_go_frame){
		.size = (uint64_t)delta,
		.top = (f.flag & (CT_GO_FLAG_TOPFRAME | CT_GO_FLAG_SPWRITE)) != 0,
		.spwrite = (f.flag & CT_GO_FLAG_SPWRITE) != 0,
		.sigpanic = f.funcid == CT_GO_FUNCID_SIGPANIC,
	};
	return true;
}
