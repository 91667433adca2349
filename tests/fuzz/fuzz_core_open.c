// libFuzzer target: the ELF core loader (header, program headers, segment table, notes) and the
// bounded readers of dumped memory, on a whole core file as input.
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "dump/elfcore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_core *core;
	struct ct_error *err = ct_core_open_memory(data, size, 64, &core);
	if (err) {
		ct_error_destroy(err);
		return 0;
	}
	uint8_t buf[256];
	// Registers pointing anywhere: read around every thread's pc and sp.
	for (size_t i = 0; i < core->num_threads; i++) {
		const struct ct_core_thread *t = &core->threads[i];
		uint64_t w;
		ct_core_read_fast(core, t->pc, buf, sizeof(buf));
		ct_core_read_word(core, t->sp, &w);
		ct_core_read_word(core, t->sp - 8, &w);
		err = ct_core_read(core, t->pc - 16, buf, 32);
		ct_error_destroy(err);
	}
	// Every mapping the NT_FILE note names: where module discovery looks for ELF headers.
	for (size_t i = 0; i < core->num_files && i < 256; i++) {
		ct_core_read_fast(core, core->files[i].start, buf, 64);
		ct_core_read_fast(core, core->files[i].end - 1, buf, 2);
	}
	// Segment edges, including reads that straddle two segments.
	for (size_t i = 0; i < core->num_segments && i < 256; i++) {
		const struct ct_segment *s = &core->segments[i];
		ct_core_read_fast(core, s->vaddr + s->memsz - 4, buf, 8);
		err = ct_core_read(core, s->vaddr, buf, sizeof(buf));
		ct_error_destroy(err);
	}
	uint64_t v;
	char *str = NULL;
	if (ct_core_auxv(core, AT_EXECFN, &v)) {
		err = ct_core_read_string(core, v, 4096, &str);
		if (err)
			ct_error_destroy(err);
		else
			free(str);
	}
	ct_core_destroy(core);
	return 0;
}
