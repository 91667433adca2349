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
	struct ct_session s = { .opts = &opts, .report = &report };
	struct ct_error *err = ct_core_open_memory(data, size, 16, &s.core);
	if (!err) {
		err = ct_modules_load(&s);
		if (!err) {
			uint8_t buf[16];
			for (size_t i = 0; i < s.core->num_threads; i++) {
				ct_modules_find(&s, s.core->threads[i].pc);
				ct_modules_is_code(&s, s.core->threads[i].pc);
				ct_modules_read_code(&s, s.core->threads[i].pc, buf, sizeof(buf));
			}
			ct_modules_to_report(&s);
		}
		ct_modules_unload(&s);
		ct_core_destroy(s.core);
	}
	ct_error_destroy(err);
	ct_report_deinit(&report);
	return 0;
}
