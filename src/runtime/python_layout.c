// Built-in layouts of CPython's structures, for interpreters without their DWARF (Debian's
// python3.11 is stripped). Offsets from the DWARF of Debian 12's python3.11 and python3.11d
// (python3.11-dbg, 3.11.2, x86-64), which agree: since 3.8 a debug build keeps the release ABI.
// They are those of CPython 3.11's Include/internal/pycore_runtime.h, pycore_interp.h,
// cpython/pystate.h, pycore_frame.h and cpython/code.h on every LP64 target. A version not here
// is never guessed: the stage says "no layout".
#include <stddef.h>

#include "runtime/python.h"

static const struct ct_py_layout layouts[] = {
	{
		.major = 3, .minor = 11, .pointer_size = 8,
		.rt_interpreters_head = 40, .rt_gil_last_holder = 368, .rt_gil_locked = 376,
		.rt_gil_sync = 392, .rt_gil_sync_size = 88, // cond (48 bytes), then mutex (40)
		.is_next = 0, .is_threads_head = 16,
		.ts_next = 8, .ts_native_thread_id = 160, .ts_cframe = 56,
		.cf_current_frame = 8,
		.fr_code = 32, .fr_previous = 48, .fr_prev_instr = 56, .fr_is_entry = 68, .fr_owner = 69,
		.co_firstlineno = 72, .co_filename = 112, .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		.co_firsttraceable = 168, .co_code_adaptive = 184,
		.ob_type = 8, .ob_size = 16, .bytes_sval = 32, .str_length = 16, .str_state = 32,
		.str_ascii_data = 48, .str_compact_data = 72,
	},
};

const struct ct_py_layout *ct_py_layout_find(unsigned major, unsigned minor, unsigned pointer_size)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct ct_py_layout *l = &layouts[i];
		if (l->major == major && l->minor == minor && l->pointer_size == pointer_size)
			return l;
	}
	return NULL;
}
