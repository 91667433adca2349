// libFuzzer target: both unwinders on hostile stacks (issue 11). A real core (its path in
// CT_FUZZ_UNWIND_CORE, the executable in CT_FUZZ_UNWIND_EXE; made by scripts/make-cores) is the
// base: each input replaces the bytes of the crashing thread's stack from its sp on, so frame
// pointers, return addresses and saved registers are whatever the fuzzer wrote, while the modules
// (CFI, symbols) stay real. The first byte picks the unwinder (bit 0) and --all-registers (bit 1).
// Without the environment variables the target does nothing.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "dump/elfcore.h"
#include "process/process.h"
#include "fuzz_pipeline.h"
#include "writers/writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Stack bytes replaced at most: the frames that matter are near sp. */
#define STACK_WINDOW (64u << 10)

// The base core, loaded once (fuzz-target state; the library itself keeps none).
static uint8_t *base;
static size_t base_size;
static uint64_t stack_off, stack_len;
static const char *exe;

static bool load_base(void)
{
	exe = getenv("CT_FUZZ_UNWIND_EXE");
	base = ct_fuzz_slurp(getenv("CT_FUZZ_UNWIND_CORE"), &base_size);
	if (!base)
		return false;
	struct ct_core *core;
	struct ct_error *err = ct_core_open_memory(base, base_size, 8, &core);
	if (err) {
		ct_error_destroy(err);
		return false;
	}
	const struct ct_core_thread *t = NULL;
	for (size_t i = 0; i < core->num_threads && !t; i++)
		t = core->threads[i].cursig ? &core->threads[i] : NULL;
	if (!t && core->num_threads)
		t = &core->threads[0];
	const struct ct_segment *seg = t ? ct_core_find_segment(core, t->sp) : NULL;
	if (seg && t->sp - seg->vaddr < seg->filesz) {
		uint64_t in = t->sp - seg->vaddr;
		stack_off = seg->offset + in;
		stack_len = seg->filesz - in < STACK_WINDOW ? seg->filesz - in : STACK_WINDOW;
	}
	ct_core_destroy(core);
	return stack_len > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!base && !load_base())
		return 0;
	if (size < 1)
		return 0;
	uint8_t *copy = malloc(base_size);
	if (!copy)
		return 0;
	memcpy(copy, base, base_size);
	size_t n = size - 1 < stack_len ? size - 1 : (size_t)stack_len;
	memcpy(copy + stack_off, data + 1, n);
	struct ct_options opts;
	ct_fuzz_options(&opts, exe);
	opts.unwinder = data[0] & 1 ? CT_UNWINDER_LIBUNWIND : CT_UNWINDER_DWFL;
	opts.all_registers = data[0] & 2;
	ct_fuzz_analyze_and_write(&opts, copy, base_size);
	free(copy);
	return 0;
}
