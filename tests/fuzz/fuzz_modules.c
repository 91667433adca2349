// libFuzzer target: module discovery from a core: NT_FILE mappings, ELF headers and program
// headers read from the dump's memory, build-id notes, the vdso image, libdwfl reporting. Runs
// with --safe semantics, so no path named in the input is ever opened.
#include <stdint.h>
#include <stdlib.h>

#include "coretriage/coretriage.h"
#include "dump/elfcore.h"
#include "modules/modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_options opts;
	ct_options_init(&opts);
	opts.safe = true;
	opts.debuginfod = false;
	struct ct_report report;
	if (!ct_report_init(&report))
		return 0;
	struct ct_core *core;
	struct ct_error *err = ct_core_open_memory(data, size, 16, &core);
	if (!err) {
		struct ct_module_set mods;
		err = ct_modules_load(&opts, core, ct_report_sink(&report), NULL, &mods);
		if (!err) {
			uint8_t buf[16];
			for (size_t i = 0; i < core->num_threads; i++) {
				ct_modules_find(&mods, core->threads[i].pc);
				ct_modules_is_code(&mods, core->threads[i].pc);
				ct_modules_read_code(&mods, core->threads[i].pc, buf, sizeof(buf));
			}
			ct_modules_to_report(&mods, &report);
		}
		ct_modules_unload(&mods);
		ct_core_destroy(core);
	}
	ct_error_destroy(err);
	ct_report_deinit(&report);
	return 0;
}
