// One capture of a live process (live.h): what /proc says before the stop, then, with every
// thread stopped, the registers and the memory the analysis reads, then resume. Only copies happen
// while the process is stopped; the stop time is measured from the first PTRACE_INTERRUPT to the
// last PTRACE_DETACH.
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "live/internal.h"
#include "util/budget.h"
#include "util/cleanup.h"

/** The largest register set asked for (x86 XSAVE with AMX is ~11 KiB). */
#define MAX_REGSET_BYTES 16384
#define PAGE 4096u

static int compare_threads(const void *a, const void *b)
{
	const struct ct_live_thread *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

// Each thread's wait state, read before any thread is stopped (a stopped thread's state is 't').
static struct ct_error *read_states(int pid, struct ct_live_thread **ret, size_t *num_ret)
{
	int *tids = NULL;
	size_t n = 0;
	struct ct_error *err = ct_live_list_tasks(pid, CT_LIVE_MAX_THREADS, &tids, &n);
	if (err)
		return err;
	struct ct_live_thread *states = calloc(n ? n : 1, sizeof(*states));
	if (!states) {
		free(tids);
		return &ct_enomem;
	}
	for (size_t i = 0; i < n; i++) {
		states[i].tid = tids[i];
		ct_live_read_thread_state(pid, &states[i]);
	}
	free(tids);
	*ret = states;
	*num_ret = n;
	return NULL;
}

static uint64_t read_reg(const uint8_t *regs, size_t size, const struct ct_arch_reg *r)
{
	uint64_t v = 0;
	if ((size_t)r->offset + r->size > size)
		return 0;
	if (r->size == 8) {
		memcpy(&v, regs + r->offset, 8);
	} else {
		uint32_t w;
		memcpy(&w, regs + r->offset, 4);
		v = w;
	}
	return v;
}

static struct ct_error *get_regset(int tid, uint32_t type, size_t max, struct ct_live_regset *out)
{
	uint8_t *buf = malloc(max);
	if (!buf)
		return &ct_enomem;
	struct iovec iov = { buf, max };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)type, &iov) != 0 || iov.iov_len == 0) {
		free(buf);
		return ct_error_os(errno, "thread %d: PTRACE_GETREGSET %#x", tid, type);
	}
	out->note_type = type;
	out->size = iov.iov_len;
	out->bytes = buf;
	return NULL;
}

// NT_PRSTATUS (the general registers, pr_reg) and the architecture's float/vector notes.
static struct ct_error *read_registers(const struct ct_arch_info *arch, int tid, struct ct_live_thread *t)
{
	struct ct_error *err = get_regset(tid, NT_PRSTATUS, arch->prstatus_reg_size, &t->regsets[0]);
	if (err)
		return err;
	t->num_regsets = 1;
	for (size_t i = 0; i < arch->num_vregs && t->num_regsets < CT_LIVE_MAX_REGSETS; i++) {
		uint32_t type = arch->vregs[i].note_type;
		bool have = false;
		for (size_t k = 0; k < t->num_regsets; k++)
			have |= t->regsets[k].note_type == type;
		if (have)
			continue;
		// A register set the kernel does not offer (no XSAVE) is simply absent, as in a core.
		struct ct_error *e = get_regset(tid, type, MAX_REGSET_BYTES, &t->regsets[t->num_regsets]);
		if (e)
			ct_error_destroy(e);
		else
			t->num_regsets++;
	}
	for (size_t i = 0; i < arch->num_regs; i++)
		if (arch->regs[i].dwarf == arch->sp_dwarf && arch->sp_dwarf >= 0)
			t->sp = read_reg(t->regsets[0].bytes, t->regsets[0].size, &arch->regs[i]);
	return NULL;
}

struct reader {
	int pid;
	int mem_fd; /**< /proc/PID/mem, opened when process_vm_readv is refused; -1 before */
	bool vm_readv_works;
	uint64_t bad_pages;
};

// Reads [addr, addr + len) into dst: process_vm_readv, else /proc/PID/mem; a page neither reads
// is zeros (and counted).
static void read_memory(struct reader *rd, uint64_t addr, uint8_t *dst, size_t len)
{
	size_t done = 0;
	while (done < len) {
		size_t want = len - done;
		ssize_t got = -1;
		if (rd->vm_readv_works) {
			struct iovec local = { dst + done, want }, remote = { (void *)(uintptr_t)(addr + done), want };
			got = process_vm_readv(rd->pid, &local, 1, &remote, 1, 0);
			if (got < 0 && (errno == ENOSYS || errno == EPERM))
				rd->vm_readv_works = false;
		}
		if (got <= 0) {
			if (rd->mem_fd < 0) {
				char path[64];
				snprintf(path, sizeof(path), "/proc/%d/mem", rd->pid);
				rd->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
			}
			// One page at a time here: the first bad page ends a read.
			size_t page_left = PAGE - (size_t)((addr + done) % PAGE);
			size_t chunk = want < page_left ? want : page_left;
			got = rd->mem_fd >= 0 ? pread(rd->mem_fd, dst + done, chunk, (off_t)(addr + done)) : -1;
			if (got <= 0) {
				memset(dst + done, 0, chunk);
				rd->bad_pages++;
				got = (ssize_t)chunk;
			}
		}
		done += (size_t)got;
	}
}

static bool is_special(const struct ct_live_mapping *m, const char *name)
{
	return m->path && !strcmp(m->path, name);
}

// Copies [from, m->end) of @p m, when the budget allows it all.
static struct ct_error *copy_mapping(struct reader *rd, struct ct_budget *budget, struct ct_live_snapshot *snap,
				     struct ct_live_mapping *m, uint64_t from, uint64_t to)
{
	if (m->bytes || to <= from)
		return NULL;
	uint64_t len = to - from;
	if (!ct_budget_take(budget, CT_BUDGET_COPY, len)) {
		snap->copy_capped = true;
		return NULL;
	}
	m->bytes = malloc(len);
	if (!m->bytes)
		return &ct_enomem;
	read_memory(rd, from, m->bytes, len);
	m->copy_start = from;
	m->copied = len;
	snap->bytes_copied += len;
	return NULL;
}

// Stacks first (what every analysis needs), then the first page of each file mapping (the ELF
// header: build-ids, as the kernel's cores keep it), then writable and anonymous memory.
static struct ct_error *copy_memory(struct reader *rd, const struct ct_live_capture_options *o, struct ct_budget *budget,
				    struct ct_live_snapshot *snap)
{
	struct ct_error *err = NULL;
	for (size_t i = 0; i < snap->num_threads && !err; i++) {
		uint64_t sp = snap->threads[i].sp;
		for (size_t k = 0; k < snap->num_mappings && !err; k++) {
			struct ct_live_mapping *m = &snap->mappings[k];
			if (sp < m->start || sp >= m->end || !m->readable)
				continue;
			uint64_t from = sp > m->start + CT_LIVE_BELOW_SP ? (sp - CT_LIVE_BELOW_SP) & ~(uint64_t)(PAGE - 1) : m->start;
			err = copy_mapping(rd, budget, snap, m, from < m->start ? m->start : from, m->end);
		}
	}
	if (!o->all_memory)
		return err;
	for (size_t k = 0; k < snap->num_mappings && !err; k++) {
		struct ct_live_mapping *m = &snap->mappings[k];
		if (m->readable && !m->writable && m->path && m->path[0] == '/' && m->file_offset == 0)
			err = copy_mapping(rd, budget, snap, m, m->start, m->start + PAGE < m->end ? m->start + PAGE : m->end);
	}
	for (size_t k = 0; k < snap->num_mappings && !err; k++) {
		struct ct_live_mapping *m = &snap->mappings[k];
		bool anonymous = !m->path || m->path[0] != '/';
		// [vvar] holds the kernel's clock pages (reading them faults on some kernels), [vsyscall]
		// is not the process' memory.
		if (!m->readable || is_special(m, "[vvar]") || is_special(m, "[vvar_vclock]") || is_special(m, "[vsyscall]"))
			continue;
		if (m->writable || anonymous || (m->dirty_private && !m->shared))
			err = copy_mapping(rd, budget, snap, m, m->start, m->end);
	}
	return err;
}

// The dirty flags of smaps read before the stop, on the mappings that are still the same.
static void mark_dirty(const struct ct_live_snapshot *pre, struct ct_live_snapshot *snap)
{
	size_t k = 0;
	for (size_t i = 0; i < snap->num_mappings; i++) {
		struct ct_live_mapping *m = &snap->mappings[i];
		while (k < pre->num_mappings && pre->mappings[k].start < m->start)
			k++;
		if (k < pre->num_mappings && pre->mappings[k].start == m->start && pre->mappings[k].end == m->end)
			m->dirty_private = pre->mappings[k].dirty_private;
	}
}

// Sets up the threads of the snapshot from the stopped tracees, in the core's order: the main
// thread first (it is the process), then by tid.
static struct ct_error *take_threads(const struct ct_arch_info *arch, struct ct_live_attach *a,
				     const struct ct_live_thread *states, size_t num_states, struct ct_live_snapshot *snap)
{
	snap->threads = calloc(a->n ? a->n : 1, sizeof(*snap->threads));
	if (!snap->threads)
		return &ct_enomem;
	for (size_t i = 0; i < a->n; i++) {
		struct ct_live_tracee *tr = &a->t[i];
		if (tr->gone) {
			snap->threads_gone++;
			continue;
		}
		if (!tr->stopped) {
			snap->threads_not_stopped++;
			continue;
		}
		struct ct_live_thread *t = &snap->threads[snap->num_threads];
		struct ct_live_thread key = { .tid = tr->tid };
		const struct ct_live_thread *st =
			num_states ? bsearch(&key, states, num_states, sizeof(*states), compare_threads) : NULL;
		if (st)
			*t = *st;
		else
			t->tid = tr->tid, t->state = 'R', t->syscall = -2; // born while attaching
		t->pending_signal = tr->pending_signal;
		struct ct_error *err = read_registers(arch, tr->tid, t);
		if (err) {
			// It exited after stopping (SIGKILL from elsewhere): not a thread of the snapshot.
			ct_error_destroy(err);
			for (size_t k = 0; k < t->num_regsets; k++)
				free(t->regsets[k].bytes);
			memset(t, 0, sizeof(*t));
			snap->threads_gone++;
			continue;
		}
		snap->num_threads++;
	}
	for (size_t i = 0; i < snap->num_threads; i++) {
		if (snap->threads[i].tid == snap->pid && i) {
			struct ct_live_thread main = snap->threads[i];
			memmove(&snap->threads[1], &snap->threads[0], i * sizeof(main));
			snap->threads[0] = main;
		}
	}
	return NULL;
}

struct ct_error *ct_live_capture(int pid, const struct ct_live_capture_options *o, struct ct_budget *budget,
				 struct ct_live_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	if (pid <= 0)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%d is not a process id", pid);
	if (pid == getpid())
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "process %d is coretriage itself", pid);
	struct ct_error *err = ct_live_read_process(pid, snap);
	if (err)
		return err;
	const struct ct_arch_info *arch = ct_arch_find(snap->e_machine, snap->elf_class);
	if (!arch)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "process %d: %s processes are not supported", pid,
					ct_arch_machine_name(snap->e_machine, snap->elf_class));
	snap->auxv = (uint8_t *)ct_live_read_proc(pid, 0, "auxv", 65536, &snap->auxv_size);
	if (!snap->auxv && (errno == EACCES || errno == EPERM))
		return ct_live_permission_error(pid);
	_cleanup_free_ struct ct_live_thread *states = NULL;
	size_t num_states = 0;
	err = read_states(pid, &states, &num_states);
	if (err)
		return err;
	// smaps walks the page tables (slow for a big process): read before the stop, only to know
	// which file mappings have written pages; the layout itself is read while stopped.
	struct ct_live_snapshot pre = { 0 };
	if (o->all_memory) {
		struct ct_error *e = ct_live_read_maps(pid, "smaps", &pre);
		ct_error_destroy(e);
	}

	// Samples (stacks only) read the layout before the stop, to keep each tick's stop to the copy; a
	// stack that moved meanwhile reads as zeros. A whole capture reads it stopped.
	if (!o->all_memory) {
		err = ct_live_read_maps(pid, "maps", snap);
		if (err)
			return err;
	}
	snap->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	snap->captured_at = (int64_t)time(NULL);
	struct ct_live_attach a;
	err = ct_live_attach_all(pid, &a);
	if (err) {
		ct_live_snapshot_free(&pre);
		return err;
	}
	struct reader rd = { .pid = pid, .mem_fd = -1, .vm_readv_works = true };
	err = take_threads(arch, &a, states, num_states, snap);
	if (!err && o->all_memory)
		err = ct_live_read_maps(pid, "maps", snap);
	if (!err)
		mark_dirty(&pre, snap);
	ct_live_snapshot_free(&pre);
	if (!err)
		err = copy_memory(&rd, o, budget, snap);
	if (!err && o->hold_ms) {
		struct timespec ts = { o->hold_ms / 1000, (long)(o->hold_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	snap->stopped_ms = (double)ct_live_detach_all(&a) / 1e6;
	snap->pages_unreadable = rd.bad_pages;
	if (rd.mem_fd >= 0)
		close(rd.mem_fd);
	if (!err && !snap->num_threads)
		err = ct_error_create(CT_ERROR_NOT_FOUND, "process %d exited while being attached", pid);
	return err;
}

void ct_live_snapshot_free(struct ct_live_snapshot *snap)
{
	for (size_t i = 0; i < snap->num_threads; i++)
		for (size_t k = 0; k < snap->threads[i].num_regsets; k++)
			free(snap->threads[i].regsets[k].bytes);
	free(snap->threads);
	for (size_t i = 0; i < snap->num_mappings; i++) {
		free(snap->mappings[i].path);
		free(snap->mappings[i].bytes);
	}
	free(snap->mappings);
	free(snap->auxv);
	memset(snap, 0, sizeof(*snap));
}
