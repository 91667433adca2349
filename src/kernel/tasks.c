// Every task of the dumped kernel, like `crash ps` and `foreach bt`, with no vmlinux (x86-64: the saved
// context is x86's struct inactive_task_frame; the caller checks the architecture): struct layouts from
// the dump's BTF (btf.c), the task list from init_task (kallsyms), threads through signal->thread_head,
// the idle tasks and the running ones from each CPU's runqueue (runqueues + __per_cpu_offset), and every
// task with a pid once more from init_pid_ns's IDR, for the tasks a list cut by a filtered dump misses. A
// sleeping task's kernel stack starts at its saved context: thread.sp points to the struct
// inactive_task_frame that __switch_to_asm pushed (callee-saved registers, then the return address),
// which is where the kernel's own unwinder starts for a blocked task (unwind_orc.c __unwind_start).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/x86_dwarf.h"
#include "kernel/vmcore.h"
#include "util/addr_set.h"
#include "util/budget.h"
#include "util/bytes.h"
#include "util/cleanup.h"

// Tasks listed at most: a corrupt list must end; real systems have tens of thousands at most.
#define MAX_TASKS 65536
#define MAX_TASK_STRUCT (64u * 1024)
#define TASK_COMM_LEN 16
// Open-addressing sets at most half full: the tasks listed, and the list nodes walked (a task list
// node and a thread list node per task, and the nodes of lists that turn out to be corrupt).
#define SEEN_SLOTS (2u * MAX_TASKS)
#define NODE_SLOTS (8u * MAX_TASKS)
// A task_struct is read in pieces of this size: makedumpfile excludes whole pages (4 KiB or larger),
// so a piece is in the dump or not as a whole.
#define PIECE 4096u
#define MAX_PIECES (MAX_TASK_STRUCT / PIECE + 2)
// Diagnostics naming one unreadable task or one broken list each; the rest are counted in one more.
#define MAX_NAMED 16
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
	/** The pid namespace's IDR (an xarray of struct pid) and each pid's first task: the other way to
	 * every task, for tasks a task list cut by a filtered dump does not reach. */
	bool has_idr;
	uint64_t ns_xa_head, xa_slots, xa_num_slots, pid_tasks, task_pid_links;
};

static bool learn(struct ct_kbtf *b, struct layout *l, const char **missing)
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
	// include/linux/idr.h, xarray.h, pid.h (stable since 4.20): pid_namespace.idr.idr_rt is the xarray,
	// an xa_node's slots its 64 (16 with CONFIG_BASE_SMALL) entries, pid.tasks[PIDTYPE_PID] the hlist
	// of task_struct.pid_links[PIDTYPE_PID].
	uint64_t slots_size = 0;
	l->has_idr = ct_kbtf_member(b, "pid_namespace", "idr.idr_rt.xa_head", &l->ns_xa_head, NULL) &&
		     ct_kbtf_member(b, "xa_node", "slots", &l->xa_slots, &slots_size) &&
		     ct_kbtf_member(b, "pid", "tasks", &l->pid_tasks, NULL) &&
		     ct_kbtf_member(b, "task_struct", "pid_links", &l->task_pid_links, NULL);
	l->xa_num_slots = slots_size / 8;
	l->has_idr = l->has_idr && l->xa_num_slots >= 1 && l->xa_num_slots <= 256;
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
	struct ct_sink out; /**< diagnostics and pooled text */
	struct ct_ktasks *tasks; /**< the stage's output */
	struct ct_budget *budget; /**< borrowed */
	bool all;
	int must_pid; /**< listed whatever its state (the hung-task report's blocked task); -1 for none */
	size_t max_frames;
	uint8_t *buf;
	/** Which PIECE-sized pieces of the task in buf were read; all of them when whole. */
	bool piece_ok[MAX_PIECES];
	bool whole;
	struct ct_addr_set seen; /**< the task addresses listed (idle tasks are also in the list) */
	struct ct_addr_set nodes; /**< the list nodes walked: a list that comes back to one ends there */
	uint64_t *curr; /**< rq->curr of each CPU */
	size_t num_curr;
	size_t frames_left; /**< of MAX_ALL_TASK_FRAMES */
	bool truncated;
	bool out_of_budget;
	/** A list did not come back whole (tasks may be missing), and must_pid was listed: when either
	 * says a task may be lost, the pid IDR is walked too (a whole list costs nothing more). */
	bool cut, must_listed;
	size_t num_unreadable, num_broken; /**< tasks and lists reported (MAX_NAMED by name) */
};

/* One diagnostic per unreadable task, MAX_NAMED of them; the count of the rest comes at the end. */
static void task_unreadable(struct walk *w, uint64_t task, const char *what)
{
	if (w->num_unreadable++ < MAX_NAMED)
		ct_sink_diag(&w->out, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_UNREADABLE,
			     "task 0x%016" PRIx64 ": %s not in the dump (a page excluded from it, e.g. by makedumpfile -d); "
			     "the walk goes on",
			     task, what);
}

/* Reads the task_struct at @p task into w->buf, piece by piece when it is not in the dump whole
 * (unread pieces are zero); false when no piece is. */
static bool read_task(struct walk *w, uint64_t task)
{
	uint64_t size = w->l->size;
	w->whole = ct_vmcore_try_read(w->vm, task, w->buf, size);
	if (w->whole)
		return true;
	memset(w->buf, 0, size);
	memset(w->piece_ok, 0, sizeof(w->piece_ok));
	bool any = false;
	uint64_t first = task & ~(uint64_t)(PIECE - 1), end = task + size;
	for (size_t i = 0; i < MAX_PIECES && first + i * PIECE < end; i++) {
		uint64_t lo = first + i * PIECE, hi = end - lo <= PIECE ? end : lo + PIECE;
		if (lo < task)
			lo = task;
		w->piece_ok[i] = ct_vmcore_try_read(w->vm, lo, w->buf + (lo - task), hi - lo);
		any = any || w->piece_ok[i];
	}
	return any;
}

/* True when bytes [off, off + width) of the task read by read_task() are in the dump. */
static bool have(const struct walk *w, uint64_t task, uint64_t off, uint64_t width)
{
	// A member the BTF places outside the struct reads as 0 (field()); it is "in the dump" like that.
	if (w->whole || off > w->l->size || width > w->l->size - off)
		return true;
	if (!width)
		return true;
	// No overflow: read_task() took only a task with task + size <= UINT64_MAX.
	uint64_t first = task & ~(uint64_t)(PIECE - 1);
	for (uint64_t i = (task + off - first) / PIECE; i <= (task + off + width - 1 - first) / PIECE; i++) {
		if (!w->piece_ok[i])
			return false;
	}
	return true;
}

static void unwind_sleeping(struct walk *w, struct ct_kernel_task *t, uint64_t sp)
{
	const struct layout *l = w->l;
	uint8_t fr[256];
	if (!sp || !ct_vmcore_try_read(w->vm, sp, fr, l->frame_size)) {
		t->stack.stop = ct_stop_make(CT_STOP_TASK_NO_CONTEXT, CT_STOP_DETAIL_ADDRESS, sp);
		return;
	}
	struct ct_core_thread c;
	memset(&c, 0, sizeof(c));
	c.tid = t->cpu;
	c.has_regs = true;
	c.pc_is_return = true;
	const struct ct_arch_info *arch = w->vm->arch;
	ct_thread_set_reg(arch, &c, arch->pc_dwarf, field(fr, l->frame_size, l->f_ret, 8));
	// After the pops and the ret of __switch_to_asm.
	ct_thread_set_reg(arch, &c, arch->sp_dwarf, sp + l->frame_size);
	ct_thread_set_reg(arch, &c, arch->fp_dwarf, field(fr, l->frame_size, l->f_bp, 8));
	ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_CS, 0x10); // __KERNEL_CS
	if (l->has_frame_regs) {
		ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_RBX, field(fr, l->frame_size, l->f_bx, 8));
		ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_R12, field(fr, l->frame_size, l->f_r12, 8));
		ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_R13, field(fr, l->frame_size, l->f_r13, 8));
		ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_R14, field(fr, l->frame_size, l->f_r14, 8));
		ct_thread_set_reg(arch, &c, CT_X86_64_DWARF_R15, field(fr, l->frame_size, l->f_r15, 8));
	}
	if (w->frames_left < MAX_TASK_FRAMES) {
		t->stack.stop = ct_stop_make(CT_STOP_TASK_FRAME_BUDGET, CT_STOP_DETAIL_CAP, MAX_ALL_TASK_FRAMES);
		return;
	}
	size_t limit = w->max_frames && w->max_frames < MAX_TASK_FRAMES ? w->max_frames : MAX_TASK_FRAMES;
	ct_kstack_unwind(w->vm, w->ks, &c, w->out.strings, &t->stack, limit);
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

/** The fields of one task that are not in the dump, by name ("pid, comm"). */
struct lost {
	const struct walk *w;
	uint64_t task;
	char names[128];
	size_t len;
};

/* True when bytes [off, off + width) of the task are in the dump; else adds @p name to @p lost. */
static bool keep(struct lost *lost, uint64_t off, uint64_t width, const char *name)
{
	if (have(lost->w, lost->task, off, width))
		return true;
	size_t n = strlen(name);
	if (lost->len + n + 3 < sizeof(lost->names)) {
		if (lost->len) {
			memcpy(lost->names + lost->len, ", ", 2);
			lost->len += 2;
		}
		memcpy(lost->names + lost->len, name, n + 1);
		lost->len += n;
	}
	return false;
}

static void add_task(struct walk *w, uint64_t task)
{
	const struct layout *l = w->l;
	if (!task)
		return;
	if (w->seen.count >= MAX_TASKS) {
		w->truncated = true;
		return;
	}
	int added = ct_addr_set_add(&w->seen, task);
	if (added < 0)
		w->truncated = true;
	if (added <= 0)
		return;
	if (task > UINT64_MAX - l->size || !read_task(w, task)) {
		task_unreadable(w, task, "its task_struct is");
		return;
	}
	w->tasks->total++;
	// What a filtered dump lost of this task: named in one diagnostic, the task listed with the rest.
	struct lost lost = { .w = w, .task = task };
	bool has_pid = keep(&lost, l->pid, 4, "pid");
	bool has_tgid = keep(&lost, l->tgid, 4, "tgid");
	bool has_comm = keep(&lost, l->comm, TASK_COMM_LEN, "comm");
	bool has_state = keep(&lost, l->state, l->state_size >= 8 ? 8 : 4, "__state");
	has_state = keep(&lost, l->exit_state, 4, "exit_state") && has_state;
	bool has_cpu = keep(&lost, l->cpu, 4, "cpu");
	bool has_parent = keep(&lost, l->real_parent, 8, "real_parent");
	bool has_sp = keep(&lost, l->thread_sp, 8, "thread.sp");
	// The links are read by the list walks; they are named here so that the task's one diagnostic
	// says all that its missing pages cost.
	(void)keep(&lost, l->tasks, 16, "tasks");
	if (l->has_threads) {
		(void)keep(&lost, l->signal, 8, "signal");
		(void)keep(&lost, l->thread_node, 16, "thread_node");
	}
	if (!has_pid && !has_state) {
		task_unreadable(w, task, "pid and state of its task_struct are");
		return;
	}
	if (lost.len)
		task_unreadable(w, task, ct_strpool_printf(w->out.strings, "fields %s of its task_struct are", lost.names));
	uint32_t st = (uint32_t)field(w->buf, l->size, l->state, l->state_size >= 8 ? 8 : 4);
	uint32_t ex = (uint32_t)field(w->buf, l->size, l->exit_state, 4);
	// A state that is not in the dump is '?': it may be D, so it is listed with the D-state tasks.
	char letter = has_state ? state_letter(st, ex) : '?';
	int pid = has_pid ? (int)(int32_t)field(w->buf, l->size, l->pid, 4) : -1;
	bool must = has_pid && pid == w->must_pid;
	if (!w->all && letter != 'D' && letter != '?' && !must)
		return;
	struct ct_ktasks *k = w->tasks;
	if (k->count == k->capacity) {
		size_t n = k->capacity ? k->capacity * 2 : 64;
		struct ct_kernel_task *t = realloc(k->items, n * sizeof(*t));
		if (!t)
			return;
		k->items = t;
		k->capacity = n;
	}
	struct ct_kernel_task *t = &k->items[k->count++];
	memset(t, 0, sizeof(*t));
	w->must_listed = w->must_listed || must;
	t->address = task;
	t->pid = pid;
	t->tgid = has_tgid ? (int)(int32_t)field(w->buf, l->size, l->tgid, 4) : -1;
	t->stack.tid = t->pid;
	t->state = letter;
	t->cpu = has_cpu ? (int)(int32_t)field(w->buf, l->size, l->cpu, 4) : -1;
	char comm[TASK_COMM_LEN + 1] = "?";
	if (has_comm) {
		memcpy(comm, w->buf + l->comm, TASK_COMM_LEN);
		comm[TASK_COMM_LEN] = '\0';
	}
	// As ps shows it: a control byte in a name set by prctl(PR_SET_NAME) becomes '?'.
	for (char *q = comm; *q; q++) {
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	}
	t->comm = ct_strpool_intern(w->out.strings, comm);
	uint64_t parent = has_parent ? field(w->buf, l->size, l->real_parent, 8) : 0;
	uint8_t pb[4];
	// The parent's tgid, as /proc/PID/stat has it; init_task is its own parent, and the idle tasks'
	// ppid is 0 like ps shows it.
	if (parent && parent != task && ct_vmcore_try_read(w->vm, parent + l->tgid, pb, 4))
		t->ppid = (int)(int32_t)field(pb, 4, 0, 4);
	for (size_t i = 0; i < w->num_curr; i++)
		t->on_cpu = t->on_cpu || w->curr[i] == task;
	uint64_t sp = field(w->buf, l->size, l->thread_sp, 8);
	if (t->on_cpu)
		t->stack.stop = ct_stop_make(CT_STOP_TASK_ON_CPU, CT_STOP_DETAIL_CPU, (uint64_t)(int64_t)t->cpu);
	else if (!has_sp)
		t->stack.stop = ct_stop_make(CT_STOP_TASK_NO_CONTEXT, CT_STOP_DETAIL_NONE, 0);
	else if (letter != 'X' && letter != 'Z')
		unwind_sleeping(w, t, sp);
}

/** One list of tasks: the task list from init_task, or a process's thread list. */
struct list_walk {
	uint64_t owner; /**< the leader whose thread list it is; 0 for the task list */
	uint64_t head; /**< the list_head the list starts and ends at */
	uint64_t node_off; /**< offset of the list's node in task_struct */
	bool processes; /**< a node is a process: its threads are walked too */
	uint64_t at; /**< where follow() ended: the link it could not read, or the node it met again */
	size_t count; /**< nodes walked */
};

enum list_end { LIST_DONE, LIST_MET, LIST_UNREADABLE, LIST_NULL, LIST_STOPPED };

static void add_process(struct walk *w, uint64_t leader);
static const char *list_name(struct walk *w, const struct list_walk *lw);

/* One node of the budget for a node of list @p lw (or of the structure @p what names); false, said
 * once, when the budget or a cap ended the walks. */
static bool spend_node(struct walk *w, const struct list_walk *lw, const char *what)
{
	if (w->out_of_budget || w->truncated)
		return false;
	if (ct_budget_take(w->budget, CT_BUDGET_NODES, 1))
		return true;
	w->out_of_budget = true;
	ct_sink_diag(&w->out, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_NODES,
		     "%s: the work budget of %" PRIu64 " nodes (list nodes and BTF members, halved by --safe) "
		     "ran out after %zu tasks; the rest are not listed",
		     what ? what : list_name(w, lw), w->budget ? w->budget->limit[CT_BUDGET_NODES] : 0, w->seen.count);
	if (w->budget)
		w->budget->reported[CT_BUDGET_NODES] = true;
	return false;
}

/* Follows the links at offset @p link (0: next, 8: prev) from lw->head until the head comes back
 * (LIST_DONE), a node walked before comes again (LIST_MET, at it), a link is not in the dump
 * (LIST_UNREADABLE, at its address) or NULL (LIST_NULL, at its address), or the budget or a cap ends
 * it (LIST_STOPPED). Each node read
 * spends one node of the budget, and no node is walked twice in a dump, so that a list whose nodes
 * loop back into it (or into another list) costs its length once, not its length times the others. */
static enum list_end follow(struct walk *w, struct list_walk *lw, unsigned link)
{
	uint64_t node = lw->head;
	for (;;) {
		if (!spend_node(w, lw, NULL))
			return LIST_STOPPED;
		uint64_t next;
		struct ct_error *err = node <= UINT64_MAX - link ? ct_vmcore_read_u64(w->vm, node + link, &next)
								 : ct_error_create(CT_ERROR_FAULT, "no address");
		if (err) {
			ct_error_destroy(err);
			lw->at = node + link;
			return LIST_UNREADABLE;
		}
		if (next == lw->head)
			return LIST_DONE;
		// makedumpfile -E writes excluded pages as zeros (p_memsz past p_filesz), and libkdumpfile reads
		// them so: a NULL link is a page lost, like one not in the dump.
		if (!next) {
			lw->at = node + link;
			return LIST_NULL;
		}
		int added = ct_addr_set_add(&w->nodes, next);
		if (added < 0) {
			w->truncated = true;
			return LIST_STOPPED;
		}
		if (added == 0) {
			lw->at = next;
			return LIST_MET;
		}
		lw->count++;
		uint64_t task = next - lw->node_off;
		if (lw->processes)
			add_process(w, task);
		else
			add_task(w, task);
		node = next;
	}
}

/* "task list", "thread list of task 0x…" (pooled). */
static const char *list_name(struct walk *w, const struct list_walk *lw)
{
	if (!lw->owner)
		return "task list";
	return ct_strpool_printf(w->out.strings, "thread list of task 0x%016" PRIx64, lw->owner);
}

/* Walks the list forward; when it does not come back to its head (a link not in the dump, a loop), from
 * the head backwards (prev links) to where the forward walk stopped, so that a filtered dump loses only
 * the tasks it does not hold and a corrupt list is walked as far as either direction reaches. */
static void walk_list(struct walk *w, struct list_walk *lw)
{
	enum list_end fwd = follow(w, lw, 0);
	if (fwd == LIST_DONE || fwd == LIST_STOPPED)
		return;
	uint64_t fwd_at = lw->at;
	size_t fwd_count = lw->count;
	lw->count = 0;
	enum list_end back = follow(w, lw, 8);
	// The node whose next link was lost is where the backward walk must arrive for nothing to be lost.
	bool whole = fwd != LIST_MET && back == LIST_MET && lw->at == fwd_at;
	w->cut = w->cut || !whole;
	if (w->num_broken++ >= MAX_NAMED)
		return;
	const char *name = list_name(w, lw);
	const char *how = fwd == LIST_UNREADABLE
				  ? ct_strpool_printf(w->out.strings, "the next link at 0x%016" PRIx64 " is not in the dump", fwd_at)
			  : fwd == LIST_NULL
				  ? ct_strpool_printf(w->out.strings, "the next link at 0x%016" PRIx64 " is NULL (a zero-filled page?)", fwd_at)
				  : ct_strpool_printf(w->out.strings, "it loops back to node 0x%016" PRIx64 " without returning to its head",
						      fwd_at);
	if (whole) {
		ct_sink_diag(&w->out, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_UNREADABLE,
			     "%s: %s after %zu nodes; the other %zu were walked backwards from its head up to that node: "
			     "the list is whole",
			     name, how, fwd_count, lw->count);
		return;
	}
	const char *until = "";
	if (back == LIST_UNREADABLE || back == LIST_NULL)
		until = ct_strpool_printf(w->out.strings, ", until the prev link at 0x%016" PRIx64 " (%s): tasks between may be missing",
					  lw->at, back == LIST_NULL ? "NULL" : "not in the dump");
	else if (back == LIST_MET)
		until = ct_strpool_printf(w->out.strings, ", until node 0x%016" PRIx64 " (walked before)", lw->at);
	else if (back == LIST_STOPPED)
		until = ", until a limit (see the other diagnostics)";
	ct_sink_diag(&w->out, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_LIST_CUT,
		     "%s: %s after %zu nodes; walked backwards from its head, %zu more nodes%s", name, how, fwd_count,
		     lw->count, until);
}

/* The threads of the process at @p leader (signal->thread_head), the leader included. */
static void add_process(struct walk *w, uint64_t leader)
{
	const struct layout *l = w->l;
	add_task(w, leader);
	if (!l->has_threads)
		return;
	uint64_t signal;
	struct ct_error *err = ct_vmcore_read_u64(w->vm, leader + l->signal, &signal);
	if (err) {
		// Not in the dump: the leader's own diagnostic (add_task) names the missing field.
		ct_error_destroy(err);
		return;
	}
	if (!signal || signal > UINT64_MAX - l->thread_head)
		return;
	struct list_walk lw = { .owner = leader, .head = signal + l->thread_head, .node_off = l->thread_node };
	walk_list(w, &lw);
}

// Levels of an xarray: a 64-bit index in 6-bit (or 4-bit) chunks.
#define MAX_XA_DEPTH 16

/* The entries of the xarray entry @p entry (include/linux/xarray.h): a node's slots, or a struct pid
 * whose first task (pid.tasks[PIDTYPE_PID]) is listed. Each node and pid spends a node of the budget;
 * no node is walked twice (the list walks' visited set), and the depth is bounded. */
static void walk_xa(struct walk *w, uint64_t entry, unsigned depth)
{
	const struct layout *l = w->l;
	if (!entry || (entry & 1) || !spend_node(w, NULL, "pid IDR"))
		return; // empty, or a value entry (no pid)
	if ((entry & 3) == 2) {
		// Internal: a node above 4096, else a sibling, retry or zero entry (no pid of its own).
		uint64_t node = entry - 2, slots[256];
		if (entry <= 4096 || depth >= MAX_XA_DEPTH || node > UINT64_MAX - l->xa_slots ||
		    ct_addr_set_add(&w->nodes, node) != 1 ||
		    !ct_vmcore_try_read(w->vm, node + l->xa_slots, slots, l->xa_num_slots * 8))
			return;
		for (size_t i = 0; i < l->xa_num_slots; i++)
			walk_xa(w, slots[i], depth + 1);
		return;
	}
	uint64_t first;
	if (entry > UINT64_MAX - l->pid_tasks || !ct_vmcore_try_read(w->vm, entry + l->pid_tasks, &first, 8) ||
	    first < l->task_pid_links)
		return; // a pid whose struct is not in the dump, or that no task has (a group's or session's)
	add_task(w, first - l->task_pid_links);
}

/* Every task with a pid, from init_pid_ns's IDR, when a list was cut or the hung task's blocked one was
 * not met: the tasks a cut task or thread list does not reach (a filtered dump's excluded page between
 * two holes of the list) are listed all the same. */
static void walk_pids(struct walk *w)
{
	uint64_t ns, head;
	if (!w->cut && (w->must_pid < 0 || w->must_listed))
		return;
	if (!w->l->has_idr || !ct_kallsyms_find(w->ks, "init_pid_ns", &ns) || ns > UINT64_MAX - w->l->ns_xa_head ||
	    !ct_vmcore_try_read(w->vm, ns + w->l->ns_xa_head, &head, 8))
		return;
	size_t before = w->seen.count;
	walk_xa(w, head, 0);
	if (w->seen.count > before)
		ct_sink_diag(&w->out, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_LIST_CUT,
			     "%zu tasks that the task and thread lists did not reach were found through the pid "
			     "namespace's IDR (init_pid_ns.idr)", w->seen.count - before);
}

static int cmp_task(const void *a, const void *b)
{
	const struct ct_kernel_task *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

bool ct_ktasks_layout(struct ct_kbtf *btf, const char **missing)
{
	struct layout l;
	return learn(btf, &l, missing);
}

void ct_ktasks_collect(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf *btf, struct ct_budget *budget,
		       bool all, int must_pid, size_t max_frames, struct ct_sink out, struct ct_ktasks *ret)
{
	*ret = (struct ct_ktasks){ 0 };
	const struct ct_sink *r = &out;
	struct layout l;
	const char *missing = NULL;
	uint64_t init_task;
	uint32_t num_types;
	if (!learn(btf, &l, &missing)) {
		const char *stopped = ct_kbtf_budget_stop(btf, &num_types);
		if (stopped)
			ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_TASK_LAYOUT,
				     "tasks not listed: %s is unknown, the work budget stopped the BTF member search at %s",
				     missing, stopped);
		else
			ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_TASK_LAYOUT, "tasks not listed: the BTF has no %s",
				     missing);
		return;
	}
	if (!ct_kallsyms_find(ks, "init_task", &init_task)) {
		ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_INIT_TASK, "tasks not listed: no init_task in kallsyms");
		return;
	}
	struct walk w = { .vm = vm, .ks = ks, .l = &l, .out = out, .tasks = ret, .budget = budget, .all = all, .must_pid = must_pid,
			  .max_frames = max_frames, .frames_left = MAX_ALL_TASK_FRAMES };
	// Each CPU's runqueue: its current task (running, no saved context) and its idle task.
	size_t ncpu = vm->num_cpus < MAX_CPUS ? vm->num_cpus : MAX_CPUS, num_idle = 0;
	_cleanup_free_ uint64_t *idle = calloc(ncpu ? ncpu : 1, sizeof(*idle));
	_cleanup_free_ uint64_t *curr = calloc(ncpu ? ncpu : 1, sizeof(*curr));
	_cleanup_free_ uint8_t *buf = malloc(l.size);
	bool sets = ct_addr_set_init(&w.seen, SEEN_SLOTS) && ct_addr_set_init(&w.nodes, NODE_SLOTS);
	_cleanup_free_ uint64_t *seen_slots = w.seen.slots;
	_cleanup_free_ uint64_t *node_slots = w.nodes.slots;
	if (!idle || !curr || !buf || !sets) {
		ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_MEMORY, "tasks not listed: out of memory");
		return;
	}
	w.buf = buf;
	w.curr = curr;
	uint64_t rq_base, pcpu;
	if (l.has_rq && ct_kallsyms_find(ks, "runqueues", &rq_base) && ct_kallsyms_find(ks, "__per_cpu_offset", &pcpu)) {
		for (size_t c = 0; c < ncpu; c++) {
			uint64_t off, cur, id;
			if (!ct_vmcore_try_read(vm, pcpu + 8 * c, &off, 8))
				break;
			if (ct_vmcore_try_read(vm, rq_base + off + l.rq_curr, &cur, 8))
				w.curr[w.num_curr++] = cur;
			if (ct_vmcore_try_read(vm, rq_base + off + l.rq_idle, &id, 8))
				idle[num_idle++] = id;
		}
	} else {
		ct_sink_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_NO_RUNQUEUES, "no runqueues: running tasks are not marked on_cpu");
	}
	add_task(&w, init_task);
	for (size_t i = 0; i < num_idle; i++)
		add_task(&w, idle[i]);
	struct list_walk tasks = { .head = init_task + l.tasks, .node_off = l.tasks, .processes = true };
	walk_list(&w, &tasks);
	walk_pids(&w);
	if (w.num_unreadable > MAX_NAMED)
		ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_UNREADABLE,
			     "%zu more tasks with parts not in the dump (the first %u are named above)",
			     w.num_unreadable - MAX_NAMED, MAX_NAMED);
	if (w.num_broken > MAX_NAMED)
		ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_LIST_CUT,
			     "%zu more task or thread lists that do not return to their head (the first %u are named above)",
			     w.num_broken - MAX_NAMED, MAX_NAMED);
	if (w.truncated)
		ct_sink_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_CAP, "more than %u tasks: the rest are not listed", MAX_TASKS);
	ret->all = all;
	if (ret->count > 1)
		qsort(ret->items, ret->count, sizeof(*ret->items), cmp_task);
}

void ct_ktasks_free(struct ct_ktasks *tasks)
{
	for (size_t i = 0; i < tasks->count; i++)
		free(tasks->items[i].stack.frames);
	free(tasks->items);
	*tasks = (struct ct_ktasks){ 0 };
}
