// coretriage: the command-line front end. Parses options, runs the analysis, picks a writer,
// maps the outcome to an exit status.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/batch.h"
#include "cli/collect.h"
#include "cli/history.h"
#include "cli/options.h"
#include "cli/sample.h"
#include "cli/source.h"
#include "writers/buckets.h"
#include "writers/writers.h"

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
	if (cli->max_memory_mib && CT_MEMORY_LIMIT_WORKS) {
		// RLIMIT_DATA (Linux >= 4.7 counts private writable mappings, i.e. the heap), not
		// RLIMIT_AS: the dump itself is mmapped read-only and may be far larger than the limit.
		struct rlimit rl = { .rlim_cur = (rlim_t)cli->max_memory_mib << 20, .rlim_max = (rlim_t)cli->max_memory_mib << 20 };
		setrlimit(RLIMIT_DATA, &rl);
	}
}

static bool want_color(const struct ct_cli *cli, FILE *out)
{
	if (cli->color == CT_COLOR_ALWAYS)
		return true;
	if (cli->color == CT_COLOR_NEVER)
		return false;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	if (nc && *nc)
		return false;
	// A dumb terminal (Emacs' M-x shell, some CI logs) shows escape sequences as letters.
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(out));
}

static int report_exit_status(const struct ct_report *r)
{
	return ct_report_is_complete(r) ? CT_EXIT_OK : CT_EXIT_PARTIAL;
}

static void setup_environment(const struct ct_cli *cli)
{
	// debuginfod is reached through libdwfl's standard callbacks, which read DEBUGINFOD_URLS: with
	// --no-debuginfod or --safe it must not be seen at all.
	if (!cli->opts.debuginfod || cli->opts.safe)
		unsetenv("DEBUGINFOD_URLS");
	if (!getenv("DEBUGINFOD_TIMEOUT")) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", cli->opts.debuginfod_timeout);
		setenv("DEBUGINFOD_TIMEOUT", buf, 1);
	}
	// Never let a debuginfod client show progress on the terminal or prompt.
	unsetenv("DEBUGINFOD_PROGRESS");
}

static bool thread_in_report(const struct ct_report *r, int tid)
{
	for (size_t i = 0; i < r->num_threads; i++)
		if (r->threads[i].tid == tid)
			return true;
	return false;
}

static int write_report_as(FILE *out, const struct ct_cli *cli, const struct ct_report *report,
			   const struct ct_write_options *o);

// One core's report in the chosen format.
static int write_report(FILE *out, const struct ct_cli *cli, const struct ct_report *report)
{
	struct ct_write_options wo;
	ct_write_options_init(&wo);
	wo.no_abs_paths = cli->opts.no_abs_paths;
	wo.verbose = cli->verbose;
	wo.full_log = cli->full_log;
	wo.locals = cli->locals || cli->verbose;
	wo.color = cli->format == CT_OUTPUT_TEXT && want_color(cli, out);
	// On a terminal a long argument (a struct, a string) would wrap the frame line: cut it, and
	// cut any line longer than the terminal is wide.
	if (cli->format == CT_OUTPUT_TEXT && isatty(fileno(out))) {
		wo.value_width = 60;
		wo.width = ct_cli_terminal_width(out);
	}
	// Display choices (-n, --thread, -q, --sections) are the writer's, never the analysis'.
	wo.sections = cli->quiet ? CT_SECTION_VERDICT : cli->sections ? cli->sections : CT_SECTIONS_DEFAULT;
	if (cli->verbose && !cli->quiet && !cli->sections)
		wo.sections |= CT_SECTION_MODULES;
	wo.show_frames = cli->show_frames;
	wo.show_threads = cli->show_threads;
	wo.show_tid = cli->show_tid;
	struct ct_cli_source source;
	bool with_source = cli->source && cli->format == CT_OUTPUT_TEXT &&
			   ct_cli_source_init(&source, cli->source_dirs, cli->num_source_dirs);
	if (with_source) {
		wo.source = &source.ops;
		wo.source_context = cli->source_context;
	}
	int rc = write_report_as(out, cli, report, &wo);
	if (with_source)
		ct_cli_source_deinit(&source);
	return rc;
}

static int write_report_as(FILE *out, const struct ct_cli *cli, const struct ct_report *report,
			   const struct ct_write_options *o)
{
	struct ct_write_options wo = *o;
	switch (cli->format) {
	case CT_OUTPUT_JSON: return ct_write_json(out, report, &wo, false);
	case CT_OUTPUT_NDJSON: return ct_write_json(out, report, &wo, true);
	case CT_OUTPUT_MARKDOWN: return ct_write_markdown(out, report, &wo);
	case CT_OUTPUT_FOLDED: return ct_write_folded(out, report);
	case CT_OUTPUT_SARIF: {
		// One core is one bucket, made by the same table as batch mode's (writers/buckets.c).
		json_t *meta = ct_cli_core_meta(report, cli->opts.core_path);
		struct ct_bucket b;
		if (!meta || !ct_cli_bucket_from_meta(meta, &b)) {
			json_decref(meta);
			errno = ENOMEM;
			return -1;
		}
		b.example = cli->opts.core_path;
		struct ct_buckets table;
		ct_buckets_init(&table);
		int r = -1;
		if (ct_buckets_add(&table, &b, 0)) {
			struct ct_sarif_options so = { .source_root = cli->source_root, .no_abs_paths = cli->opts.no_abs_paths,
						       .report = report };
			r = ct_write_sarif(out, &table.entries[0].b, 1, &so);
		} else {
			errno = ENOMEM;
		}
		ct_buckets_deinit(&table);
		json_decref(meta);
		return r;
	}
	default: return ct_write_text(out, report, &wo);
	}
}

// The cache of decompressed debug files (src/modules/debugfile.c): --cache-dir, else the XDG
// cache directory; none with --no-cache or --safe (a bot must not write outside its output).
static void choose_cache_dir(struct ct_cli *cli)
{
	static char path[4096];
	cli->opts.cache_dir = NULL;
	if (cli->no_cache || cli->opts.safe)
		return;
	if (cli->cache_dir) {
		cli->opts.cache_dir = cli->cache_dir;
		return;
	}
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n = -1;
	if (xdg && xdg[0] == '/')
		n = snprintf(path, sizeof(path), "%s/coretriage", xdg);
	else if (home && home[0] == '/')
		n = snprintf(path, sizeof(path), "%s/.cache/coretriage", home);
	if (n > 0 && (size_t)n < sizeof(path)) {
		// ~/.cache may not exist yet on a fresh account; the cache makes its own directory.
		if (!xdg && home) {
			char parent[4096];
			snprintf(parent, sizeof(parent), "%s/.cache", home);
			mkdir(parent, 0700);
		}
		cli->opts.cache_dir = path;
	}
}

int main(int argc, char **argv)
{
	// The store's subcommands have options of their own (docs/fleet.md).
	if (argc >= 2 && !strcmp(argv[1], "buckets"))
		return ct_cli_history(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "collect"))
		return ct_cli_collect(argc - 1, argv + 1);
	struct ct_cli cli = { 0 };
	int rc = ct_cli_parse(argc, argv, &cli);
	if (rc >= 0)
		return rc;
	setup_environment(&cli);
	choose_cache_dir(&cli);
	if (cli.batch) {
		// Limits apply to each worker, not to the batch itself (src/cli/batch.c).
		rc = ct_cli_batch(&cli);
		return rc;
	}
	apply_limits(&cli);
	if (cli.sample)
		return ct_cli_sample(&cli);

	struct ct_report report;
	if (!ct_report_init(&report)) {
		fprintf(stderr, "coretriage: out of memory\n");
		return CT_EXIT_FATAL;
	}
	if (cli.swapped) {
		ct_report_diag(&report, CT_SEVERITY_INFO, 0, CT_DIAG_SWAPPED_ARGUMENTS,
			       "arguments were given as CORE EXECUTABLE; read them as EXECUTABLE CORE");
	}
	void *reserve = ct_cli_memory_reserve();
	struct ct_error *err = ct_analyze(&cli.opts, &report);
	free(reserve);
	if (err) {
		ct_cli_error("%s", ct_error_message(err));
		ct_error_destroy(err);
		ct_report_deinit(&report);
		return CT_EXIT_FATAL;
	}
	if (cli.show_threads == CT_SHOW_THREADS_TID && !thread_in_report(&report, cli.show_tid)) {
		fprintf(stderr, "coretriage: --thread=%d: the dump has no thread %d (", cli.show_tid, cli.show_tid);
		for (size_t i = 0; i < report.num_threads && i < 16; i++)
			fprintf(stderr, "%s%d", i ? ", " : "threads ", report.threads[i].tid);
		fprintf(stderr, "%s)\n", report.num_threads > 16 ? ", …" : "");
		ct_report_deinit(&report);
		return CT_EXIT_USAGE;
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
	int wr = write_report(out, &cli, &report);
	if (wr == 0 && cli.flamegraph && ct_cli_write_report_flamegraph(cli.flamegraph, &report) != 0) {
		fprintf(stderr, "coretriage: %s: %s\n", cli.flamegraph, strerror(errno));
		wr = -1;
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
