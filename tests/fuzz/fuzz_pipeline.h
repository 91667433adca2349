/**
 * @file fuzz_pipeline.h
 * The step the whole-pipeline fuzz targets share: analyze an in-memory process core with
 * @p opts, then run the text and JSON writers over the report (to /dev/null).
 */
#ifndef CT_FUZZ_PIPELINE_H
#define CT_FUZZ_PIPELINE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "coretriage/coretriage.h"
#include "pipeline.h"
#include "process/process.h"
#include "writers/writers.h"

/** The options hostile-input targets analyze with: --safe, no network, small caps, @p exe (borrowed). */
static inline void ct_fuzz_options(struct ct_options *opts, const char *exe)
{
	ct_options_init(opts);
	opts->safe = true;
	opts->debuginfod = false;
	opts->executable = exe;
	opts->max_frames = 512;
	opts->max_threads = 8;
	opts->core_path = "fuzz.core";
}

/** The whole file at @p path (NULL: none) in a malloc'ed buffer (the caller frees it), its size in *@p size_ret. */
static inline uint8_t *ct_fuzz_slurp(const char *path, size_t *size_ret)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	*size_ret = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size_ret = buf ? (size_t)n : 0;
	return buf;
}

static inline void ct_fuzz_analyze_and_write(const struct ct_options *opts, const uint8_t *data, size_t size)
{
	struct ct_report report;
	if (!ct_report_init(&report))
		return;
	struct ct_mapped_file file = { .fd = -1, .data = data, .size = size };
	// The process kind whatever the probe chain would say: the fuzzer feeds the core loader.
	const struct ct_dump_env env = { .opts = opts, .file = &file, .report = &report };
	struct ct_error *err = ct_pipeline_run(&ct_process_kind, &env);
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
