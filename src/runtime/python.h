/**
 * @file python.h
 * The runtime stage (docs/runtimes.md): the Python stacks of a process core, read from CPython's
 * own state in the dump: `_PyRuntime` → interpreters → thread states → each thread's chain of
 * `_PyInterpreterFrame`s → code objects (qualified name, file, line through the location table).
 * It runs after the stacks are symbolized (their evaluation-loop frames are matched with the
 * Python frames they ran) and before triage (the summary names the innermost Python frame). It
 * returns its own type, the model's struct ct_runtime, which the pipeline hands to the report
 * (ct_runtime_to_report); its text goes through a struct ct_sink.
 */
#ifndef CT_RUNTIME_PYTHON_H
#define CT_RUNTIME_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "coretriage/report.h"
#include "modules/modules.h"
#include "unwind/stacks.h"

/** Python frames read per thread before the chain is cut (deeper than CPython's recursion limit allows). */
#define CT_PY_MAX_FRAMES 100000
/** Thread states read per interpreter, interpreters per runtime. */
#define CT_PY_MAX_THREADS 100000
#define CT_PY_MAX_INTERPRETERS 1024
/** Longest name or file name kept, bytes (longer ones are cut). */
#define CT_PY_MAX_STRING 4096
/** Longest location table read, bytes. */
#define CT_PY_MAX_LINETABLE (1u << 20)

/** What the runtime stage reads (all borrowed). */
struct ct_runtime_input {
	const struct ct_core *core;
	/** The module set: symbols and the files' read-only data (not const: symbol tables load lazily). */
	struct ct_module_set *mods;
	/** The symbolized native stacks (read only). */
	const struct ct_stacks *stacks;
	struct ct_sink out;
	struct ct_budget *budget; /**< may be NULL */
};

/**
 * The layout of CPython's structures the stage reads, in bytes from each structure's start, for
 * one version and pointer size (python_layout.c).
 */
struct ct_py_layout {
	unsigned major, minor;
	unsigned pointer_size;
	/* _PyRuntimeState */
	uint32_t rt_interpreters_head, rt_gil_last_holder, rt_gil_locked;
	/** The GIL's condition variable and mutex (adjacent): a futex wait inside them waits for the GIL. */
	uint32_t rt_gil_sync, rt_gil_sync_size;
	/* PyInterpreterState */
	uint32_t is_next, is_threads_head;
	/* PyThreadState */
	uint32_t ts_next, ts_native_thread_id, ts_cframe;
	/* _PyCFrame */
	uint32_t cf_current_frame;
	/* _PyInterpreterFrame */
	uint32_t fr_code, fr_previous, fr_prev_instr, fr_is_entry, fr_owner;
	/* PyCodeObject */
	uint32_t co_firstlineno, co_filename, co_name, co_qualname, co_linetable, co_firsttraceable,
		co_code_adaptive;
	/* PyObject, PyBytesObject, PyASCIIObject / PyCompactUnicodeObject */
	uint32_t ob_type, ob_size, bytes_sval, str_length, str_state, str_ascii_data, str_compact_data;
};

/** The built-in layout of @p major.@p minor for @p pointer_size, NULL when none. */
const struct ct_py_layout *ct_py_layout_find(unsigned major, unsigned minor, unsigned pointer_size);

/**
 * The layout of @p major.@p minor read from the DWARF of module @p m (the units of the functions
 * that use the types, at @p anchors); false when the module has no DWARF or a member is missing. The version's
 * meaning (which fields say what) is still the stage's: DWARF gives only where they are.
 */
bool ct_py_layout_dwarf(const struct ct_module_state *m, const uint64_t *anchors, const bool *found, unsigned major,
			unsigned minor, unsigned pointer_size, struct ct_py_layout *ret);
/** The functions whose units define the types (ceval.c, codeobject.c, unicodeobject.c, bytesobject.c):
 * ct_py_layout_dwarf() takes their addresses (@p anchors, with @p found saying which are known). */
#define CT_PY_NUM_ANCHORS 4
extern const char *const ct_py_dwarf_anchors[CT_PY_NUM_ANCHORS];
/** The same from the compilation units @p units (python_dwarf.c; tests read them from a file). */
bool ct_py_layout_from_units(Dwarf_Die *units, size_t num_units, unsigned major, unsigned minor,
			     unsigned pointer_size, struct ct_py_layout *ret);

/**
 * The line of the instruction at byte offset @p addrq of a 3.11+ code object from its location
 * table @p table (@p len bytes) and co_firstlineno @p first (the locations notes in CPython's Objects/): -1
 * when the entry has no line or @p addrq lies beyond the table; the first line for addrq < 0.
 */
int ct_py_linetable_line(const uint8_t *table, size_t len, int first, int64_t addrq);

/**
 * Reads the Python stacks of the process in @p in into *@p ret (zeroed first; present = false
 * when the process runs no CPython). Problems are diagnostics in the sink; nothing here fails the
 * analysis.
 */
void ct_runtime_python(const struct ct_runtime_input *in, struct ct_runtime *ret);

/** Hands @p rt to @p report (the arrays move). */
void ct_runtime_to_report(struct ct_runtime *rt, struct ct_report *report);

#endif
