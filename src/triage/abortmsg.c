// glibc's __abort_msg, read from the dump. glibc 2.36 stdlib/abort.c and sysdeps/posix/libc_fatal.c:
// `struct abort_msg_s { unsigned int size; char msg[0]; }; struct abort_msg_s *__abort_msg;` — the
// pointer lives in libc's .data/.bss (dumped, writable), the message in an anonymous mmap (dumped).
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "triage/gather.h"

/** Longest message kept: assert messages with long expressions are a few hundred bytes. */
#define ABORT_MSG_MAX 4096

static bool is_libc(const struct ct_module_state *m)
{
	return m->name && (strncmp(m->name, "libc.so", 7) == 0 || strncmp(m->name, "libc-", 5) == 0);
}

bool ct_find_libc_symbol(const struct ct_triage_input *s, const char *name, uint64_t *ret)
{
	// libc first; the main executable when libc is linked in statically.
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->mods->num_modules; i++) {
			const struct ct_module_state *m = &s->mods->modules[i];
			if (!m->dwfl_module || (pass == 0 ? !is_libc(m) : !m->is_main))
				continue;
			if (ct_modules_symbol(m, name, ret))
				return true;
		}
	}
	return false;
}

const char *ct_read_abort_msg(const struct ct_triage_input *s)
{
	uint64_t sym = 0;
	bool found = ct_find_libc_symbol(s, "__abort_msg", &sym);
	uint64_t ptr;
	if (!found || !ct_core_read_word(s->core, sym, &ptr) || ptr == 0)
		return NULL;
	uint32_t size;
	if (!ct_core_read_fast(s->core, ptr, &size, sizeof(size)) || size <= 4)
		return NULL;
	size_t max = size - 4 < ABORT_MSG_MAX ? size - 4 : ABORT_MSG_MAX;
	char *text = NULL;
	struct ct_error *err = ct_core_read_string(s->core, ptr + 4, max, &text);
	if (err) {
		ct_error_destroy(err);
		return NULL;
	}
	const char *pooled = ct_strpool_intern(s->out.strings, text);
	free(text);
	return pooled;
}
