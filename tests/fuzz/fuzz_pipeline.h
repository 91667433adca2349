/**
 * @file fuzz_pipeline.h
 * The step the whole-pipeline fuzz targets share: analyze an in-memory process core with
 * @p opts, then run the text and JSON writers over the report (to /dev/null).
 */
#ifndef CT_FUZZ_PIPELINE_H
#define CT_FUZZ_PIPELINE_H

#include <stdio.h>

#include "coretriage/coretriage.h"
#include "process/process.h"
#include "report/writers.h"

static inline void ct_fuzz_analyze_and_write(const struct ct_options *opts, const uint8_t *data, size_t size)
{
	struct ct_report report;
	if (!ct_report_init(&report))
		return;
	struct ct_mapped_file file = { .fd = -1, .data = data, .size = size };
	struct ct_error *err = ct_process_analyze(opts, &file, NULL, &report);
	if (!err) {
		FILE *out = fopen("/dev/null", "w");
		if (out) {
			struct ct_write_options wo;
			ct_write_options_init(&wo);
			ct_write_text(out, &report, &wo);
			ct_write_json(out, &report, &wo, size & 2);
			fclose(out);
		}
	}
	ct_error_destroy(err);
	ct_report_deinit(&report);
}

#endif
