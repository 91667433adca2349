// Every task of the dumped kernel, like `crash ps` and `foreach bt`, with no vmlinux (x86-64: the saved
// context is x86's struct inactive_task_frame; the caller checks the architecture): struct layouts from
// the dump's BTF (btf.c), the task list from init_task (kallsyms), threads through signal->thread_head,
// the idle tasks and the running ones from each CPU's runqueue (runqueues + __per_cpu_offset). A
// sleeping task's kernel stack starts at its saved context: thread.sp points to the struct
// inactive_task_frame that __switch_to_asm pushed (callee-saved registers, then the return address),
// which is where the kernel's own unwinder starts for a blocked task (unwind_orc.c __unwind_start).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_dwarf.h"
#include "kernel/vmcore.h"
#include "util/bytes.h"

// Tasks listed at most: a corrupt list must end; real systems have tens of thousands at most.
#define MAX_TASKS 65536
#define MAX_TASK_STRUCT (64u * 1024)
#define TASK_COMM_LEN 16
#define SEEN_SLOTS (2u * MAX_TASKS)
#define MAX_CPUS 8192
// Frames per task stack (a 16 KiB stack rarely holds 40), and for all tasks together.
#define MAX_TASK_FRAMES 128
#define MAX_ALL_TASK_FRAMES (2u << 20)

// include/linux/sched.h (stable since 4.14): the bits task_state_index() reports, in ps's letter order.
#define TASK_REPORT 0x7fu
#define TASK_UNINTERRUPTIBLE 0x2u
#define TASK_NOLOAD 0x400u
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_RTLOCK_WAIT 0x1000u
static const char state_letters[] = "RSDTtXZPI";

struct layout {
	uint64_t size;
	uint64_t tasks, pid, tgid, comm, state, state_size, exit_state, cpu, real_parent, thread_sp, signal,
		thread_node;
	bool has_threads;
	uint64_t thread_head; /**< in signal_struct */
	uint64_t frame_size, f_bp, f_ret, f_bx, f_r12, f_r13, f_r14, f_r15;
	bool has_frame_regs;
	uint64_t rq_curr, rq_idle;
	bool has_rq;
};

static bool learn(const struct ct_kbtf *b, struct layout *l, const char **missing)
{
	memset(l, 0, sizeof(*l));
#define NEED(ok, what)                \
	do {                          \
		if (!(ok)) {          \
			*missing = what; \
			return false; \
		}                     \
	} while (0)
	NEED(ct_kbtf_size(b, "task_struct", &l->size) && l->size <= MAX_TASK_STRUCT, "sizeof(struct task_struct)");
	NEED(ct_kbtf_member(b, "task_struct", "tasks", &l->tasks, NULL), "task_struct.tasks");
	NEED(ct_kbtf_member(b, "task_struct", "pid", &l->pid, NULL), "task_struct.pid");
	NEED(ct_kbtf_member(b, "task_struct", "tgid", &l->tgid, NULL), "task_struct.tgid");
	NEED(ct_kbtf_member(b, "task_struct", "comm", &l->comm, NULL), "task_struct.comm");
	// 5.14 renamed state to __state (and made it unsigned int).
	NEED(ct_kbtf_member(b, "task_struct", "__state", &l->state, &l->state_size) ||
		     ct_kbtf_member(b, "task_struct", "state", &l->state, &l->state_size),
	     "task_struct.__state");
	NEED(ct_kbtf_member(b, "task_struct", "exit_state", &l->exit_state, NULL), "task_struct.exit_state");
	// 5.16 moved cpu into thread_info (CONFIG_THREAD_INFO_IN_TASK).
	NEED(ct_kbtf_member(b, "task_struct", "thread_info.cpu", &l->cpu, NULL) ||
		     ct_kbtf_member(b, "task_struct", "cpu", &l->cpu, NULL),
	     "task_struct.thread_info.cpu");
	NEED(ct_kbtf_member(b, "task_struct", "real_parent", &l->real_parent, NULL), "task_struct.real_parent");
	NEED(ct_kbtf_member(b, "task_struct", "thread.sp", &l->thread_sp, NULL), "task_struct.thread.sp");
	NEED(ct_kbtf_size(b, "inactive_task_frame", &l->frame_size) && l->frame_size <= 256, "struct inactive_task_frame");
	NEED(ct_kbtf_member(b, "inactive_task_frame", "bp", &l->f_bp, NULL) &&
		     ct_kbtf_member(b, "inactive_task_frame", "ret_addr", &l->f_ret, NULL),
	     "inactive_task_frame.bp/ret_addr");
#undef NEED
	l->has_frame_regs = ct_kbtf_member(b, "inactive_task_frame", "bx", &l->f_bx, NULL) &&
			    ct_kbtf_member(b, "inactive_task_frame", "r12", &l->f_r12, NULL) &&
			    ct_kbtf_member(b, "inactive_task_frame", "r13", &l->f_r13, NULL) &&
			    ct_kbtf_member(b, "inactive_task_frame", "r14", &l->f_r14, NULL) &&
			    ct_kbtf_member(b, "inactive_task_frame", "r15", &l->f_r15, NULL);
	l->has_threads = ct_kbtf_member(b, "task_struct", "signal", &l->signal, NULL) &&
			 ct_kbtf_member(b, "task_struct", "thread_node", &l->thread_node, NULL) &&
			 ct_kbtf_member(b, "signal_struct", "thread_head", &l->thread_head, NULL);
	l->has_rq = ct_kbtf_member(b, "rq", "curr", &l->rq_curr, NULL) && ct_kbtf_member(b, "rq", "idle", &l->rq_idle, NULL);
	return true;
}

static uint64_t field(const uint8_t *buf, uint64_t size, uint64_t off, unsigned width)
{
	struct ct_bytes b = { .data = buf, .size = size };
	return ct_bytes_uint_or0(&b, off, width);
}

/* fs/proc/array.c task_state_index(): the letter /proc/PID/stat and ps show. */
static char state_letter(uint32_t state, uint32_t exit_state)
{
	uint32_t s = (state | exit_state) & TASK_REPORT;
	if ((state & TASK_IDLE) == TASK_IDLE)
		s = TASK_REPORT + 1;
	if (state & TASK_RTLOCK_WAIT)
		s = TASK_UNINTERRUPTIBLE;
	unsigned idx = 0;
	while (s) {
		idx++;
		s >>= 1;
	}
	return idx < sizeof(state_letters) - 1 ? state_letters[idx] : '?';
}

struct walk {
	struct ct_vmcore *vm;
	const struct ct_kallsyms *ks;
	const struct layout *l;
	struct ct_report *r;
	bool all;
	size_t max_frames;
	uint8_t *buf;
	uint64_t *seen; /**< hash set of the task addresses listed (idle tasks are also in the list; cycles) */
	size_t num_seen;
	uint64_t *curr; /**< rq->curr of each CPU */
	size_t num_curr;
	size_t cap_tasks;
	size_t frames_left; /**< of MAX_ALL_TASK_FRAMES */
	bool truncated;
};

/* Marks @p task listed; false when it already was. Open addressing over 2 * MAX_TASKS slots. */
static bool mark(struct walk *w, uint64_t task)
{
	size_t mask = SEEN_SLOTS - 1, i = (size_t)((task >> 6) * 0x9e3779b97f4a7c15ull >> 40) & mask;
	while (w->seen[i]) {
		if (w->seen[i] == task)
			return false;
		i = (i + 1) & mask;
	}
	w->seen[i] = task;
	w->num_seen++;
	return true;
}

static void unwind_sleeping(struct walk *w, struct ct_kernel_task *t, uint64_t sp)
{
	const struct layout *l = w->l;
	uint8_t fr[256];
	if (!sp || !ct_vmcore_try_read(w->vm, sp, fr, l->frame_size)) {
		// CT_STOP_TASK_NO_CONTEXT, with the address.
		t->stack.stop_reason = ct_report_printf(w->r, "saved context at thread.sp 0x%016" PRIx64 " is not in the dump", sp);
		return;
	}
	struct ct_cpu_state c;
	memset(&c, 0, sizeof(c));
	c.cpu = t->cpu;
	c.has_regs = true;
	c.pc_is_return = true;
	const struct ct_arch_info *arch = w->vm->arch;
	ct_cpu_set_reg(arch, &c, arch->pc_dwarf, field(fr, l->frame_size, l->f_ret, 8));
	// After the pops and the ret of __switch_to_asm.
	ct_cpu_set_reg(arch, &c, arch->sp_dwarf, sp + l->frame_size);
	ct_cpu_set_reg(arch, &c, arch->fp_dwarf, field(fr, l->frame_size, l->f_bp, 8));
	ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_CS, 0x10); // __KERNEL_CS
	if (l->has_frame_regs) {
		ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_RBX, field(fr, l->frame_size, l->f_bx, 8));
		ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_R12, field(fr, l->frame_size, l->f_r12, 8));
		ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_R13, field(fr, l->frame_size, l->f_r13, 8));
		ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_R14, field(fr, l->frame_size, l->f_r14, 8));
		ct_cpu_set_reg(arch, &c, CT_X86_64_DWARF_R15, field(fr, l->frame_size, l->f_r15, 8));
	}
	if (w->frames_left < MAX_TASK_FRAMES) {
		// CT_STOP_TASK_FRAME_BUDGET, with the cap.
		t->stack.stop_reason = ct_report_printf(w->r, "not unwound: %u frames of task stacks reached", MAX_ALL_TASK_FRAMES);
		return;
	}
	size_t limit = w->max_frames && w->max_frames < MAX_TASK_FRAMES ? w->max_frames : MAX_TASK_FRAMES;
	ct_kstack_unwind(w->vm, w->ks, &c, w->r, &t->stack, limit);
	w->frames_left -= t->stack.num_frames;
	for (size_t i = 0; i < t->stack.num_frames; i++) {
		const struct ct_frame *f = &t->stack.frames[i];
		// Frame 0 is a return address too (ret_addr of the saved context).
		if (f->function && !ct_kallsyms_is_sched(w->ks, f->pc - 1)) {
			t->wchan = f->function;
			break;
		}
	}
}

static void add_task(struct walk *w, uint64_t task)
{
	const struct layout *l = w->l;
	if (w->num_seen >= MAX_TASKS) {
		w->truncated = true;
		return;
	}
	if (!task || !mark(w, task))
		return;
	if (!ct_vmcore_try_read(w->vm, task, w->buf, l->size))
		return;
	w->r->kernel.num_tasks_total++;
	uint32_t st = (uint32_t)field(w->buf, l->size, l->state, l->state_size >= 8 ? 8 : 4);
	uint32_t ex = (uint32_t)field(w->buf, l->size, l->exit_state, 4);
	char letter = state_letter(st, ex);
	if (!w->all && letter != 'D')
		return;
	struct ct_kernel *k = &w->r->kernel;
	if (k->num_tasks == w->cap_tasks) {
		size_t n = w->cap_tasks ? w->cap_tasks * 2 : 64;
		struct ct_kernel_task *t = realloc(k->tasks, n * sizeof(*t));
		if (!t)
			return;
		k->tasks = t;
		w->cap_tasks = n;
	}
	struct ct_kernel_task *t = &k->tasks[k->num_tasks++];
	memset(t, 0, sizeof(*t));
	t->address = task;
	t->pid = (int)(int32_t)field(w->buf, l->size, l->pid, 4);
	t->tgid = (int)(int32_t)field(w->buf, l->size, l->tgid, 4);
	t->stack.tid = t->pid;
	t->state = letter;
	t->cpu = (int)(int32_t)field(w->buf, l->size, l->cpu, 4);
	char comm[TASK_COMM_LEN + 1];
	memcpy(comm, w->buf + l->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN] = '\0';
	// As ps shows it: a control byte in a name set by prctl(PR_SET_NAME) becomes '?'.
	for (char *q = comm; *q; q++) {
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	}
	t->comm = ct_report_strdup(w->r, comm);
	uint64_t parent = field(w->buf, l->size, l->real_parent, 8);
	uint8_t pb[4];
	// The parent's tgid, as /proc/PID/stat has it; init_task is its own parent, and the idle tasks'
	// ppid is 0 like ps shows it.
	if (parent && parent != task && ct_vmcore_try_read(w->vm, parent + l->tgid, pb, 4))
		t->ppid = (int)(int32_t)field(pb, 4, 0, 4);
	for (size_t i = 0; i < w->num_curr; i++)
		t->on_cpu = t->on_cpu || w->curr[i] == task;
	uint64_t sp = field(w->buf, l->size, l->thread_sp, 8);
	if (t->on_cpu) // CT_STOP_TASK_ON_CPU, with the CPU
		t->stack.stop_reason = ct_report_printf(w->r, "running on CPU %d: its stack is that CPU's", t->cpu);
	else if (letter != 'X' && letter != 'Z')
		unwind_sleeping(w, t, sp);
}

/* The threads of the process at @p leader (signal->thread_head), the leader included. */
static void add_process(struct walk *w, uint64_t leader)
{
	const struct layout *l = w->l;
	add_task(w, leader);
	if (!l->has_threads)
		return;
	uint64_t signal;
	if (ct_vmcore_read_u64(w->vm, leader + l->signal, &signal) != NULL || !signal)
		return;
	uint64_t head = signal + l->thread_head, node;
	if (ct_vmcore_read_u64(w->vm, head, &node) != NULL)
		return;
	for (size_t n = 0; node != head && n < MAX_TASKS && w->num_seen < MAX_TASKS; n++) {
		add_task(w, node - l->thread_node);
		if (ct_vmcore_read_u64(w->vm, node, &node) != NULL)
			return;
	}
}

static int cmp_task(const void *a, const void *b)
{
	const struct ct_kernel_task *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

void ct_ktasks_collect(struct ct_vmcore *vm, const struct ct_kallsyms *ks, const struct ct_kbtf *btf, bool all,
		       size_t max_frames, struct ct_report *r)
{
	struct layout l;
	const char *missing = NULL;
	uint64_t init_task;
	if (!learn(btf, &l, &missing)) {
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_TASK_LAYOUT, "tasks not listed: the BTF has no %s", missing);
		return;
	}
	if (!ct_kallsyms_find(ks, "init_task", &init_task)) {
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_INIT_TASK, "tasks not listed: no init_task in kallsyms");
		return;
	}
	struct walk w = { .vm = vm, .ks = ks, .l = &l, .r = r, .all = all, .max_frames = max_frames,
			  .frames_left = MAX_ALL_TASK_FRAMES };
	w.buf = malloc(l.size);
	w.seen = calloc(SEEN_SLOTS, sizeof(*w.seen));
	if (!w.buf || !w.seen) {
		free(w.buf);
		free(w.seen);
		return;
	}
	// Each CPU's runqueue: its current task (running, no saved context) and its idle task.
	uint64_t rq_base, pcpu;
	size_t ncpu = vm->num_cpus < MAX_CPUS ? vm->num_cpus : MAX_CPUS, num_idle = 0;
	uint64_t *idle = calloc(ncpu ? ncpu : 1, sizeof(*idle));
	w.curr = calloc(ncpu ? ncpu : 1, sizeof(*w.curr));
	if (!idle || !w.curr) {
		free(idle);
		free(w.curr);
		free(w.buf);
		free(w.seen);
		return;
	}
	if (l.has_rq && ct_kallsyms_find(ks, "runqueues", &rq_base) && ct_kallsyms_find(ks, "__per_cpu_offset", &pcpu)) {
		for (size_t c = 0; c < ncpu; c++) {
			uint64_t off, curr, id;
			if (ct_vmcore_read_u64(vm, pcpu + 8 * c, &off) != NULL)
				break;
			if (ct_vmcore_try_read(vm, rq_base + off + l.rq_curr, &curr, 8))
				w.curr[w.num_curr++] = curr;
			if (ct_vmcore_try_read(vm, rq_base + off + l.rq_idle, &id, 8))
				idle[num_idle++] = id;
		}
	} else {
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_NO_RUNQUEUES, "no runqueues: running tasks are not marked on_cpu");
	}
	add_task(&w, init_task);
	for (size_t i = 0; i < num_idle; i++)
		add_task(&w, idle[i]);
	uint64_t node;
	struct ct_error *err = ct_vmcore_read_u64(vm, init_task + l.tasks, &node);
	for (size_t n = 0; !err && node != init_task + l.tasks && n < MAX_TASKS && w.num_seen < MAX_TASKS; n++) {
		uint64_t task = node - l.tasks;
		add_process(&w, task);
		err = ct_vmcore_read_u64(vm, node, &node);
	}
	if (err) {
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_LIST_CUT, "task list cut after %zu tasks: %s", w.num_seen,
			       ct_error_message(err));
		ct_error_destroy(err);
	}
	if (w.truncated)
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_CAP, "more than %u tasks: the rest are not listed", MAX_TASKS);
	r->kernel.tasks_all = all;
	if (r->kernel.num_tasks > 1)
		qsort(r->kernel.tasks, r->kernel.num_tasks, sizeof(*r->kernel.tasks), cmp_task);
	free(w.buf);
	free(w.seen);
	free(w.curr);
	free(idle);
}
