// libFuzzer target: the whole process-core pipeline (loader, modules, unwinders, symbolization,
// disassembly, triage, report model and both writers) on an in-memory core, with --safe semantics
// and small caps so one input stays fast.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "coretriage/coretriage.h"
#include "process/process.h"
#include "report/writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_options opts;
	ct_options_init(&opts);
	opts.safe = true;
	opts.debuginfod = false;
	opts.max_frames = 64;
	opts.max_threads = 8;
	opts.all_registers = size & 1;
	opts.core_path = "fuzz.core";
	struct ct_report report;
	if (!ct_report_init(&report))
		return 0;
	struct ct_mapped_file file = { .fd = -1, .data = data, .size = size };
	struct ct_error *err = ct_process_analyze(&opts, &file, &report);
	if (!err) {
		FILE *out = fopen("/dev/null", "w");
		if (out) {
			struct ct_write_options wo;
			ct_write_options_init(&wo);
			ct_write_text(out, &report, &wo);
			ct_write_json(out, &report, &wo, false);
			fclose(out);
		}
	}
	ct_error_destroy(err);
	ct_report_deinit(&report);
	return 0;
}
