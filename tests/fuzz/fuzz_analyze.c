// libFuzzer target: the whole process-core pipeline (loader, modules, unwinders, symbolization,
// disassembly, triage, report model and both writers) on an in-memory core, with --safe semantics
// and small caps so one input stays fast.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "coretriage/coretriage.h"
#include "process/process.h"
#include "fuzz_pipeline.h"
#include "writers/writers.h"

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
	ct_fuzz_analyze_and_write(&opts, data, size);
	return 0;
}
