// Command-line parsing and --help.
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "dump/mapped_file.h"
#include "dump/sniff.h"

static const char help_text[] =
	"Usage: coretriage [OPTIONS] [EXECUTABLE] CORE\n"
	"       coretriage [OPTIONS] EXECUTABLE -c CORE    (how coredumpctl debug runs a debugger)\n"
	"       coretriage [OPTIONS] [VMLINUX] VMCORE\n"
	"       coretriage [OPTIONS] [EXECUTABLE] -p PID   (a live process, e.g. a hung one)\n"
	"       coretriage batch [OPTIONS] PATH...\n"
	"       coretriage buckets --db=URL [top|new|regressions|show KEY|mark KEY] [OPTIONS]\n"
	"       coretriage collect [OPTIONS] (core_pattern handler or core directory watcher)\n"
	"       coretriage sample -p PID [--duration=10s] [--rate=49] [OPTIONS]\n"
	"\n"
	"Tells why a program (or a Linux kernel) crashed, from its core dump: every thread's\n"
	"backtrace with source lines, the faulting instruction, and the crash class with evidence.\n"
	"The executable is found from the core when it is not given (and its build-id matches).\n"
	"CORE may be compressed as systemd-coredump stores it (.zst, .xz, .lz4) or with gzip or\n"
	"bzip2, and '-' (or /dev/stdin) reads it from standard input, a pipe too: it is streamed\n"
	"into an anonymous temporary file in $TMPDIR (within --max-core-size), and the metadata of a\n"
	"systemd-coredump file name (core.COMM.UID.BOOTID.PID.TIMESTAMP) goes into the report.\n"
	"Options may come before or after the files; '--' ends the options.\n"
	"\n"
	"Options:\n"
	"  -f, --format=FORMAT        text (default), json, ndjson (json on one line), markdown (a\n"
	"                             bug report to paste into an issue), sarif (SARIF 2.1.0 for CI\n"
	"                             code scanning), folded (stacks for flame-graph tools)\n"
	"  -o, --output=FILE          write the report to FILE instead of standard output\n"
	"  -e, --exe=FILE             the executable (same as the EXECUTABLE argument; also\n"
	"                             --executable, as eu-stack spells it)\n"
	"  -c, --core=FILE            the core (same as the CORE argument; gdb's and eu-stack's -c)\n"
	"  -p, --pid=PID              analyze the running process PID instead of a core: its threads\n"
	"                             are stopped only while their registers and memory are copied\n"
	"                             (ptrace; the stop time is in the report), then the same analysis\n"
	"                             runs on the copy (see docs/live.md)\n"
	"      --gcore=FILE           with -p: also write the copy as an ELF core to FILE, as gdb's\n"
	"                             gcore does (gdb, eu-stack and coretriage read it)\n"
	"      --sysroot=DIR          resolve file paths recorded in the core under DIR, confined to it\n"
	"      --debug-dir=DIR        look for debug files in DIR/.build-id/xx/rest.debug (repeatable)\n"
	"      --no-debuginfod        never query debuginfod servers (DEBUGINFOD_URLS)\n"
	"      --cache-dir=DIR        keep decompressed copies of compressed debug files, the\n"
	"                             dpkg package of each module and each vmcore kernel's\n"
	"                             kallsyms and BTF in DIR\n"
	"                             (default $XDG_CACHE_HOME/coretriage or ~/.cache/coretriage)\n"
	"      --cache-size=SIZE      keep that cache under SIZE bytes, least recently used copies\n"
	"                             removed first (suffix K, M, G or T; default 4G)\n"
	"      --no-cache             do not read or write that cache (also with --safe)\n"
	"      --debuginfod-timeout=S give up on debuginfod after S seconds (default 10)\n"
	"      --safe                 open only the files given and the debug directories; no network,\n"
	"                             no cache; implies --timeout=60 --max-memory=4096 unless given;\n"
	"                             for untrusted cores (see docs/security.md)\n"
	"      --timeout=S            stop after S seconds of wall time (exit 2); in batch, per core\n"
	"                             (default 120)\n"
	"      --max-memory=MIB       limit the memory the analysis allocates to MIB mebibytes (the\n"
	"                             mapped dump does not count); in batch, per core (default 4096);\n"
	"                             the work budget (total frames, names, debug sections, temporary\n"
	"                             space) derives from it, halved with --safe\n"
	"      --max-core-size=SIZE   refuse to decompress a core larger than SIZE bytes (suffix K, M,\n"
	"                             G or T; default 64G, or the memory limit when $TMPDIR is in\n"
	"                             memory (tmpfs) or with --safe)\n"
	"      --max-frames=N         frames per thread at most (default 1000000)\n"
	"      --max-threads=N        threads at most (default 100000)\n"
	"      --unwinder=NAME        dwfl (default) or libunwind\n"
	"      --runtime=WHEN         on (default): each thread's Python stack, or a Go program's\n"
	"                             goroutines, read from the runtime's state in the core;\n"
	"                             off: native stacks only\n"
	"      --all-registers        record every thread's registers, not only the crashing one's\n"
	"      --color=WHEN           auto (default: on a terminal, unless NO_COLOR is set or TERM is\n"
	"                             dumb), always, never\n"
	"      --no-abs-paths         show file names without directories (reproducible output)\n"
	"      --source-root=DIR      sarif: give source files under DIR relative to DIR (uriBaseId\n"
	"                             SRCROOT), so code scanning finds them in the repository\n"
	"      --flamegraph=FILE      also write an interactive SVG flame graph to FILE: every\n"
	"                             thread's stack; in batch, the crash stack of each bucket\n"
	"      --log                  print the whole kernel log (vmcores)\n"
	"      --logs=PATH            show the log lines around the crash time from PATH: a text log\n"
	"                             (RFC 3339/ISO 8601, syslog, RFC 5424, kernel, audit times), a\n"
	"                             journal export, a systemd journal file, or a directory of them\n"
	"                             (repeatable; see docs/trail.md)\n"
	"      --logs-window=S[,A]    search S seconds before the crash and A after (default 60,60;\n"
	"                             one number for both)\n"
	"      --journal=PATH         the journal file or directory holding the systemd-coredump entry\n"
	"                             of the crash (a journal copied from another machine); default:\n"
	"                             the system journal, for cores named by systemd-coredump\n"
	"      --no-journal           never read the system journal\n"
	"      --locals               text: list the locals of the crashing thread's frames under\n"
	"                             each frame, as gdb's bt full does (JSON always has them)\n"
	"      --tasks                list every kernel task like crash's ps, each sleeping task with\n"
	"                             its kernel stack (vmcores; without it only D-state tasks)\n"
	"  -n, --frames=N             text: show N frames per thread (display only: the analysis and\n"
	"                             the verdict still see every frame; --max-frames caps those)\n"
	"      --thread=WHICH         text: the stacks shown: all (default), crashed, or a TID\n"
	"  -q, --quiet                text: the verdict only (the same as --sections=verdict)\n"
	"      --sections=LIST        text: the parts shown, comma-separated, in the report's order:\n"
	"                             verdict, warnings, kernel, hang, stacks, trail, tasks,\n"
	"                             registers, disassembly, modules (default: all but modules)\n"
	"      --source[=N]           text: the source line of each frame of the crashing thread and N\n"
	"                             lines either side (default 2), when the file is found\n"
	"      --source-dir=DIR       look for source files under DIR too: the path the frame records,\n"
	"                             then ever shorter ends of it (repeatable)\n"
	"  -v, --verbose              also list modules and locals in the text report\n"
	"  -h, --help                 show this help and exit\n"
	"  -V, --version              show the version and the linked libraries' versions, and exit\n"
	"On a terminal the text report fits its width (COLUMNS when set): longer lines end in '…'.\n"
	"\n"
	"Batch mode: coretriage batch [OPTIONS] PATH...\n"
	"  Analyzes many cores in parallel, each in its own worker process with a time and memory\n"
	"  limit (a core that crashes or hangs a worker fails alone), and groups them into buckets by\n"
	"  crash signature. A PATH is a core file (compressed or not), a directory (searched\n"
	"  recursively for files that are cores) or a quoted glob pattern. Each core's executable is\n"
	"  found from the core unless --exe is given. Every option above applies to each core.\n"
	"  With -f: text (default) is the bucket table, json the bucket summary, ndjson one full JSON\n"
	"  report per core in input order (streamed; a core that failed gives an \"error\" object),\n"
	"  markdown the bucket table, sarif one result per bucket at its blame line, folded one line\n"
	"  per bucket weighted by its number of cores.\n"
	"  -j, --jobs=N               analyze N cores at once (default: the number of CPUs)\n"
	"      --summary=FILE         also write the bucket summary as JSON to FILE\n"
	"      --known=FILE           signatures already filed: lines \"HASH URL\" ('#' starts a\n"
	"                             comment, '# signature-version: N' marks the version of the\n"
	"                             hashes); buckets not listed are new (docs/batch.md)\n"
	"      --fail-on-new          exit 3 when a bucket is new, else 0 (unless fatal)\n"
	"      --db=URL               record every report in the crash store URL: a file (PATH or\n"
	"                             sqlite:PATH) or postgresql://USER@HOST/DB; a bucket the store\n"
	"                             had seen before is not new (docs/fleet.md)\n"
	"      --since-build=ID       with --db: a bucket is new unless the store had a report of it\n"
	"                             by the last report of build-id ID (the last green build)\n"
	"      --record-version=V     with --db: the version recorded for every core (default: the\n"
	"                             version in the program's package note, if any)\n"
	"  The history: coretriage buckets --help and coretriage collect --help (docs/fleet.md).\n"
	"      --progress=WHEN        auto (default: a progress bar on stderr when it is a terminal),\n"
	"                             always, never\n"
	"\n"
	"Sample mode: coretriage sample -p PID [OPTIONS] [EXECUTABLE]\n"
	"  A wall-clock profile of a running process: at the rate, every thread is stopped just long\n"
	"  enough to copy its registers and stack, then resumed; the stacks are unwound afterwards.\n"
	"  Each stack is rooted at the thread's state (on-CPU, or the call it waits in, such as\n"
	"  read(fd 3 → socket:[1234]), or futex(mutex 0x… owned by thread N): the lock and its\n"
	"  holder), so time waiting shows beside time computing. With -f: text (default) the top\n"
	"  states and stacks by share, folded the stacks for flame-graph tools; --flamegraph=FILE\n"
	"  writes the SVG (see docs/live.md).\n"
	"      --duration=TIME        how long to sample: seconds, or with s, ms or m (default 10s)\n"
	"      --rate=HZ              ticks per second, 1-1000 (default 49)\n"
	"      --top=N                text: the N largest states and stacks (default 10)\n"
	"\n"
	"Exit status:\n"
	"  0   complete report (batch: every core analyzed completely)\n"
	"  1   partial report: written, but something was lost (see its warnings); batch: some\n"
	"      cores failed or gave partial reports\n"
	"  2   fatal error: no report (unreadable or unsupported input, timeout); batch: no core\n"
	"      could be analyzed, or the output could not be written\n"
	"  3   batch with --fail-on-new: at least one bucket is new (not in --known, not in --db,\n"
	"      or a fixed bucket seen again)\n"
	"  64  usage error\n";

enum {
	OPT_SYSROOT = 256,
	OPT_DEBUG_DIR,
	OPT_NO_DEBUGINFOD,
	OPT_CACHE_DIR,
	OPT_CACHE_SIZE,
	OPT_NO_CACHE,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_SAFE,
	OPT_TIMEOUT,
	OPT_MAX_MEMORY,
	OPT_MAX_FRAMES,
	OPT_MAX_THREADS,
	OPT_UNWINDER,
	OPT_RUNTIME,
	OPT_ALL_REGISTERS,
	OPT_LOCALS,
	OPT_COLOR,
	OPT_NO_ABS_PATHS,
	OPT_LOG,
	OPT_MAX_CORE_SIZE,
	OPT_SOURCE_ROOT,
	OPT_FLAMEGRAPH,
	OPT_SUMMARY,
	OPT_KNOWN,
	OPT_FAIL_ON_NEW,
	OPT_PROGRESS,
	OPT_LOGS,
	OPT_LOGS_WINDOW,
	OPT_JOURNAL,
	OPT_NO_JOURNAL,
	OPT_TASKS,
	OPT_THREAD,
	OPT_SECTIONS,
	OPT_SOURCE,
	OPT_SOURCE_DIR,
	OPT_DB,
	OPT_SINCE_BUILD,
	OPT_RECORD_VERSION,
	OPT_GCORE,
	OPT_DURATION,
	OPT_RATE,
	OPT_TOP,
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "exe", required_argument, NULL, 'e' },
	{ "executable", required_argument, NULL, 'e' },
	{ "core", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "gcore", required_argument, NULL, OPT_GCORE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "frames", required_argument, NULL, 'n' },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "sections", required_argument, NULL, OPT_SECTIONS },
	{ "source", optional_argument, NULL, OPT_SOURCE },
	{ "source-dir", required_argument, NULL, OPT_SOURCE_DIR },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "cache-size", required_argument, NULL, OPT_CACHE_SIZE },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "safe", no_argument, NULL, OPT_SAFE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "unwinder", required_argument, NULL, OPT_UNWINDER },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "all-registers", no_argument, NULL, OPT_ALL_REGISTERS },
	{ "locals", no_argument, NULL, OPT_LOCALS },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "no-abs-paths", no_argument, NULL, OPT_NO_ABS_PATHS },
	{ "log", no_argument, NULL, OPT_LOG },
	{ "tasks", no_argument, NULL, OPT_TASKS },
	{ "max-core-size", required_argument, NULL, OPT_MAX_CORE_SIZE },
	{ "source-root", required_argument, NULL, OPT_SOURCE_ROOT },
	{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
	{ "jobs", required_argument, NULL, 'j' },
	{ "summary", required_argument, NULL, OPT_SUMMARY },
	{ "known", required_argument, NULL, OPT_KNOWN },
	{ "fail-on-new", no_argument, NULL, OPT_FAIL_ON_NEW },
	{ "db", required_argument, NULL, OPT_DB },
	{ "since-build", required_argument, NULL, OPT_SINCE_BUILD },
	{ "record-version", required_argument, NULL, OPT_RECORD_VERSION },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "logs", required_argument, NULL, OPT_LOGS },
	{ "logs-window", required_argument, NULL, OPT_LOGS_WINDOW },
	{ "journal", required_argument, NULL, OPT_JOURNAL },
	{ "no-journal", no_argument, NULL, OPT_NO_JOURNAL },
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

int ct_cli_command_usage(const char *command, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "coretriage: %s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'coretriage %s --help' for more information.\n", command);
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

// "64G", "512M", "1048576": bytes with an optional binary suffix.
static bool parse_size(const char *s, uint64_t *ret)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || v == 0)
		return false;
	unsigned shift = 0;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: return false;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return false;
	}
	if (v > (UINT64_MAX >> shift))
		return false;
	*ret = (uint64_t)v << shift;
	return true;
}

static int parse_when(const char *opt, const char *arg, enum ct_color_mode *ret)
{
	if (!strcmp(arg, "auto"))
		*ret = CT_COLOR_AUTO;
	else if (!strcmp(arg, "always"))
		*ret = CT_COLOR_ALWAYS;
	else if (!strcmp(arg, "never"))
		*ret = CT_COLOR_NEVER;
	else
		return usage_error("%s: '%s' is not auto, always or never", opt, arg);
	return -1;
}

// --logs-window: "S" (both sides) or "BEFORE,AFTER", seconds; a day at most either side.
static bool parse_window(const char *s, unsigned *before, unsigned *after)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return false;
	unsigned long b = strtoul(s, &end, 10), a = b;
	if (*end == ',') {
		const char *s2 = end + 1;
		if (*s2 < '0' || *s2 > '9')
			return false;
		a = strtoul(s2, &end, 10);
	}
	if (*end || a > 86400 || b > 86400)
		return false;
	*before = (unsigned)b;
	*after = (unsigned)a;
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

// The long name of the option whose value is @p val (the first spelling in long_options).
static const char *long_name(int val)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == val)
			return o->name;
	return NULL;
}

// Prints the lines of --help that describe option --@p name (its entry and continuation lines),
// so that a usage error shows the option's argument and values from the one help text.
static void print_help_entry(const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), "--%s", name);
	size_t klen = strlen(key);
	for (const char *l = help_text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
		const char *at = l;
		while (at < l + n && (at = memmem(at, (size_t)(l + n - at), key, klen))) {
			char next = at[klen];
			if (at[-1] == ' ' && (next == '=' || next == ' ' || next == '[')) {
				fwrite(l, 1, n, stderr);
				// Continuation lines start at the description column.
				for (l += n; !strncmp(l, "                             ", 29); l += n) {
					nl = strchr(l, '\n');
					n = nl ? (size_t)(nl - l) + 1 : strlen(l);
					fwrite(l, 1, n, stderr);
				}
				return;
			}
			at += klen;
		}
		l += n;
	}
}

// getopt's ':' (a missing value) and '?' (unknown, ambiguous, or a value given to a flag).
// --version: this program's version, then each library linked with the version it reports at run
// time ("built with" for those that have no version call).
static void print_version(void)
{
	printf("coretriage %s\n", CT_VERSION);
	struct ct_library_version libs[32];
	size_t n = ct_library_versions(libs, sizeof(libs) / sizeof(libs[0]));
	for (size_t i = 0; i < n && i < sizeof(libs) / sizeof(libs[0]); i++)
		printf("  %-14s %s%s\n", libs[i].name, libs[i].version, libs[i].runtime ? "" : " (built with)");
}

static int option_error(int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *name = NULL;
	if (!strncmp(arg, "--", 2)) {
		// getopt has stepped past the option, so argv[optind - 1] is it ("--format" or "--safe=1").
		char buf[64];
		size_t n = strcspn(arg + 2, "=");
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), arg + 2);
		for (const struct option *o = long_options; o->name; o++)
			if (!strcmp(o->name, buf))
				name = o->name;
		if (c == ':' && !name && optopt)
			name = long_name(optopt); // an abbreviation ("--form")
		if (c == '?' && name && arg[2 + n] == '=')
			return usage_error("option '--%s' takes no value (given '%s')", name, arg);
		if (c == '?' && !name && optopt && (name = long_name(optopt)))
			return usage_error("option '--%s' takes no value (given '%s')", name, arg);
		if (c == '?')
			return usage_error("unknown or ambiguous option '%s'", arg);
	} else if (c == '?') {
		return usage_error("unknown option '-%c'", optopt);
	} else {
		name = long_name(optopt);
	}
	if (name && arg[0] == '-' && arg[1] != '-')
		fprintf(stderr, "coretriage: option '-%c' (--%s) needs a value:\n", optopt, name);
	else if (name)
		fprintf(stderr, "coretriage: option '--%s' needs a value:\n", name);
	else
		fprintf(stderr, "coretriage: option '-%c' needs a value\n", optopt);
	if (name)
		print_help_entry(name);
	fprintf(stderr, "Try 'coretriage --help' for more information.\n");
	return CT_EXIT_USAGE;
}

// --format's value; a name people try for a format we write another way is answered with the way.
static int parse_format(const char *arg, struct ct_cli *cli)
{
	static const struct {
		const char *name;
		enum ct_output_format format;
	} formats[] = {
		{ "text", CT_OUTPUT_TEXT },	    { "json", CT_OUTPUT_JSON },	  { "ndjson", CT_OUTPUT_NDJSON },
		{ "markdown", CT_OUTPUT_MARKDOWN }, { "md", CT_OUTPUT_MARKDOWN }, { "sarif", CT_OUTPUT_SARIF },
		{ "folded", CT_OUTPUT_FOLDED },
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(arg, formats[i].name)) {
			cli->format = formats[i].format;
			cli->format_given = true;
			return -1;
		}
	}
	const char *hint = "";
	if (!strcmp(arg, "svg") || !strcmp(arg, "flamegraph") || !strcmp(arg, "html"))
		hint = "; the flame graph is --flamegraph=FILE (an SVG file, written beside the report)";
	else if (!strcmp(arg, "jsonl") || !strcmp(arg, "json-lines"))
		hint = "; JSON on one line is ndjson";
	return usage_error("--format: '%s' is not a format (text, json, ndjson, markdown, sarif, folded)%s", arg, hint);
}

// --sections=LIST: names of enum ct_text_section, comma-separated.
static int parse_sections(const char *arg, unsigned *ret)
{
	static const char *const names[] = { "verdict", "warnings", "kernel", "hang", "stacks", "trail",
					     "tasks", "registers", "disassembly", "modules" };
	_Static_assert(1u << (sizeof(names) / sizeof(names[0])) == CT_SECTION_ALL_ + 1, "a name per section");
	unsigned bits = 0;
	for (const char *p = arg;;) {
		size_t n = strcspn(p, ",");
		size_t i = 0;
		for (; i < sizeof(names) / sizeof(names[0]); i++)
			if (n == strlen(names[i]) && !strncmp(p, names[i], n))
				break;
		if (n == 3 && !strncmp(p, "all", 3))
			bits |= CT_SECTION_ALL_;
		else if (i == sizeof(names) / sizeof(names[0]))
			return usage_error("--sections: '%.*s' is not a section (verdict, warnings, kernel, hang, stacks, "
					   "trail, tasks, registers, disassembly, modules, all)", (int)n, p);
		else
			bits |= 1u << i;
		if (!p[n])
			break;
		p += n + 1;
	}
	*ret = bits;
	return -1;
}

// An EXECUTABLE must be an ELF executable or shared object: anything else is a usage error with
// its reason, not a file silently ignored.
static int check_executable(const char *path)
{
	struct ct_mapped_file f;
	struct ct_error *err = ct_mapped_file_open(path, &f);
	if (err) {
		int rc = usage_error("EXECUTABLE %s", ct_error_message(err));
		ct_error_destroy(err);
		return rc;
	}
	enum ct_format fmt = ct_sniff(f.data, f.size);
	ct_mapped_file_close(&f);
	if (fmt == CT_FORMAT_ELF_EXECUTABLE)
		return -1;
	if (fmt == CT_FORMAT_ELF_CORE)
		return usage_error("EXECUTABLE %s is a core dump, not a program (the core goes last, or after -c)", path);
	return usage_error("EXECUTABLE %s is not an ELF executable or shared object (it is %s%s)", path,
			   fmt == CT_FORMAT_UNKNOWN ? "not ELF" : ct_format_to_string(fmt),
			   fmt == CT_FORMAT_UNKNOWN ? ": a source file or script?" : "");
}

int ct_cli_parse(int argc, char **argv, struct ct_cli *cli)
{
	ct_options_init(&cli->opts);
	cli->format = CT_OUTPUT_TEXT;
	cli->color = CT_COLOR_AUTO;
	cli->progress = CT_COLOR_AUTO;
	size_t ndebug = 0, nlogs = 0, nsource = 0;
	int c, rc;
	unsigned long v;
	const char *batch_only = NULL;
	// "coretriage batch …": the rest is parsed as usual, with batch options allowed.
	if (argc >= 2 && !strcmp(argv[1], "batch")) {
		cli->batch = true;
		argv++;
		argc--;
	} else if (argc >= 2 && !strcmp(argv[1], "sample")) {
		cli->sample = true;
		argv++;
		argc--;
	}
	cli->sample_duration = 10;
	cli->sample_rate = 49;
	cli->sample_top = 10;
	const char *sample_only = NULL;
	opterr = 0;
	// GNU order: options anywhere ("coretriage ./prog core -f json", "batch cores/ -j4"), '--' ends
	// them; the leading ':' makes a missing value ':' rather than '?'.
	while ((c = getopt_long(argc, argv, ":f:o:e:c:p:n:j:qvhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((rc = parse_format(optarg, cli)) >= 0)
				return rc;
			break;
		case 'o': cli->output = optarg; break;
		case 'e':
			if (cli->opts.executable && strcmp(cli->opts.executable, optarg))
				return usage_error("--exe given twice ('%s' and '%s')", cli->opts.executable, optarg);
			cli->opts.executable = optarg;
			break;
		case 'c':
			if (cli->core_opt && strcmp(cli->core_opt, optarg))
				return usage_error("--core given twice ('%s' and '%s'); several cores: coretriage batch "
						   "PATH...", cli->core_opt, optarg);
			cli->core_opt = optarg;
			break;
		case 'n':
			if (!parse_count(optarg, SIZE_MAX, &v))
				return usage_error("-n/--frames: '%s' is not a positive number of frames", optarg);
			cli->show_frames = v;
			break;
		case OPT_THREAD:
			if (!strcmp(optarg, "all")) {
				cli->show_threads = CT_SHOW_THREADS_ALL;
			} else if (!strcmp(optarg, "crashed")) {
				cli->show_threads = CT_SHOW_THREADS_CRASHED;
			} else if (parse_count(optarg, INT32_MAX, &v)) {
				cli->show_threads = CT_SHOW_THREADS_TID;
				cli->show_tid = (int)v;
			} else {
				return usage_error("--thread: '%s' is not all, crashed or a thread id", optarg);
			}
			break;
		case 'q': cli->quiet = true; break;
		case OPT_SOURCE:
			cli->source = true;
			cli->source_context = 2;
			if (optarg && !(parse_count(optarg, 1000, &v) || !strcmp(optarg, "0")))
				return usage_error("--source: '%s' is not a number of lines (0-1000)", optarg);
			if (optarg)
				cli->source_context = (unsigned)v * (strcmp(optarg, "0") != 0);
			break;
		case OPT_SOURCE_DIR:
			if (nsource >= sizeof(cli->source_dirs) / sizeof(cli->source_dirs[0]))
				return usage_error("too many --source-dir options (at most 16)");
			cli->source_dirs[nsource++] = optarg;
			break;
		case OPT_SECTIONS:
			if ((rc = parse_sections(optarg, &cli->sections)) >= 0)
				return rc;
			break;
		case OPT_SYSROOT: cli->opts.sysroot = optarg; break;
		case OPT_DEBUG_DIR:
			if (ndebug >= sizeof(cli->debug_dirs) / sizeof(cli->debug_dirs[0]))
				return usage_error("too many --debug-dir options (at most 64)");
			cli->debug_dirs[ndebug++] = optarg;
			break;
		case OPT_NO_DEBUGINFOD: cli->opts.debuginfod = false; break;
		case OPT_CACHE_DIR: cli->cache_dir = optarg; break;
		case OPT_CACHE_SIZE:
			if (!parse_size(optarg, &cli->opts.cache_size) || cli->opts.cache_size == 0)
				return usage_error("--cache-size: '%s' is not a size (bytes, suffix K, M, G or T)", optarg);
			break;
		case OPT_NO_CACHE: cli->no_cache = true; break;
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
		case 'p':
			if (!parse_count(optarg, 1UL << 30, &v))
				return usage_error("--pid: '%s' is not a process id", optarg);
			cli->opts.pid = (int)v;
			break;
		case OPT_GCORE: cli->opts.gcore_path = optarg; break;
		case OPT_DURATION: {
			char *end;
			double d = strtod(optarg, &end);
			double scale = !strcmp(end, "") || !strcmp(end, "s") ? 1 : !strcmp(end, "ms") ? 0.001 : !strcmp(end, "m") ? 60 : -1;
			if (scale < 0 || !(d > 0) || d * scale > 86400)
				return usage_error("--duration: '%s' is not a time (10, 10s, 500ms, 2m; at most a day)", optarg);
			cli->sample_duration = d * scale;
			sample_only = "--duration";
			break;
		}
		case OPT_RATE:
			if (!parse_count(optarg, 1000, &v))
				return usage_error("--rate: '%s' is not a rate in Hz (1-1000)", optarg);
			cli->sample_rate = (unsigned)v;
			sample_only = "--rate";
			break;
		case OPT_TOP:
			if (!parse_count(optarg, 100000, &v))
				return usage_error("--top: '%s' is not a positive number", optarg);
			cli->sample_top = (unsigned)v;
			sample_only = "--top";
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
				return usage_error("--unwinder: '%s' is not dwfl or libunwind", optarg);
			break;
		case OPT_RUNTIME:
			if (!strcmp(optarg, "on") || !strcmp(optarg, "off"))
				cli->opts.no_runtime = !strcmp(optarg, "off");
			else
				return usage_error("--runtime: '%s' is not on or off", optarg);
			break;
		case OPT_ALL_REGISTERS: cli->opts.all_registers = true; break;
		case OPT_LOCALS: cli->locals = true; break;
		case OPT_COLOR:
			if ((rc = parse_when("--color", optarg, &cli->color)) >= 0)
				return rc;
			break;
		case OPT_PROGRESS:
			if ((rc = parse_when("--progress", optarg, &cli->progress)) >= 0)
				return rc;
			batch_only = "--progress";
			break;
		case OPT_MAX_CORE_SIZE:
			if (!parse_size(optarg, &cli->opts.max_core_size))
				return usage_error("--max-core-size: '%s' is not a size (e.g. 64G, 512M, 1048576)", optarg);
			break;
		case OPT_SOURCE_ROOT: cli->source_root = optarg; break;
		case OPT_FLAMEGRAPH: cli->flamegraph = optarg; break;
		case 'j':
			if (!parse_count(optarg, 4096, &v))
				return usage_error("--jobs: '%s' is not a number from 1 to 4096", optarg);
			cli->jobs = (unsigned)v;
			batch_only = "--jobs";
			break;
		case OPT_SUMMARY: cli->summary = optarg; batch_only = "--summary"; break;
		case OPT_KNOWN: cli->known = optarg; batch_only = "--known"; break;
		case OPT_FAIL_ON_NEW: cli->fail_on_new = true; batch_only = "--fail-on-new"; break;
		case OPT_DB: cli->db = optarg; batch_only = "--db"; break;
		case OPT_SINCE_BUILD: cli->since_build = optarg; batch_only = "--since-build"; break;
		case OPT_RECORD_VERSION: cli->record_version = optarg; batch_only = "--record-version"; break;
		case OPT_NO_ABS_PATHS: cli->opts.no_abs_paths = true; break;
		case OPT_LOG: cli->full_log = true; break;
		case OPT_LOGS:
			if (nlogs >= sizeof(cli->log_paths) / sizeof(cli->log_paths[0]))
				return usage_error("too many --logs options (at most 64)");
			cli->log_paths[nlogs++] = optarg;
			break;
		case OPT_LOGS_WINDOW:
			if (!parse_window(optarg, &cli->opts.logs_window_before, &cli->opts.logs_window_after))
				return usage_error("--logs-window: '%s' is not SECONDS or BEFORE,AFTER (0-86400 each)", optarg);
			break;
		case OPT_JOURNAL: cli->opts.journal = optarg; break;
		case OPT_NO_JOURNAL: cli->opts.no_journal = true; break;
		case OPT_TASKS: cli->opts.kernel_tasks = true; break;
		case 'v': cli->verbose = true; break;
		case 'h': fputs(help_text, stdout); return 0;
		case 'V': print_version(); return 0;
		default: return option_error(c, argv);
		}
	}
	if (cli->opts.safe && !cli->batch) {
		if (!cli->timeout)
			cli->timeout = CT_SAFE_DEFAULT_TIMEOUT;
		if (!cli->max_memory_mib)
			cli->max_memory_mib = CT_SAFE_DEFAULT_MAX_MEMORY_MIB;
	}
	// The work budget's limits derive from it (src/util/budget.h).
	cli->opts.max_memory = (uint64_t)cli->max_memory_mib << 20;
	cli->opts.debug_dirs = cli->debug_dirs;
	cli->opts.num_debug_dirs = ndebug;
	cli->num_source_dirs = nsource;
	cli->opts.log_paths = cli->log_paths;
	cli->opts.num_log_paths = nlogs;
	if (cli->batch) {
		if (optind >= argc)
			return usage_error("batch: no PATH given (cores, directories or glob patterns)");
		cli->paths = argv + optind;
		cli->num_paths = (size_t)(argc - optind);
		return -1;
	}
	if (batch_only)
		return usage_error("%s is a batch option: coretriage batch [OPTIONS] PATH...", batch_only);
	if (sample_only && !cli->sample)
		return usage_error("%s is a sample option: coretriage sample -p PID [--duration=10s] [--rate=49]", sample_only);
	if (cli->sample && !cli->opts.pid)
		return usage_error("sample: no process given (coretriage sample -p PID)");
	if (cli->sample && cli->opts.gcore_path)
		return usage_error("sample: --gcore writes one capture; use coretriage -p PID --gcore FILE");
	int npos = argc - optind;
	char **pos = argv + optind;
	if (cli->opts.gcore_path && !cli->opts.pid)
		return usage_error("--gcore writes the core of a live process: give it with -p PID");
	if (cli->opts.pid) {
		// -p PID [EXECUTABLE]: the process is the dump; an executable may be named for its symbols.
		if (cli->core_opt || npos > 1)
			return usage_error("-p PID analyzes a running process: give no core (at most an EXECUTABLE)");
		if (npos == 1 && cli->opts.executable)
			return usage_error("both --exe and an EXECUTABLE argument given");
		if (npos == 1)
			cli->opts.executable = pos[0];
		// Tests only: keep the process stopped longer (a coretriage killed while it holds it).
		const char *hold = getenv("CORETRIAGE_TEST_HOLD_MS");
		if (hold && parse_count(hold, 600000, &v))
			cli->opts.live_hold_ms = (unsigned)v;
		if (cli->opts.executable && (rc = check_executable(cli->opts.executable)) >= 0)
			return rc;
		return -1;
	}
	size_t want = cli->core_opt ? 1 : 2; // -c CORE leaves room for the EXECUTABLE only
	if ((size_t)npos > want || (npos == 2 && sniff_path(pos[0]) == CT_FORMAT_ELF_CORE &&
				    sniff_path(pos[1]) == CT_FORMAT_ELF_CORE)) {
		// "coretriage core1 core2": one report is about one dump; batch is for many.
		int cores = 0;
		for (int i = 0; i < npos; i++)
			cores += sniff_path(pos[i]) == CT_FORMAT_ELF_CORE;
		if (cores >= 2)
			return usage_error("%d cores given; one report is about one core: for several, coretriage batch "
					   "%s %s%s", cores, pos[0], pos[1], npos > 2 ? " ..." : "");
		return usage_error("too many arguments: '%s' (expected [EXECUTABLE] CORE%s)", pos[want],
				   cli->core_opt ? ", and the core was given with -c" : "");
	}
	for (int i = 0; i < npos; i++)
		cli->positional[cli->num_positional++] = pos[i];
	if (cli->core_opt) {
		// coredumpctl debug --debugger=coretriage runs "coretriage EXE -c CORE".
		if (cli->num_positional == 1) {
			if (cli->opts.executable)
				return usage_error("both --exe and an EXECUTABLE argument given");
			cli->opts.executable = cli->positional[0];
		}
		cli->opts.core_path = cli->core_opt;
	} else if (cli->num_positional == 0) {
		return usage_error("no core file given");
	} else if (cli->num_positional == 2) {
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
	if (cli->opts.executable && (rc = check_executable(cli->opts.executable)) >= 0)
		return rc;
	return -1;
}
