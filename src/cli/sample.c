// coretriage sample -p PID: runs the sampler (src/process/sample.c) and writes its profile as the
// text summary or folded stacks, and the flame graph with --flamegraph.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/sample.h"
#include "process/sample.h"
#include "writers/writers.h"

int ct_cli_sample(const struct ct_cli *cli)
{
	if (cli->format != CT_OUTPUT_TEXT && cli->format != CT_OUTPUT_FOLDED) {
		ct_cli_error("sample: --format is text or folded (the flame graph is --flamegraph=FILE)");
		return CT_EXIT_USAGE;
	}
	const struct ct_sample_options so = { .pid = cli->opts.pid, .duration_s = cli->sample_duration,
					      .rate_hz = cli->sample_rate };
	struct ct_profile p;
	struct ct_error *err = ct_sample_process(&cli->opts, &so, &p);
	if (err) {
		ct_cli_error("%s", ct_error_message(err));
		ct_error_destroy(err);
		ct_profile_free(&p);
		return CT_EXIT_FATAL;
	}
	FILE *out = cli->output ? fopen(cli->output, "w") : stdout;
	int rc = CT_EXIT_FATAL;
	if (!out) {
		ct_cli_error("%s: %s", cli->output, strerror(errno));
		goto done;
	}
	int wr = cli->format == CT_OUTPUT_FOLDED ? ct_write_profile_folded(out, &p)
						 : ct_write_profile_text(out, &p, cli->sample_top);
	if (wr == 0 && cli->flamegraph) {
		FILE *svg = fopen(cli->flamegraph, "w");
		wr = svg ? ct_write_profile_flamegraph(svg, &p) : -1;
		if (svg && fclose(svg) != 0)
			wr = -1;
		if (wr != 0)
			ct_cli_error("%s: %s", cli->flamegraph, strerror(errno));
	}
	if (fflush(out) != 0 || wr != 0)
		ct_cli_error("writing the profile: %s", strerror(errno));
	else
		rc = p.note ? CT_EXIT_PARTIAL : CT_EXIT_OK;
	if (out != stdout)
		fclose(out);
done:
	ct_profile_free(&p);
	return rc;
}
