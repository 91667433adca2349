// CPython's structure layouts from the interpreter's own DWARF (python3.11-dbg's debug files, a
// debug build, debuginfod): offsets by member name, so that a build whose layout differs from the
// built-in table (another distribution's patches, another configuration) is still read right.
// The types are looked for among the top-level DIEs of the units of a few functions that use
// them (ceval.c uses nearly all), not in the whole DWARF: a unit or four, not thousands.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/scopes.h"
#include "runtime/dwarf_type.h"
#include "runtime/python.h"

/** The types read, by their DWARF names: structure tags or typedef names. */
enum py_type { T_RUNTIME, T_INTERP, T_TSTATE, T_CFRAME, T_FRAME, T_CODE, T_OBJECT, T_VAROBJECT, T_BYTES, T_ASCII,
	       T_COMPACT, T_NUM };

static const struct {
	const char *name;
	bool is_typedef;
} type_names[T_NUM] = {
	[T_RUNTIME] = { "pyruntimestate", false }, [T_INTERP] = { "_is", false },
	[T_TSTATE] = { "_ts", false }, [T_CFRAME] = { "_PyCFrame", false },
	[T_FRAME] = { "_PyInterpreterFrame", false }, [T_CODE] = { "PyCodeObject", false },
	[T_OBJECT] = { "_object", false }, [T_VAROBJECT] = { "PyVarObject", true },
	[T_BYTES] = { "PyBytesObject", true }, [T_ASCII] = { "PyASCIIObject", true },
	[T_COMPACT] = { "PyCompactUnicodeObject", true },
};

const char *const ct_py_dwarf_anchors[CT_PY_NUM_ANCHORS] = { "_PyEval_EvalFrameDefault", "PyCode_Addr2Line",
							      "PyUnicode_AsUTF8", "PyBytes_FromStringAndSize" };

// Top-level types of one unit into @p found (first definition of each wins).
static void scan_unit(Dwarf_Die *cu, Dwarf_Die *types, bool *found)
{
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_typedef)
			continue;
		const char *name = ct_dwarf_diename(&child);
		if (!name || dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		for (int t = 0; t < T_NUM; t++) {
			if (found[t] || strcmp(name, type_names[t].name) || (tag == DW_TAG_typedef) != type_names[t].is_typedef)
				continue;
			Dwarf_Die d = child;
			if (ct_dwarf_strip_to_struct(&d)) {
				types[t] = d;
				found[t] = true;
			}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static bool size_of(Dwarf_Die *type, uint32_t *ret)
{
	int n = ct_dwarf_bytesize(type);
	if (n <= 0)
		return false;
	*ret = (uint32_t)n;
	return true;
}

bool ct_py_layout_from_units(Dwarf_Die *units, size_t num_units, unsigned major, unsigned minor,
			     unsigned pointer_size, struct ct_py_layout *ret)
{
	Dwarf_Die types[T_NUM];
	bool found[T_NUM] = { false };
	for (size_t i = 0; i < num_units; i++)
		scan_unit(&units[i], types, found);
	for (int t = 0; t < T_NUM; t++) {
		if (!found[t])
			return false;
	}
	struct ct_py_layout l = { .major = major, .minor = minor, .pointer_size = pointer_size };
	uint32_t switch_cond;
	bool ok = ct_dwarf_member_offset(&types[T_RUNTIME], "interpreters.head", &l.rt_interpreters_head) &&
		  ct_dwarf_member_offset(&types[T_RUNTIME], "ceval.gil.last_holder", &l.rt_gil_last_holder) &&
		  ct_dwarf_member_offset(&types[T_RUNTIME], "ceval.gil.locked", &l.rt_gil_locked) &&
		  ct_dwarf_member_offset(&types[T_RUNTIME], "ceval.gil.cond", &l.rt_gil_sync) &&
		  ct_dwarf_member_offset(&types[T_RUNTIME], "ceval.gil.switch_cond", &switch_cond) && switch_cond > l.rt_gil_sync &&
		  ct_dwarf_member_offset(&types[T_INTERP], "next", &l.is_next) &&
		  ct_dwarf_member_offset(&types[T_INTERP], "threads.head", &l.is_threads_head) &&
		  ct_dwarf_member_offset(&types[T_TSTATE], "next", &l.ts_next) &&
		  ct_dwarf_member_offset(&types[T_TSTATE], "native_thread_id", &l.ts_native_thread_id) &&
		  ct_dwarf_member_offset(&types[T_TSTATE], "cframe", &l.ts_cframe) &&
		  ct_dwarf_member_offset(&types[T_CFRAME], "current_frame", &l.cf_current_frame) &&
		  ct_dwarf_member_offset(&types[T_FRAME], "f_code", &l.fr_code) && ct_dwarf_member_offset(&types[T_FRAME], "previous", &l.fr_previous) &&
		  ct_dwarf_member_offset(&types[T_FRAME], "prev_instr", &l.fr_prev_instr) &&
		  ct_dwarf_member_offset(&types[T_FRAME], "is_entry", &l.fr_is_entry) && ct_dwarf_member_offset(&types[T_FRAME], "owner", &l.fr_owner) &&
		  ct_dwarf_member_offset(&types[T_CODE], "co_firstlineno", &l.co_firstlineno) &&
		  ct_dwarf_member_offset(&types[T_CODE], "co_filename", &l.co_filename) && ct_dwarf_member_offset(&types[T_CODE], "co_name", &l.co_name) &&
		  ct_dwarf_member_offset(&types[T_CODE], "co_qualname", &l.co_qualname) &&
		  ct_dwarf_member_offset(&types[T_CODE], "co_linetable", &l.co_linetable) &&
		  ct_dwarf_member_offset(&types[T_CODE], "_co_firsttraceable", &l.co_firsttraceable) &&
		  ct_dwarf_member_offset(&types[T_CODE], "co_code_adaptive", &l.co_code_adaptive) &&
		  ct_dwarf_member_offset(&types[T_OBJECT], "ob_type", &l.ob_type) && ct_dwarf_member_offset(&types[T_VAROBJECT], "ob_size", &l.ob_size) &&
		  ct_dwarf_member_offset(&types[T_BYTES], "ob_sval", &l.bytes_sval) && ct_dwarf_member_offset(&types[T_ASCII], "length", &l.str_length) &&
		  ct_dwarf_member_offset(&types[T_ASCII], "state", &l.str_state) && size_of(&types[T_ASCII], &l.str_ascii_data) &&
		  size_of(&types[T_COMPACT], &l.str_compact_data);
	if (!ok)
		return false;
	// The GIL's mutex lies between its condition variable and the switch condition.
	l.rt_gil_sync_size = switch_cond - l.rt_gil_sync;
	*ret = l;
	return true;
}

// The unit that defines the function at @p addr's types: its own, or with LTO (Debian builds
// CPython with it) the early-debug unit its DW_AT_abstract_origin points to, where the compiler
// left the source file's types; the link-time unit holding the code has none.
static bool types_unit(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *ret)
{
	Dwarf_Die *scopes = NULL;
	int n = ct_dwarf_scopes(cu, addr, &scopes);
	bool ok = false;
	for (int i = 0; i < n && !ok; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		Dwarf_Die fn = scopes[i], origin;
		Dwarf_Attribute a;
		for (int k = 0; k < 4 && (ct_dwarf_ref_die(dwarf_attr(&fn, DW_AT_abstract_origin, &a), &origin) ||
					  ct_dwarf_ref_die(dwarf_attr(&fn, DW_AT_specification, &a), &origin)); k++)
			fn = origin;
		ok = dwarf_diecu(&fn, ret, NULL, NULL) != NULL;
	}
	free(scopes);
	return ok;
}

bool ct_py_layout_dwarf(const struct ct_module_state *m, const uint64_t *anchors, const bool *found, unsigned major,
			unsigned minor, unsigned pointer_size, struct ct_py_layout *ret)
{
	Dwarf_Die units[2 * CT_PY_NUM_ANCHORS];
	size_t n = 0;
	for (size_t i = 0; i < CT_PY_NUM_ANCHORS && m->dwfl_module; i++) {
		Dwarf_Addr bias;
		Dwarf_Die *cu;
		if (!found[i] || (cu = dwfl_module_addrdie(m->dwfl_module, anchors[i], &bias)) == NULL)
			continue;
		units[n++] = *cu;
		if (types_unit(cu, anchors[i] - bias, &units[n]) && dwarf_dieoffset(&units[n]) != dwarf_dieoffset(cu))
			n++;
	}
	return n && ct_py_layout_from_units(units, n, major, minor, pointer_size, ret);
}
