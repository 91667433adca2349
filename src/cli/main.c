// coretriage: the command-line front end. Parses options, runs the analysis, picks a writer,
// maps the outcome to an exit status.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/options.h"
#include "report/writers.h"

static void on_timeout(int sig)
{
	static const char msg[] = "coretriage: time limit reached (--timeout)\n";
	ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(CT_EXIT_FATAL);
}

static void apply_limits(const struct ct_cli *cli)
{
	if (cli->timeout) {
		signal(SIGALRM, on_timeout);
		alarm(cli->timeout);
	}
	if (cli->max_memory_mib) {
		struct rlimit rl = { .rlim_cur = (rlim_t)cli->max_memory_mib << 20, .rlim_max = (rlim_t)cli->max_memory_mib << 20 };
		setrlimit(RLIMIT_AS, &rl);
	}
}

static bool want_color(const struct ct_cli *cli, FILE *out)
{
	if (cli->color == CT_COLOR_ALWAYS)
		return true;
	if (cli->color == CT_COLOR_NEVER)
		return false;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	return isatty(fileno(out));
}

static int report_exit_status(const struct ct_report *r)
{
	if (ct_report_has_warnings(r))
		return CT_EXIT_PARTIAL;
	for (size_t i = 0; i < r->num_threads; i++) {
		if (r->threads[i].num_frames == 0)
			return CT_EXIT_PARTIAL;
	}
	return CT_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct ct_cli cli = { 0 };
	int rc = ct_cli_parse(argc, argv, &cli);
	if (rc >= 0)
		return rc;
	apply_limits(&cli);
	// debuginfod is reached through libdwfl's standard callbacks, which read DEBUGINFOD_URLS: with
	// --no-debuginfod or --safe it must not be seen at all.
	if (!cli.opts.debuginfod || cli.opts.safe)
		unsetenv("DEBUGINFOD_URLS");
	if (!getenv("DEBUGINFOD_TIMEOUT")) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", cli.opts.debuginfod_timeout);
		setenv("DEBUGINFOD_TIMEOUT", buf, 1);
	}
	// Never let a debuginfod client show progress on the terminal or prompt.
	unsetenv("DEBUGINFOD_PROGRESS");

	struct ct_report report;
	if (!ct_report_init(&report)) {
		fprintf(stderr, "coretriage: out of memory\n");
		return CT_EXIT_FATAL;
	}
	if (cli.swapped) {
		ct_report_diag(&report, CT_SEVERITY_INFO, 0, "swapped-arguments",
			       "arguments were given as CORE EXECUTABLE; read them as EXECUTABLE CORE");
	}
	struct ct_error *err = ct_analyze(&cli.opts, &report);
	if (err) {
		fprintf(stderr, "coretriage: %s\n", ct_error_message(err));
		ct_error_destroy(err);
		ct_report_deinit(&report);
		return CT_EXIT_FATAL;
	}
	FILE *out = stdout;
	if (cli.output) {
		out = fopen(cli.output, "w");
		if (!out) {
			fprintf(stderr, "coretriage: %s: %s\n", cli.output, strerror(errno));
			ct_report_deinit(&report);
			return CT_EXIT_FATAL;
		}
	}
	struct ct_write_options wo;
	ct_write_options_init(&wo);
	wo.no_abs_paths = cli.opts.no_abs_paths;
	wo.verbose = cli.verbose;
	wo.full_log = cli.full_log;
	wo.color = cli.format == CT_OUTPUT_TEXT && want_color(&cli, out);
	int wr;
	switch (cli.format) {
	case CT_OUTPUT_JSON: wr = ct_write_json(out, &report, &wo, false); break;
	case CT_OUTPUT_NDJSON: wr = ct_write_json(out, &report, &wo, true); break;
	default: wr = ct_write_text(out, &report, &wo); break;
	}
	if (fflush(out) != 0 || wr != 0) {
		fprintf(stderr, "coretriage: writing the report: %s\n", strerror(errno));
		rc = CT_EXIT_FATAL;
	} else {
		rc = report_exit_status(&report);
	}
	if (out != stdout)
		fclose(out);
	ct_report_deinit(&report);
	return rc;
}
