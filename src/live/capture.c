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
#include "arch/syscalls.h"
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

// One register set into a buffer of its own size: read into @p scratch first (the largest set is
// ~11 KiB, most are far smaller; a fresh buffer of the largest size per thread costs the stop a page
// fault or more for each of 1,000 threads).
static struct ct_error *get_regset(struct ct_live_pool *pool, int tid, uint32_t type, uint8_t *scratch, size_t max,
				     struct ct_live_regset *out)
{
	struct iovec iov = { scratch, max };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)type, &iov) != 0 || iov.iov_len == 0)
		return ct_error_os(errno, "thread %d: PTRACE_GETREGSET %#x", tid, type);
	out->bytes = ct_live_pool_take(pool, iov.iov_len);
	if (!out->bytes)
		return &ct_enomem;
	memcpy(out->bytes, scratch, iov.iov_len);
	out->note_type = type;
	out->size = iov.iov_len;
	return NULL;
}

// NT_PRSTATUS (the general registers, pr_reg) and the architecture's float/vector notes.
static struct ct_error *read_registers(struct ct_live_pool *pool, const struct ct_arch_info *arch, int tid,
				       struct ct_live_thread *t)
{
	uint8_t scratch[MAX_REGSET_BYTES];
	struct ct_error *err = get_regset(pool, tid, NT_PRSTATUS, scratch, arch->prstatus_reg_size, &t->regsets[0]);
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
		struct ct_error *e = get_regset(pool, tid, type, scratch, sizeof(scratch), &t->regsets[t->num_regsets]);
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
	/** Where copies made while stopped go; NULL after the resume (malloc). */
	struct ct_live_pool *pool;
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

/** Spans read by one process_vm_readv (IOV_MAX is 1024). */
#define SPANS_PER_CALL 256

struct span {
	uint64_t addr;
	uint8_t *dst;
	size_t len;
};

// Reads every span, SPANS_PER_CALL in one process_vm_readv: the call's cost is mostly its own (the
// access check, finding the target's memory), not the bytes, and 1,000 threads' stacks are 1,000
// small spans. A span the call does not read whole is read alone by read_memory() (page by page,
// zeros where nothing reads), then the batch goes on after it.
static void read_spans(struct reader *rd, const struct span *sp, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (!rd->vm_readv_works) {
			read_memory(rd, sp[i].addr, sp[i].dst, sp[i].len);
			i++;
			continue;
		}
		struct iovec local[SPANS_PER_CALL], remote[SPANS_PER_CALL];
		size_t k = 0;
		for (; k < SPANS_PER_CALL && i + k < n; k++) {
			local[k] = (struct iovec){ sp[i + k].dst, sp[i + k].len };
			remote[k] = (struct iovec){ (void *)(uintptr_t)sp[i + k].addr, sp[i + k].len };
		}
		ssize_t got = process_vm_readv(rd->pid, local, k, remote, k, 0);
		if (got < 0) {
			if (errno == ENOSYS || errno == EPERM)
				rd->vm_readv_works = false;
			got = 0;
		}
		size_t done = 0;
		while (done < k && (size_t)got >= sp[i + done].len)
			got -= (ssize_t)sp[i + done++].len;
		i += done;
		if (done < k) {
			read_memory(rd, sp[i].addr, sp[i].dst, sp[i].len);
			i++;
		}
	}
}

static bool is_special(const struct ct_live_mapping *m, const char *name)
{
	return m->path && !strcmp(m->path, name);
}

// Takes [from, to) of @p m into the copy when the budget allows it all, and reads [from, now_to)
// of it at once; the rest (stack_rest) is read by finish_stacks() after the process runs again.
static struct ct_error *copy_mapping(struct reader *rd, struct ct_budget *budget, struct ct_live_snapshot *snap,
				     struct ct_live_mapping *m, uint64_t from, uint64_t to, uint64_t now_to)
{
	if (m->bytes || to <= from)
		return NULL;
	uint64_t len = to - from;
	if (!ct_budget_take(budget, CT_BUDGET_COPY, len)) {
		snap->copy_capped = true;
		return NULL;
	}
	m->bytes = rd->pool ? ct_live_pool_take(rd->pool, len) : malloc(len);
	if (!m->bytes)
		return &ct_enomem;
	if (now_to > to)
		now_to = to;
	read_memory(rd, from, m->bytes, now_to - from);
	m->copy_start = from;
	m->copied = len;
	m->stack_rest = now_to - from;
	snap->bytes_copied += len;
	return NULL;
}

// The mapping holding @p addr, NULL for none (mappings are sorted by address).
static struct ct_live_mapping *mapping_of(struct ct_live_snapshot *snap, uint64_t addr)
{
	size_t lo = 0, hi = snap->num_mappings;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (snap->mappings[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < snap->num_mappings && snap->mappings[lo].start <= addr ? &snap->mappings[lo] : NULL;
}

/** What copy_stacks() needs to find the futex waits. */
struct futex_find {
	const struct ct_arch_info *arch;
	const struct ct_live_futex_hint *hints; /**< borrowed, sorted by tid */
	size_t num_hints;
};

static int compare_hints(const void *a, const void *b)
{
	const struct ct_live_futex_hint *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void ct_live_futex_hints_sort(struct ct_live_futex_hint *hints, size_t n)
{
	if (n)
		qsort(hints, n, sizeof(*hints), compare_hints);
}

// The futex call a stopped thread is inside, from its registers (docs/live.md): the call's number
// register names futex and the return register says the stop interrupted it (a thread that ran
// has neither). The word's address is the first argument; an ABI whose stop no longer holds it in a
// register (aarch64's x0 is the return value) takes it from /proc's syscall line read before the
// stop, when that line names the same call. A thread in restart_syscall continues the futex wait an
// earlier stop saw when its argument registers still hold that wait's word and operation.
static bool futex_wait_of(const struct futex_find *ff, const struct ct_live_thread *t, uint64_t *addr_ret,
			  uint64_t *op_ret)
{
	const struct ct_arch_info *arch = ff->arch;
	if (!t->num_regsets || !arch->syscalls || arch->syscall_nr_index < 0 || arch->syscall_arg_index[1] < 0)
		return false;
	const uint8_t *regs = t->regsets[0].bytes;
	size_t size = t->regsets[0].size;
	int64_t nr = (int64_t)read_reg(regs, size, &arch->regs[arch->syscall_nr_index]);
	int64_t ret = (int64_t)read_reg(regs, size, &arch->regs[arch->syscall_ret_index]);
	if (arch->pointer_size == 4)
		nr = (int32_t)nr, ret = (int32_t)ret;
	if (nr < 0 || !ct_syscall_ret_interrupted(ret))
		return false;
	enum ct_syscall sys = ct_syscall_lookup(arch->syscalls, *arch->num_syscalls, (uint64_t)nr, NULL);
	if (sys != CT_SYS_FUTEX && sys != CT_SYS_RESTART_SYSCALL)
		return false;
	uint64_t op = read_reg(regs, size, &arch->regs[arch->syscall_arg_index[1]]);
	if (!ct_futex_op_waits(op))
		return false;
	bool have_addr = false;
	uint64_t addr = 0;
	if (arch->syscall_arg_index[0] >= 0)
		addr = read_reg(regs, size, &arch->regs[arch->syscall_arg_index[0]]), have_addr = true;
	else if (t->syscall == nr && sys == CT_SYS_FUTEX)
		addr = t->syscall_arg0, have_addr = true;
	if (sys == CT_SYS_RESTART_SYSCALL) {
		const struct ct_live_futex_hint key = { .tid = t->tid };
		const struct ct_live_futex_hint *h =
			ff->num_hints ? bsearch(&key, ff->hints, ff->num_hints, sizeof(key), compare_hints) : NULL;
		if (!h || h->op != (uint32_t)op || (have_addr && h->address != addr))
			return false;
		addr = h->address, have_addr = true;
	}
	if (!have_addr)
		return false;
	*addr_ret = addr;
	*op_ret = op;
	return true;
}

// The span around thread @p t's futex word, clipped to the word's mapping; false without one.
static bool futex_span(const struct futex_find *ff, struct ct_live_snapshot *snap, struct ct_live_thread *t,
		       struct span *ret)
{
	uint64_t addr, op;
	if (t->futex.copied || !futex_wait_of(ff, t, &addr, &op))
		return false;
	t->futex.present = true;
	t->futex.address = addr;
	t->futex.op = (uint32_t)op;
	const struct ct_live_mapping *m = mapping_of(snap, addr);
	if (!m || !m->readable)
		return false;
	uint64_t from = addr > m->start + CT_LIVE_FUTEX_AROUND ? addr - CT_LIVE_FUTEX_AROUND : m->start;
	uint64_t to = m->end - addr > CT_LIVE_FUTEX_AROUND ? addr + CT_LIVE_FUTEX_AROUND : m->end;
	t->futex.copy_start = from;
	t->futex.copied = (uint32_t)(to - from);
	*ret = (struct span){ from, t->futex.bytes, (size_t)(to - from) };
	return true;
}

// While stopped: each thread's stack from just below its sp up a window of CT_LIVE_STACK_WINDOW
// bytes, what the unwinder reads first. False when a thread's sp is in no mapping of the layout
// read before the stop (its stack was mapped since: the layout is read again).
static struct ct_error *copy_stacks(struct reader *rd, struct ct_budget *budget, struct ct_live_snapshot *snap,
				    const struct futex_find *ff, bool *layout_stale)
{
	struct ct_error *err = NULL;
	*layout_stale = false;
	// A stack and a futex neighbourhood per thread, read in one batch: a futex's 128 bytes add an
	// iovec to the call the stacks take anyway, not a call of their own.
	struct span *spans = calloc(snap->num_threads ? 2 * snap->num_threads : 1, sizeof(*spans));
	if (!spans)
		return &ct_enomem;
	size_t n = 0;
	for (size_t i = 0; i < snap->num_threads && !err; i++) {
		if (ff && futex_span(ff, snap, &snap->threads[i], &spans[n]))
			n++;
		uint64_t sp = snap->threads[i].sp;
		struct ct_live_mapping *m = mapping_of(snap, sp);
		if (!m) {
			*layout_stale = true;
			continue;
		}
		if (!m->readable || m->bytes)
			continue;
		uint64_t from = sp > m->start + CT_LIVE_BELOW_SP ? (sp - CT_LIVE_BELOW_SP) & ~(uint64_t)(PAGE - 1) : m->start;
		if (from < m->start)
			from = m->start;
		// Taken now, read below in one batch: the window, at most up to the mapping's end.
		err = copy_mapping(rd, budget, snap, m, from, m->end, from);
		if (!err && m->bytes) {
			uint64_t to = sp + CT_LIVE_STACK_WINDOW < m->end ? sp + CT_LIVE_STACK_WINDOW : m->end;
			spans[n++] = (struct span){ from, m->bytes, (size_t)(to - from) };
			m->stack_rest = (size_t)(to - from);
		}
	}
	read_spans(rd, spans, n);
	free(spans);
	return err;
}

// After the resume: the rest of each stack above its window. A thread that was blocked has not
// touched its callers' frames meanwhile; one that ran may have (docs/live.md says so).
static void finish_stacks(struct reader *rd, struct ct_live_snapshot *snap)
{
	for (size_t k = 0; k < snap->num_mappings; k++) {
		struct ct_live_mapping *m = &snap->mappings[k];
		if (m->bytes && m->stack_rest < m->copied)
			read_memory(rd, m->copy_start + m->stack_rest, m->bytes + m->stack_rest, m->copied - m->stack_rest);
		m->stack_rest = m->copied;
	}
}

// After the resume (-p, --gcore, a sample's first tick): the first page of each file mapping (the
// ELF header: build-ids, as the kernel's cores keep it), then writable and anonymous memory. The
// process runs meanwhile: what it changes between the stop and this copy is seen changed.
static struct ct_error *copy_memory(struct reader *rd, struct ct_budget *budget, struct ct_live_snapshot *snap)
{
	struct ct_error *err = NULL;
	for (size_t k = 0; k < snap->num_mappings && !err; k++) {
		struct ct_live_mapping *m = &snap->mappings[k];
		uint64_t to = m->start + PAGE < m->end ? m->start + PAGE : m->end;
		if (m->readable && !m->writable && m->path && m->path[0] == '/' && m->file_offset == 0)
			err = copy_mapping(rd, budget, snap, m, m->start, to, to);
	}
	for (size_t k = 0; k < snap->num_mappings && !err; k++) {
		struct ct_live_mapping *m = &snap->mappings[k];
		bool anonymous = !m->path || m->path[0] != '/';
		// [vvar] holds the kernel's clock pages (reading them faults on some kernels), [vsyscall]
		// is not the process' memory.
		if (!m->readable || is_special(m, "[vvar]") || is_special(m, "[vvar_vclock]") || is_special(m, "[vsyscall]"))
			continue;
		if (m->writable || anonymous || (m->dirty_private && !m->shared))
			err = copy_mapping(rd, budget, snap, m, m->start, m->end, m->end);
	}
	return err;
}

// The layout @p now read while stopped replaces the one read before: a mapping still the same keeps
// its dirty flag (smaps) and what was copied of it already; @p now gets the old layout, without
// copies (those of mappings gone go back to @p pool).
static void adopt_layout(struct ct_live_pool *pool, struct ct_live_snapshot *snap, struct ct_live_snapshot *now)
{
	size_t k = 0;
	for (size_t i = 0; i < now->num_mappings; i++) {
		struct ct_live_mapping *m = &now->mappings[i];
		while (k < snap->num_mappings && snap->mappings[k].start < m->start)
			k++;
		struct ct_live_mapping *old = k < snap->num_mappings ? &snap->mappings[k] : NULL;
		if (!old || old->start != m->start || old->end != m->end)
			continue;
		m->dirty_private = old->dirty_private;
		m->bytes = old->bytes, m->copy_start = old->copy_start, m->copied = old->copied, m->stack_rest = old->stack_rest;
		old->bytes = NULL;
	}
	struct ct_live_mapping *mappings = snap->mappings;
	size_t n = snap->num_mappings;
	snap->mappings = now->mappings, snap->num_mappings = now->num_mappings;
	now->mappings = mappings, now->num_mappings = n;
	for (size_t i = 0; i < n; i++) {
		ct_live_pool_give(pool, mappings[i].bytes);
		mappings[i].bytes = NULL;
	}
}

// Sets up the threads of the snapshot from the stopped tracees, in the core's order: the main
// thread first (it is the process), then by tid.
static struct ct_error *take_threads(struct ct_live_pool *pool, const struct ct_arch_info *arch, struct ct_live_attach *a,
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
		struct ct_error *err = read_registers(pool, arch, tr->tid, t);
		if (err) {
			// It exited after stopping (SIGKILL from elsewhere): not a thread of the snapshot.
			ct_error_destroy(err);
			for (size_t k = 0; k < t->num_regsets; k++)
				ct_live_pool_give(pool, t->regsets[k].bytes);
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
	// The layout is read before the stop, to keep the stop to the registers and the stacks: smaps
	// (which also says which file mappings have written pages, what a debugger needs to find the
	// libraries) for a whole capture, maps for a sample. A stack mapped meanwhile (a new thread)
	// makes it read again while stopped.
	err = ct_live_read_maps(pid, o->all_memory ? "smaps" : "maps", snap);
	if (err)
		return err;
	snap->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	snap->captured_at = (int64_t)time(NULL);
	// Per thread: its register sets (x86-64 with AVX-512: ~3.5 KiB) and the stack above its sp that
	// a blocked thread uses (a few KiB); the main thread's stack holds the environment too.
	struct ct_live_pool pool;
	size_t per_thread = 16u << 10, max_pool = 64u << 20;
	ct_live_pool_init(&pool, num_states < (max_pool >> 14) ? num_states * per_thread + (256u << 10) : max_pool);
	struct ct_live_attach a;
	err = ct_live_attach_all(pid, &a);
	if (err) {
		ct_live_pool_release(&pool, snap);
		return err;
	}
	struct reader rd = { .pid = pid, .mem_fd = -1, .vm_readv_works = true, .pool = &pool };
	const struct futex_find ff = { arch, o->futex_hints, o->num_futex_hints };
	err = take_threads(&pool, arch, &a, states, num_states, snap);
	bool stale = false;
	if (!err)
		err = copy_stacks(&rd, budget, snap, o->futex_words ? &ff : NULL, &stale);
	if (!err && stale) {
		struct ct_live_snapshot now = { 0 };
		err = ct_live_read_maps(pid, "maps", &now);
		if (!err) {
			adopt_layout(&pool, snap, &now);
			err = copy_stacks(&rd, budget, snap, o->futex_words ? &ff : NULL, &stale);
		}
		ct_live_snapshot_free(&now);
	}
	if (!err && o->hold_ms) {
		struct timespec ts = { o->hold_ms / 1000, (long)(o->hold_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	snap->stopped_ms = (double)ct_live_detach_all(&a) / 1e6;
	rd.pool = NULL;
	if (!ct_live_pool_release(&pool, snap) && !err)
		err = &ct_enomem;
	if (!err)
		finish_stacks(&rd, snap);
	if (!err && o->all_memory)
		err = copy_memory(&rd, budget, snap);
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
