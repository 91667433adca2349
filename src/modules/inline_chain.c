// Source locations with their inline chains, from DWARF through libdw.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "modules/cu_index.h"
#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"
#include "modules/inline_chain.h"
#include "modules/scopes.h"

static const char *call_file(struct ct_strpool *strings, Dwarf_Die *cudie, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	if (!dwarf_attr(inl, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) != 0)
		return NULL;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return ct_strpool_intern(strings, dwarf_filesrc(files, idx, NULL, NULL));
}

static int attr_int(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	if (!dwarf_attr(die, name, &attr) || dwarf_formudata(&attr, &v) != 0 || v > 0x7fffffff)
		return 0;
	return (int)v;
}

// Start of the range of @p die that holds @p addr (an inlined call may have DW_AT_ranges).
static bool range_start(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Addr *ret)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (addr >= start && addr < end) {
			*ret = start;
			return true;
		}
	}
	return false;
}

// Whether two rows name one line of one file (then the later row's column stays).
static bool same_place(Dwarf_Line *a, Dwarf_Line *b)
{
	int la = 0, lb = 0;
	const char *fa = dwarf_linesrc(a, NULL, NULL), *fb = dwarf_linesrc(b, NULL, NULL);
	return dwarf_lineno(a, &la) == 0 && dwarf_lineno(b, &lb) == 0 && la == lb && fa && fb && strcmp(fa, fb) == 0;
}

// The row of @p cudie's line table that describes @p addr, chosen as gdb chooses it: libdw gives the
// last row at the address, but when that row is not a statement and an earlier row at the same
// address is, the statement's line is the one the source shows there (gcc emits "line 668, stmt;
// line 669, view 1, not stmt" at one address for an epilogue; gdb says 668, a reader of the last
// row 669). Rows at one address keep their order in libdw's sorted table.
static Dwarf_Line *line_at(Dwarf_Die *cudie, Dwarf_Addr addr)
{
	Dwarf_Line *line = dwarf_getsrc_die(cudie, addr);
	bool stmt = true;
	Dwarf_Addr at;
	Dwarf_Lines *lines;
	size_t n;
	if (!line || dwarf_linebeginstatement(line, &stmt) != 0 || stmt || dwarf_lineaddr(line, &at) != 0 ||
	    dwarf_getsrclines(cudie, &lines, &n) != 0)
		return line;
	// First row at the address (binary search), then the returned row among the rows there.
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) == 0 && a < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < n && dwarf_onesrcline(lines, k) != line)
		k++;
	if (k == n)
		return line;
	for (size_t i = k; i > lo; i--) {
		Dwarf_Line *prev = dwarf_onesrcline(lines, i - 1);
		int lineno = 0;
		Dwarf_Addr a;
		bool prev_stmt = false;
		if (dwarf_lineaddr(prev, &a) != 0 || a != at || dwarf_lineno(prev, &lineno) != 0 || lineno == 0)
			break;
		if (dwarf_linebeginstatement(prev, &prev_stmt) == 0 && prev_stmt)
			return same_place(prev, line) ? line : prev;
	}
	return line;
}

size_t ct_inline_chain(struct ct_strpool *strings, struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr,
		       struct ct_source_frame *out)
{
	struct ct_source_frame base = { 0 };
	Dwarf_Addr bias = 0;
	Dwarf_Die cu_mem, *cudie = ct_cu_index_find(index, mod, addr, &cu_mem, &bias) ? &cu_mem : NULL;
	// The line table of the unit found (dwfl_module_getsrc would look the unit up by aranges again).
	Dwarf_Line *line = cudie ? line_at(cudie, addr - bias) : NULL;
	if (line) {
		const char *file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &base.line);
		dwarf_linecol(line, &base.column);
		base.file = ct_strpool_intern(strings, file);
	}
	// The concrete nesting from the unit's root (modules/scopes.h): dwarf_getscopes gives up when an
	// inlined call's origin is in another unit (LTO), and walks the whole unit again for parents.
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr sbias;
	int n = cudie ? ct_cu_index_scopes(index, mod, addr, &scopes, &sbias) : 0;
	size_t count = 0;
	const char *file = base.file;
	int lineno = base.line, col = base.column;
	for (int i = 0; i < n && count < CT_MAX_INLINE_DEPTH - 1; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		struct ct_source_frame *e = &out[count++];
		*e = (struct ct_source_frame){
			.function = ct_dwarf_function_name(strings, &scopes[i]),
			.file = file,
			.line = lineno,
			.column = col,
			.decl_file = ct_strpool_intern(strings, ct_dwarf_decl_file(&scopes[i])),
			.inlined = true,
		};
		Dwarf_Addr low;
		if (range_start(&scopes[i], addr - bias, &low))
			e->offset = addr - bias - low;
		// The next level out is located at this call's site.
		file = call_file(strings, cudie, &scopes[i]);
		lineno = attr_int(&scopes[i], DW_AT_call_line);
		col = attr_int(&scopes[i], DW_AT_call_column);
	}
	struct ct_source_frame *phys = &out[count++];
	*phys = (struct ct_source_frame){ .file = file, .line = lineno, .column = col };
	// The physical function: the innermost subprogram around the inlined calls.
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		Dwarf_Addr low;
		phys->function = ct_dwarf_function_name(strings, &scopes[i]);
		phys->decl_file = ct_strpool_intern(strings, ct_dwarf_decl_file(&scopes[i]));
		if (phys->function && range_start(&scopes[i], addr - bias, &low)) {
			phys->offset = addr - bias - low;
			phys->has_offset = true;
		}
		break;
	}
	free(scopes);
	return count;
}
