// ct_analyze(): detect what the input is, by its bytes, and hand it to the right pipeline.
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coretriage/coretriage.h"
#include "dump/format.h"
#include "dump/mapped_file.h"
#include "dump/sniff.h"
#include "input/input.h"
#include "live/dump_live.h"
#include "live/live.h"
#include "pipeline.h"
#include "process/process.h"
#include "trail/trail.h"
#include "util/budget.h"
#include "util/cleanup.h"
#if CT_KERNEL_SUPPORT
#include "kernel/kernel.h"
#include "lazy/lazy.h"
#endif

void ct_options_init(struct ct_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->debuginfod = true;
	opts->debuginfod_timeout = 10;
	opts->max_frames = CT_DEFAULT_MAX_FRAMES;
	opts->max_threads = CT_DEFAULT_MAX_THREADS;
	opts->unwinder = CT_UNWINDER_DWFL;
	opts->logs_window_before = opts->logs_window_after = CT_DEFAULT_LOGS_WINDOW;
}

// The trail stage runs after either pipeline, on the facts it needs from the finished report;
// @p captured is a live process' capture time (NULL for a dump file).
static void run_trail(const struct ct_options *opts, const struct ct_dump_time *captured, struct ct_budget *budget,
		      struct ct_report *r)
{
	struct ct_trail_facts f = { .core_path = opts->core_path, .has_pid = r->process.has_pid,
				    .pid = r->process.pid, .command = r->process.command };
	if (captured && captured->has_crash_time) {
		f.has_capture_time = true;
		f.capture_time = captured->crash_time;
	}
	const struct ct_kernel *k = &r->kernel;
	if (k->present) {
		f.is_kernel = true;
		f.has_vmcoreinfo_time = k->has_crash_time;
		f.vmcoreinfo_time = k->crash_time;
		f.has_uptime = k->has_uptime;
		f.uptime = k->uptime;
		f.has_pid = k->has_pid;
		f.pid = k->pid;
		f.command = k->comm;
	}
	ct_trail_analyze(opts, &f, budget, r);
}

/*
 * Takes a temporary file the input stage wrote (standard input copied, or a core decompressed) as
 * the input: its space spent from the run's temp budget, a partial copy reported with @p partial
 * (or budget-temp when the space ran out), then mapped through /proc/self/fd (@p fd stays the
 * caller's).
 */
static struct ct_error *adopt_temporary(int fd, const struct ct_decompress_status *st, enum ct_diag_code partial,
					struct ct_budget *budget, struct ct_report *report, struct ct_mapped_file *file)
{
	ct_budget_spend(budget, CT_BUDGET_TEMP, st->written);
	if (st->partial)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, st->space_reached ? CT_DIAG_BUDGET_TEMP : partial, "%s",
			       st->message);
	char proc_path[64];
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	return ct_mapped_file_open(proc_path, file);
}

// The kinds of dump by enum ct_dump_pipeline: each opens a dump of its formats; ct_pipeline_run()
// runs its stages.
static const struct ct_dump_kind *const pipelines[] = {
	[CT_PIPELINE_PROCESS] = &ct_process_kind,
#if CT_KERNEL_SUPPORT
	[CT_PIPELINE_KERNEL] = &ct_kernel_kind,
#endif
};

// The pipelines this build has, as the probe chain's filter.
static unsigned available_pipelines(void)
{
	unsigned set = 0;
	for (size_t i = 0; i < sizeof(pipelines) / sizeof(pipelines[0]); i++)
		set |= pipelines[i] ? CT_PIPELINE_BIT(i) : 0;
	return set;
}

// What a capture lost, said in the report: threads that went away or did not stop, memory not
// copied (the budget) or not readable.
static void report_capture(const struct ct_live_snapshot *snap, struct ct_report *report)
{
	if (snap->threads_gone)
		ct_report_diag(report, CT_SEVERITY_INFO, 0, CT_DIAG_SNAPSHOT, "%zu threads exited while the process was attached",
			       snap->threads_gone);
	if (snap->threads_not_stopped)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_SNAPSHOT,
			       "%zu threads did not stop within %d ms (uninterruptible sleep?): they are not in the report",
			       snap->threads_not_stopped, CT_LIVE_STOP_TIMEOUT_MS);
	if (snap->copy_capped)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_COPY,
			       "the copy budget ran out: some mappings of the process were not copied (their memory reads as "
			       "not in the dump)");
	if (snap->pages_unreadable)
		ct_report_diag(report, CT_SEVERITY_INFO, 0, CT_DIAG_SNAPSHOT,
			       "%llu pages of the process could not be read while it was stopped (read as zeros)",
			       (unsigned long long)snap->pages_unreadable);
}

// Writes @p snap as an ELF core to @p path (--gcore), created afresh with the caller's umask.
static struct ct_error *write_gcore(const struct ct_live_snapshot *snap, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return ct_error_os(errno, "--gcore %s", path);
	struct ct_error *err = ct_live_write_core(snap, fd, NULL);
	if (close(fd) != 0 && !err)
		err = ct_error_os(errno, "--gcore %s", path);
	return err ? ct_error_wrap(err, "--gcore %s", path) : NULL;
}

/*
 * -p PID: the process is captured (src/live/: stopped only while registers and stacks are copied),
 * and its snapshot, a dump of its own kind (live/dump_live.c), goes through the process stages like
 * any core: the same stages, the same report, input.kind "live".
 */
static struct ct_error *analyze_live(const struct ct_options *opts, struct ct_report *report)
{
	struct ct_budget budget;
	ct_budget_init(&budget, opts);
	struct ct_live_snapshot snap;
	const struct ct_live_capture_options co = { .all_memory = true, .hold_ms = opts->live_hold_ms };
	struct ct_error *err = ct_live_capture(opts->pid, &co, &budget, &snap);
	if (err) {
		ct_live_snapshot_free(&snap);
		return err;
	}
	report->live.present = true;
	report->live.stopped_ms = snap.stopped_ms;
	report->live.threads = snap.num_threads;
	report->live.bytes_copied = snap.bytes_copied;
	report_capture(&snap, report);
	if (opts->gcore_path) {
		err = write_gcore(&snap, opts->gcore_path);
		report->live.gcore = ct_report_strdup(report, opts->gcore_path);
	}
	struct ct_dump dump = { 0 };
	struct ct_dump_time captured = { 0 };
	if (!err)
		err = ct_live_dump_open(&snap, opts->max_threads, &dump);
	// The copied memory lives on in the dump; the snapshot's own buffers go before the analysis.
	ct_live_snapshot_free(&snap);
	if (!err) {
		struct ct_options o = *opts;
		o.core_path = NULL;
		const struct ct_dump_env env = {
			.opts = &o, .format = dump.format, .dump = &dump, .budget = &budget, .report = report,
		};
		// Asked before the run: the process kind takes the dump over.
		if (!dump.ops->time(&dump, &captured))
			captured.has_crash_time = false;
		err = ct_pipeline_run(&ct_process_kind, &env);
		ct_dump_close(&dump);
	}
	report->input.pid = opts->pid;
	report->input.core = ct_report_printf(report, "/proc/%d", opts->pid);
	report->input.executable = ct_report_strdup(report, opts->executable);
	if (!err)
		run_trail(opts, &captured, &budget, report);
	return err ? ct_error_wrap(err, "process %d", opts->pid) : NULL;
}

struct ct_error *ct_analyze(const struct ct_options *opts, struct ct_report *report)
{
	if (opts->pid)
		return analyze_live(opts, report);
	if (!opts->core_path)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "no dump given");
	if (opts->max_frames == 0 || opts->max_threads == 0)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "frame and thread caps must be positive");
	report->input.core = ct_report_strdup(report, opts->core_path);
	report->input.executable = ct_report_strdup(report, opts->executable);
	struct ct_mapped_file file;
	struct ct_decompress_status dstatus = { 0 };
	// One budget for the run: the core's decompression, the pipeline and the trail spend from it
	// (a decompressed core's temporary space is not there again for decompressed logs).
	struct ct_budget budget;
	ct_budget_init(&budget, opts);
	// Standard input through a pipe ("-", /dev/stdin): copied into an anonymous temporary file
	// first, under the same caps as a decompression (src/input/), then read like a file.
	_cleanup_close_ int piped = -1;
	struct ct_error *err;
	// Standard input redirected from a file is that file.
	const char *in_path = ct_input_is_stdin(opts->core_path) ? "/dev/stdin" : opts->core_path;
	if (ct_input_is_stdin(opts->core_path) && !ct_input_stdin_is_file()) {
		err = ct_input_read_stdin(opts->max_core_size, budget.limit[CT_BUDGET_TEMP], &piped, &dstatus);
		if (err)
			return err;
		err = adopt_temporary(piped, &dstatus, CT_DIAG_TRUNCATED_CORE, &budget, report, &file);
		if (err)
			return ct_error_wrap(err, "standard input");
	} else {
		err = opts->has_core_fd ? ct_mapped_file_open_fd(opts->core_fd, in_path, &file)
					: ct_mapped_file_open(in_path, &file);
		if (err)
			return err;
	}
	enum ct_format format = ct_sniff(file.data, file.size);
	// Input hook (src/input/): systemd-coredump name metadata, and compressed cores streamed into
	// an anonymous temporary file that replaces the input from here on.
	ct_input_add_name_metadata(opts->core_path, report);
	if (ct_input_is_compressed(format)) {
		int tmp_fd;
		ct_mapped_file_close(&file);
		if (piped >= 0 && lseek(piped, 0, SEEK_SET) == 0)
			err = ct_input_decompress_fd(piped, "standard input", format, opts->max_core_size,
						     budget.limit[CT_BUDGET_TEMP], &tmp_fd, &dstatus);
		else if (piped >= 0)
			err = ct_error_os(errno, "standard input: temporary file");
		else if (opts->has_core_fd && lseek(opts->core_fd, 0, SEEK_SET) == 0)
			err = ct_input_decompress_fd(opts->core_fd, in_path, format, opts->max_core_size,
						     budget.limit[CT_BUDGET_TEMP], &tmp_fd, &dstatus);
		else if (opts->has_core_fd)
			err = ct_error_os(errno, "%s", in_path);
		else
			err = ct_input_decompress(in_path, format, opts->max_core_size, budget.limit[CT_BUDGET_TEMP], &tmp_fd,
						  &dstatus);
		if (err)
			return err;
		err = adopt_temporary(tmp_fd, &dstatus, CT_DIAG_COMPRESSED_CORE_BROKEN, &budget, report, &file);
		close(tmp_fd);
		if (err)
			return ct_error_wrap(err, "%s: decompressed core", opts->core_path);
		// From here on the decompressed bytes are the input (a kernel dump is probed below).
		format = ct_sniff(file.data, file.size);
	}
	// The probe chain (dump/format.c) picks the format, and the format its pipeline.
	const struct ct_dump_format *dump_format = ct_dump_probe(file.data, file.size, available_pipelines());
	if (dump_format) {
		const struct ct_dump_env env = {
			.opts = opts, .format = dump_format, .file = &file, .budget = &budget, .report = report
		};
		err = ct_pipeline_run(pipelines[dump_format->pipeline], &env);
		if (!err)
			run_trail(opts, NULL, &budget, report);
	} else {
		err = ct_sniff_error(format, opts->core_path, file.data, file.size);
	}
	ct_mapped_file_close(&file);
	return err;
}
