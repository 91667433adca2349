// Command-line parsing and --help.
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "dump/mapped_file.h"
#include "dump/sniff.h"

static const char help_text[] =
	"Usage: coretriage [OPTIONS] [EXECUTABLE] CORE\n"
	"       coretriage [OPTIONS] [VMLINUX] VMCORE\n"
	"\n"
	"Tells why a program (or a Linux kernel) crashed, from its core dump: every thread's\n"
	"backtrace with source lines, the faulting instruction, and the crash class with evidence.\n"
	"The executable is found from the core when it is not given (and its build-id matches).\n"
	"\n"
	"Options:\n"
	"  -f, --format=FORMAT        text (default), json or ndjson (one line)\n"
	"  -o, --output=FILE          write the report to FILE instead of standard output\n"
	"  -e, --exe=FILE             the executable (same as the EXECUTABLE argument)\n"
	"      --sysroot=DIR          resolve file paths recorded in the core under DIR\n"
	"      --debug-dir=DIR        look for debug files in DIR/.build-id/xx/rest.debug (repeatable)\n"
	"      --no-debuginfod        never query debuginfod servers (DEBUGINFOD_URLS)\n"
	"      --debuginfod-timeout=S give up on debuginfod after S seconds (default 10)\n"
	"      --safe                 open only the files given and the debug directories; no network;\n"
	"                             for untrusted cores (see docs/security.md)\n"
	"      --timeout=S            stop after S seconds of wall time (exit 2)\n"
	"      --max-memory=MIB       limit the address space to MIB mebibytes\n"
	"      --max-frames=N         frames per thread at most (default 1000000)\n"
	"      --max-threads=N        threads at most (default 100000)\n"
	"      --unwinder=NAME        dwfl (default) or libunwind\n"
	"      --all-registers        record every thread's registers, not only the crashing one's\n"
	"      --color=WHEN           auto (default: on a terminal, unless NO_COLOR is set), always, never\n"
	"      --no-abs-paths         show file names without directories (reproducible output)\n"
	"      --log                  print the whole kernel log (vmcores)\n"
	"  -v, --verbose              also list modules in the text report\n"
	"  -h, --help                 show this help and exit\n"
	"  -V, --version              show the version and exit\n"
	"\n"
	"Exit status:\n"
	"  0   complete report\n"
	"  1   partial report: written, but something was lost (see its warnings)\n"
	"  2   fatal error: no report (unreadable or unsupported input, timeout)\n"
	"  64  usage error\n";

enum {
	OPT_SYSROOT = 256,
	OPT_DEBUG_DIR,
	OPT_NO_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_SAFE,
	OPT_TIMEOUT,
	OPT_MAX_MEMORY,
	OPT_MAX_FRAMES,
	OPT_MAX_THREADS,
	OPT_UNWINDER,
	OPT_ALL_REGISTERS,
	OPT_COLOR,
	OPT_NO_ABS_PATHS,
	OPT_LOG,
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "exe", required_argument, NULL, 'e' },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "safe", no_argument, NULL, OPT_SAFE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "unwinder", required_argument, NULL, OPT_UNWINDER },
	{ "all-registers", no_argument, NULL, OPT_ALL_REGISTERS },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "no-abs-paths", no_argument, NULL, OPT_NO_ABS_PATHS },
	{ "log", no_argument, NULL, OPT_LOG },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "coretriage: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'coretriage --help' for more information.\n");
	return CT_EXIT_USAGE;
}

static bool parse_count(const char *s, unsigned long max, unsigned long *ret)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > max)
		return false;
	*ret = v;
	return true;
}

// Sniffs a positional argument without failing: CT_FORMAT_UNKNOWN when unreadable.
static enum ct_format sniff_path(const char *path)
{
	struct ct_mapped_file f;
	struct ct_error *err = ct_mapped_file_open(path, &f);
	if (err) {
		ct_error_destroy(err);
		return CT_FORMAT_UNKNOWN;
	}
	enum ct_format fmt = ct_sniff(f.data, f.size);
	ct_mapped_file_close(&f);
	return fmt;
}

int ct_cli_parse(int argc, char **argv, struct ct_cli *cli)
{
	ct_options_init(&cli->opts);
	cli->format = CT_OUTPUT_TEXT;
	cli->color = CT_COLOR_AUTO;
	size_t ndebug = 0;
	int c;
	unsigned long v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:o:e:vhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				cli->format = CT_OUTPUT_TEXT;
			else if (!strcmp(optarg, "json"))
				cli->format = CT_OUTPUT_JSON;
			else if (!strcmp(optarg, "ndjson"))
				cli->format = CT_OUTPUT_NDJSON;
			else
				return usage_error("unknown format '%s' (text, json, ndjson)", optarg);
			break;
		case 'o': cli->output = optarg; break;
		case 'e': cli->opts.executable = optarg; break;
		case OPT_SYSROOT: cli->opts.sysroot = optarg; break;
		case OPT_DEBUG_DIR:
			if (ndebug >= sizeof(cli->debug_dirs) / sizeof(cli->debug_dirs[0]))
				return usage_error("too many --debug-dir options (at most 64)");
			cli->debug_dirs[ndebug++] = optarg;
			break;
		case OPT_NO_DEBUGINFOD: cli->opts.debuginfod = false; break;
		case OPT_DEBUGINFOD_TIMEOUT:
			if (!parse_count(optarg, 3600, &v))
				return usage_error("--debuginfod-timeout: '%s' is not a number of seconds (1-3600)", optarg);
			cli->opts.debuginfod_timeout = (int)v;
			break;
		case OPT_SAFE: cli->opts.safe = true; break;
		case OPT_TIMEOUT:
			if (!parse_count(optarg, 86400, &v))
				return usage_error("--timeout: '%s' is not a number of seconds (1-86400)", optarg);
			cli->timeout = (unsigned)v;
			break;
		case OPT_MAX_MEMORY:
			if (!parse_count(optarg, 1UL << 30, &v) || v < 64)
				return usage_error("--max-memory: '%s' is not a size in MiB (at least 64)", optarg);
			cli->max_memory_mib = v;
			break;
		case OPT_MAX_FRAMES:
			if (!parse_count(optarg, 100000000, &v))
				return usage_error("--max-frames: '%s' is not a positive number", optarg);
			cli->opts.max_frames = v;
			break;
		case OPT_MAX_THREADS:
			if (!parse_count(optarg, CT_DEFAULT_MAX_THREADS, &v))
				return usage_error("--max-threads: '%s' is not a number from 1 to 100000", optarg);
			cli->opts.max_threads = v;
			break;
		case OPT_UNWINDER:
			if (!strcmp(optarg, "dwfl"))
				cli->opts.unwinder = CT_UNWINDER_DWFL;
			else if (!strcmp(optarg, "libunwind"))
				cli->opts.unwinder = CT_UNWINDER_LIBUNWIND;
			else
				return usage_error("unknown unwinder '%s' (dwfl, libunwind)", optarg);
			break;
		case OPT_ALL_REGISTERS: cli->opts.all_registers = true; break;
		case OPT_COLOR:
			if (!strcmp(optarg, "auto"))
				cli->color = CT_COLOR_AUTO;
			else if (!strcmp(optarg, "always"))
				cli->color = CT_COLOR_ALWAYS;
			else if (!strcmp(optarg, "never"))
				cli->color = CT_COLOR_NEVER;
			else
				return usage_error("--color: '%s' is not auto, always or never", optarg);
			break;
		case OPT_NO_ABS_PATHS: cli->opts.no_abs_paths = true; break;
		case OPT_LOG: cli->full_log = true; break;
		case 'v': cli->verbose = true; break;
		case 'h': fputs(help_text, stdout); return 0;
		case 'V': printf("coretriage %s\n", CT_VERSION); return 0;
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	cli->opts.debug_dirs = cli->debug_dirs;
	cli->opts.num_debug_dirs = ndebug;
	for (int i = optind; i < argc; i++) {
		if (cli->num_positional == 2)
			return usage_error("too many arguments: '%s' (expected [EXECUTABLE] CORE)", argv[i]);
		cli->positional[cli->num_positional++] = argv[i];
	}
	if (cli->num_positional == 0)
		return usage_error("no core file given");
	if (cli->num_positional == 2) {
		if (cli->opts.executable)
			return usage_error("both --exe and an EXECUTABLE argument given");
		enum ct_format a = sniff_path(cli->positional[0]), b = sniff_path(cli->positional[1]);
		// "coretriage core prog": notice and swap, and say so in the report.
		if (a == CT_FORMAT_ELF_CORE && b == CT_FORMAT_ELF_EXECUTABLE) {
			const char *t = cli->positional[0];
			cli->positional[0] = cli->positional[1];
			cli->positional[1] = t;
			cli->swapped = true;
		}
		cli->opts.executable = cli->positional[0];
		cli->opts.core_path = cli->positional[1];
	} else {
		cli->opts.core_path = cli->positional[0];
	}
	return -1;
}
