// Facts from the stage outputs of a process core: signal, mappings, the faulting instruction, stack, frames,
// abort message, exception type, culprit variable.
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/module_package.h"
#include "modules/symbolize.h"
#include "triage/gather.h"
#include "unwind/unwind.h"
#include "triage/insn.h"
#include "util/bisect.h"

#include <capstone/capstone.h>

void ct_facts_storage_deinit(struct ct_facts_storage *st)
{
	free(st->frames);
	free(st->maps);
	free(st->reraised);
	st->frames = NULL;
	st->maps = NULL;
	st->reraised = NULL;
}

// The thread the verdict is about: the one the signal was delivered to, else (a snapshot) the first.
static const struct ct_core_thread *subject_core_thread(const struct ct_triage_input *s)
{
	if (s->crashed)
		return s->crashed;
	return s->core->num_threads ? &s->core->threads[0] : NULL;
}

static void gather_signal(const struct ct_triage_input *s, struct ct_signal_facts *sig)
{
	const struct ct_signal_info *si = s->signal;
	sig->fatal = s->crashed != NULL;
	sig->signo = si->present ? si->number : 0;
	sig->has_code = si->has_code;
	sig->code = si->code;
	sig->code_name = si->has_code ? ct_signal_code_name(sig->signo, sig->code) : NULL;
	sig->has_fault_address = si->has_fault_address;
	sig->fault_address = si->fault_address;
	sig->has_sender = si->has_sender;
	sig->sender_pid = si->sender_pid;
	sig->sender_uid = si->sender_uid;
	sig->has_pid = s->core->has_prpsinfo;
	sig->pid = s->core->pid;
	if (sig->has_code) {
		sig->user_sent = sig->code <= 0;
		sig->kernel_sent = sig->code > 0;
	}
	sig->from_self = sig->user_sent && sig->has_sender && sig->has_pid && sig->sender_pid == sig->pid;
}

static int compare_maps(const void *a, const void *b)
{
	const struct ct_mapping_fact *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int compare_files(const void *a, const void *b)
{
	const struct ct_file_mapping *x = *(const struct ct_file_mapping *const *)a;
	const struct ct_file_mapping *y = *(const struct ct_file_mapping *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct file_key {
	const struct ct_file_mapping *const *files;
	uint64_t addr;
};

static bool file_at_or_below(const void *ctx, size_t i)
{
	const struct file_key *k = ctx;
	return k->files[i]->start <= k->addr;
}

/** Index of the last element of sorted @p maps whose start is <= @p addr, or n when none. */
static size_t map_floor(const struct ct_mapping_fact *maps, size_t n, uint64_t addr)
{
	size_t lo = ct_mapping_upper(maps, n, addr);
	return lo ? lo - 1 : n;
}

static void gather_maps(const struct ct_triage_input *s, struct ct_facts_storage *st)
{
	const struct ct_core *core = s->core;
	st->maps = calloc(core->num_segments ? core->num_segments : 1, sizeof(*st->maps));
	if (!st->maps)
		return;
	// Cores can have 10^5 segments and NT_FILE entries: sort both and search, never nest loops.
	// The module set's file list: the dump's NT_FILE, or the link_map's objects without one.
	size_t num_files = s->mods->num_files;
	const struct ct_file_mapping **files = calloc(num_files ? num_files : 1, sizeof(*files));
	for (size_t j = 0; files && j < num_files; j++)
		files[j] = &s->mods->files[j];
	if (files)
		qsort(files, num_files, sizeof(*files), compare_files);
	for (size_t i = 0; i < core->num_segments; i++) {
		const struct ct_segment *seg = &core->segments[i];
		struct ct_mapping_fact *m = &st->maps[st->num_maps++];
		m->present = true;
		m->start = seg->vaddr;
		m->end = seg->vaddr + seg->memsz;
		m->flags = seg->flags;
		size_t lo = ct_bisect(files ? num_files : 0, file_at_or_below, &(struct file_key){ files, m->start });
		if (lo && m->start < files[lo - 1]->end) {
			const struct ct_file_mapping *fm = files[lo - 1];
			m->file = ct_strpool_intern(s->out.strings, fm->path);
			m->file_offset = fm->file_offset + (m->start - fm->start);
		}
	}
	free(files);
	qsort(st->maps, st->num_maps, sizeof(*st->maps), compare_maps);
	for (size_t t = 0; t < core->num_threads; t++) {
		uint64_t sp = core->threads[t].sp;
		size_t k = map_floor(st->maps, st->num_maps, sp);
		if (core->threads[t].has_regs && k < st->num_maps && sp < st->maps[k].end && (st->maps[k].flags & CT_PF_W))
			st->maps[k].is_stack = true;
	}
}

static const struct ct_mapping_fact *find_map(const struct ct_facts_storage *st, uint64_t addr)
{
	size_t k = map_floor(st->maps, st->num_maps, addr);
	return k < st->num_maps && addr < st->maps[k].end ? &st->maps[k] : NULL;
}

/** The stack of a thread: the writable mapping holding sp, or the stack mapping just above an sp that left it. */
static const struct ct_mapping_fact *stack_of(const struct ct_facts_storage *st, uint64_t sp, bool *outside)
{
	const struct ct_mapping_fact *m = find_map(st, sp);
	*outside = !m || !(m->flags & CT_PF_W);
	if (m && (m->flags & CT_PF_W))
		return m;
	// The first writable mapping above sp, within the guard gap (plus a no-access guard mapping).
	size_t k = map_floor(st->maps, st->num_maps, sp);
	for (size_t i = k < st->num_maps ? k + 1 : 0; i < st->num_maps && i < k + 3; i++) {
		const struct ct_mapping_fact *c = &st->maps[i];
		if (c->start > sp && c->start - sp <= CT_STACK_GUARD_GAP + 4096 + (m ? m->end - m->start : 0) &&
		    (c->flags & CT_PF_W))
			return c;
	}
	return NULL;
}

static bool read_data(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct ct_triage_input *s = arg;
	return ct_modules_read_code(s->mods, addr, buf, len);
}

/** Start of the function holding @p pc from its FDE (.eh_frame, else .debug_frame). */
static bool function_start(Dwfl_Module *mod, uint64_t pc, uint64_t *ret)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	for (int i = 0; i < 2; i++) {
		if (i == 1)
			cfi = dwfl_module_dwarf_cfi(mod, &bias);
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr start, end;
		if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
			bool ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0;
			free(frame);
			if (ok) {
				*ret = start + bias;
				return true;
			}
		}
	}
	return false;
}

/**
 * The core's own LD_PRELOAD: the environment strings sit just below the AT_EXECFN string at the top
 * of the main stack. Reads at most 64 KiB below it. Pooled, or NULL.
 */
static const char *read_ld_preload(const struct ct_triage_input *s)
{
	uint64_t execfn;
	if (!ct_core_auxv(s->core, AT_EXECFN, &execfn))
		return NULL;
	const struct ct_segment *seg = ct_core_find_segment(s->core, execfn);
	if (!seg)
		return NULL;
	uint64_t lo = execfn - seg->vaddr > 65536 ? execfn - 65536 : seg->vaddr;
	size_t len = (size_t)(execfn - lo);
	char *buf = malloc(len + 1);
	if (!buf || !len || !ct_core_read_fast(s->core, lo, buf, len)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	const char *found = NULL;
	for (size_t i = 0; i + 11 < len; i++) {
		if ((i == 0 || buf[i - 1] == '\0') && memcmp(buf + i, "LD_PRELOAD=", 11) == 0)
			found = ct_strpool_intern(s->out.strings, buf + i + 11);
	}
	free(buf);
	return found;
}

static void gather_frames(const struct ct_triage_input *s, struct ct_facts *f, struct ct_facts_storage *st)
{
	const char *ld_preload = read_ld_preload(s);
	const struct ct_thread *t = ct_stacks_subject(s->stacks);
	if (!t || !t->num_frames)
		return;
	st->frames = calloc(t->num_frames, sizeof(*st->frames));
	if (!st->frames)
		return;
	// Which modules are the program's: the executable's, its source package's, its tree's.
	ct_modules_find_packages(s->mods);
	struct ct_program program;
	const struct ct_module_state *exe = NULL;
	for (size_t k = 0; k < s->mods->num_modules && !exe; k++) {
		if (s->mods->modules[k].is_main)
			exe = &s->mods->modules[k];
	}
	ct_program_init(&program, exe ? exe->path : NULL, exe ? exe->source_package : NULL);
	// A static executable maps no dynamic loader: its libc is linked in.
	bool exe_static = exe != NULL;
	for (size_t k = 0; k < s->mods->num_modules && exe_static; k++) {
		const char *name = s->mods->modules[k].name;
		exe_static = !(name && strncmp(name, "ld", 2) == 0 && ct_module_is_runtime(name));
	}
	// The name checks depend on the (pooled) strings only: deep recursion repeats one frame's.
	const char *last_function = NULL, *last_normalized = NULL, *last_file = NULL;
	bool last_is_runtime = false, last_header = false;
	for (size_t i = 0; i < t->num_frames; i++) {
		const struct ct_frame *fr = &t->frames[i];
		struct ct_frame_fact *ff = &st->frames[i];
		ff->pc = fr->pc;
		// A stripped Go executable's frames are named from its pclntab by the symbolizer.
		const char *function = fr->function;
		if (i == 0 || function != last_function) {
			last_function = function;
			last_normalized = ct_normalize_function(s->out.strings, function);
			last_is_runtime = ct_function_is_runtime(last_normalized);
		}
		ff->function = last_normalized;
		ff->module = fr->module;
		ff->file = fr->file;
		ff->line = fr->line;
		ff->inlined = fr->inlined;
		ff->signal_frame = fr->signal_frame;
		ff->scanned = fr->trust == CT_TRUST_SCAN;
		// Callers are attributed at pc - 1 (the return address may be past the function's end).
		uint64_t lookup = i && fr->pc && !t->frames[i - 1].signal_frame ? fr->pc - 1 : fr->pc;
		const struct ct_module_state *m = ct_modules_find(s->mods, lookup);
		if (!m) {
			// Code in an executable mapping no ELF module covers is JIT-compiled code (a LuaJIT
			// trace, a JVM method): the program's own, compiled from its script (issue 21); a pc in
			// no executable mapping (a call through NULL) is not code to blame.
			size_t k = map_floor(st->maps, st->num_maps, fr->pc);
			bool jit = !fr->signal_frame && k < st->num_maps && fr->pc < st->maps[k].end &&
				   (st->maps[k].flags & CT_PF_X);
			ff->library = false;
			ff->own = jit;
			ff->program = jit;
			ff->program_why = !jit ? NULL
				: fr->function && s->mods->perfmap.path
				? ct_strpool_printf(s->out.strings, "JIT-compiled code in an executable mapping without a module, named by this machine's %s",
						    s->mods->perfmap.path)
				: "JIT-compiled code in an executable mapping without a module";
			ff->runtime_why = fr->signal_frame ? "a signal trampoline" : jit ? NULL : "in no executable mapping";
			continue;
		}
		ff->package = m->source_package;
		ff->program_why = ct_program_owns(&program, m->is_main, m->path, m->source_package);
		ff->program = ff->program_why != NULL;
		ff->has_module_offset = true;
		ff->module_offset = fr->pc - m->start;
		if (!ff->function && m->dwfl_module) {
			uint64_t start;
			if (function_start(m->dwfl_module, lookup, &start) && start >= m->start) {
				ff->has_function_start = true;
				ff->function_start = start - m->start;
			}
		}
		// The C/C++ runtime and the core's LD_PRELOAD interposers; other libraries, under /usr/lib
		// or not, are code that can be blamed (docs/classes.md, "Blame").
		bool system = m->is_vdso || (!m->is_main && (ct_module_is_runtime(fr->module) ||
							     ct_module_is_preloaded(fr->module, ld_preload)));
		// Own module, but the frame is a system header inlined into it (fortify wrappers) or
		// runtime code linked in without debug info while the module has some (static libc, crt).
		// Whose function it is, is said by the file declaring it, then by its line's: the line of
		// a program's function may be a header's, inlined without an inlined-call DIE there (gcc;
		// gdb shows that line too), and the function is the program's all the same.
		const char *home = fr->decl_file ? fr->decl_file : fr->file;
		if (i == 0 || home != last_file) {
			last_file = home;
			last_header = home && ct_path_is_system(home);
		}
		bool header = last_header;
		// Runtime linked into the executable, recognized by what it is: the crt objects' and
		// start-up symbols (_start, __libc_start_main, __stack_chk_fail_local) in any executable,
		// and in a static executable with DWARF the code DWARF does not cover (Debian's libc.a has
		// none). A dynamic executable's frames without a source line are its own code all the
		// same: objects built without -g (node: libuv has DWARF, V8 has not).
		bool runtime = false;
		if (m->is_main && !fr->file && !last_is_runtime) {
			Dwarf_Addr dbias;
			runtime = ct_function_is_crt(last_normalized) ||
				  (exe_static && m->dwfl_module && dwfl_module_getdwarf(m->dwfl_module, &dbias));
		}
		// A PLT stub is the linker's trampoline to an import, not code anyone wrote: the frame
		// that called through it is the program's (the stub's own fault is a bad GOT slot).
		bool stub = ct_plt_in_stubs(s->mods, ct_modules_state_of(s->mods, m->dwfl_module), lookup);
		ff->library = system || header || runtime || last_is_runtime || stub;
		ff->own = !ff->library && !fr->signal_frame;
		ff->runtime_why = fr->signal_frame ? "a signal trampoline"
				  : m->is_vdso ? "the vdso"
				  : system && ct_module_is_runtime(fr->module) ? "the C/C++ runtime"
				  : system ? "an LD_PRELOAD interposer"
				  : last_is_runtime ? "a language runtime's panic or signal machinery"
				  : header ? "a system header inlined into the caller"
				  : runtime ? "runtime code linked into the executable (no source line)"
				  : stub ? "a PLT stub (the linker's trampoline to an imported function)"
					    : NULL;
	}
	f->frames = st->frames;
	f->num_frames = t->num_frames;
	f->stack.num_frames = t->num_frames;
	f->stack.truncated = t->truncated;
}

static void gather_insn(const struct ct_triage_input *s, struct ct_facts *f, const uint64_t *regs, const bool *valid,
			size_t num_regs)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint8_t code[16];
	size_t len = sizeof(code);
	while (len && !ct_modules_read_code(s->mods, f->pc, code, len))
		len--;
	uint8_t before[2];
	bool have_before = f->pc >= 2 && ct_modules_read_code(s->mods, f->pc - 2, before, 2);
	// The raw register values (arm's CPSR for the Thumb state) come from the crashing thread's dump.
	const struct ct_core_thread *ct = subject_core_thread(s);
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = num_regs, .pc = f->pc,
				   .read = read_data, .arg = (void *)s, .values = ct ? ct->values : NULL,
				   .num_values = ct ? ct->num_values : 0 };
	ct_insn_decode(arch, len ? code : NULL, len, have_before ? before : NULL, have_before ? 2 : 0, &ctx,
		       &f->insn);
}

/** Says so when no decoder could decode the faulting instruction of a memory fault. */
static void diag_undecodable(const struct ct_triage_input *s, const struct ct_facts *f)
{
	const struct ct_insn_facts *in = &f->insn;
	if (!in->has_decoder || in->decoded || !in->have_bytes || !f->sig.kernel_sent ||
	    (f->sig.signo != CT_SIGSEGV && f->sig.signo != CT_SIGBUS))
		return;
	char hex[3 * 16 + 1] = "";
	for (size_t i = 0; i < in->size && i < 16; i++)
		snprintf(hex + 3 * i, 4, "%02x ", in->bytes[i]);
	ct_sink_diag(&s->out, CT_SEVERITY_INFO, s->crashed ? s->crashed->tid : 0, CT_DIAG_INSN_UNDECODABLE,
		       "the instruction at 0x%" PRIx64 " (%s) could not be decoded (capstone 4%s): no access kind or operand address",
		       f->pc, hex, CT_HAVE_ZYDIS ? ", Zydis" : "; built without Zydis");
}

/**
 * One huge frame: sp is unmapped, far below the stack, and the caller's sp (from the unwind) is in
 * a writable mapping above it. Returns that mapping, or NULL.
 */
static const struct ct_mapping_fact *far_stack(const struct ct_triage_input *s, const struct ct_facts_storage *st, uint64_t sp,
					       struct ct_facts *f)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	if (!t)
		return NULL;
	for (size_t i = 1; i < t->num_frames && i < 4; i++) {
		const struct ct_frame *fr = &t->frames[i];
		if (!fr->has_sp || fr->sp <= sp)
			continue;
		const struct ct_mapping_fact *m = find_map(st, fr->sp);
		if (!m || !(m->flags & CT_PF_W) || m->file || m->start <= sp || m->start - sp > CT_STACK_FAR_LIMIT ||
		    m->start - sp <= CT_STACK_GUARD_GAP)
			return NULL;
		// Nothing mapped between sp and the stack.
		size_t k = ct_mapping_upper(st->maps, st->num_maps, sp);
		if (k >= st->num_maps || &st->maps[k] != m)
			return NULL;
		f->stack.far_below = true;
		f->stack.frame_size = fr->sp - sp;
		return m;
	}
	return NULL;
}

/**
 * The facts that hang on one register context (the dump's, or a signal frame's): pc and where it
 * lies, the stack, the instruction and the addresses it computes, the exception and the culprit.
 */
static void gather_context(const struct ct_triage_input *s, struct ct_facts *f, struct ct_facts_storage *st,
			   const uint64_t *regs, const bool *valid, size_t num_regs, uint64_t pc, uint64_t sp)
{
	const struct ct_core *core = s->core;
	const struct ct_arch_info *arch = core->arch;
	uint64_t limit = arch->user_address_limit;
	{
		f->has_pc = true;
		f->pc = pc;
		bool outside = false;
		const struct ct_mapping_fact *stack = stack_of(st, sp, &outside);
		if (!stack && outside)
			stack = far_stack(s, st, sp, f);
		ct_place_address(f->pc, st->maps, st->num_maps, limit, stack, &f->pc_addr);
		f->stack.valid = true;
		f->stack.sp = sp;
		f->stack.sp_outside = outside;
		if (stack) {
			f->stack.has_stack = true;
			f->stack.stack_start = stack->start;
			f->stack.stack_end = stack->end;
		}
		struct ct_address_facts spa;
		ct_place_address(sp, st->maps, st->num_maps, limit, NULL, &spa);
		f->stack.sp_in_guard = spa.in_stack_guard;
		f->has_sp_word = ct_core_read_word(core, sp, &f->sp_word);
		if (f->has_sp_word) {
			uint8_t b[CT_ARCH_CALL_BYTES];
			f->sp_word_after_call = f->sp_word > CT_ARCH_CALL_BYTES && arch->is_after_call &&
						ct_modules_read_code(s->mods, f->sp_word - CT_ARCH_CALL_BYTES, b, sizeof(b)) &&
						arch->is_after_call(b, sizeof(b));
		}
		f->has_popped_word = ct_core_read_word(core, sp - f->pointer_size, &f->popped_word);
		gather_insn(s, f, regs, valid, num_regs);
		if (f->insn.decoded) {
			if (f->insn.is_ret && f->insn.has_return_address)
				ct_place_address(f->insn.return_address, st->maps, st->num_maps, limit, stack, &f->computed);
			else if (f->insn.fault_mem >= 0 && f->insn.mem[f->insn.fault_mem].has_address)
				ct_place_address(f->insn.mem[f->insn.fault_mem].address, st->maps, st->num_maps, limit,
						 stack, &f->computed);
			else if (f->insn.has_implicit_address)
				ct_place_address(f->insn.implicit_address, st->maps, st->num_maps, limit, stack,
						 &f->computed);
		}
		if (f->sig.has_fault_address)
			ct_place_address(f->sig.fault_address, st->maps, st->num_maps, limit, stack, &f->fault);
		if (f->sig.signo == CT_SIGABRT && stack)
			f->exception_type = ct_find_exception_type(s, sp, stack->end, &f->exception_what);
		if ((f->sig.signo == CT_SIGSEGV || f->sig.signo == CT_SIGBUS) && f->insn.decoded && f->num_frames &&
		    f->frames[0].own)
			f->culprit = ct_find_culprit(s, f, regs, valid);
	}
}

/** Frames of another thread searched for a signal frame (the handler runs near a stack's top). */
#define RELAY_FRAMES 64

/**
 * The layout of the signal frame at frame @p k of @p t: one the unwinder went through, or the
 * return address of Go's handler (runtime.sigtramp) when it is a sigreturn trampoline known by its
 * code (the unwinder stops there when the interrupted stack is a system stack: docs/runtimes.md).
 * NULL when frame @p k is no signal frame.
 */
static const struct ct_arch_sigframe *sigframe_layout(const struct ct_triage_input *s, const struct ct_thread *t, size_t k)
{
	const struct ct_frame *fr = &t->frames[k];
	if (!fr->has_sp)
		return NULL;
	const struct ct_arch_sigframe *l = ct_unwind_sigframe_at(s->mods, fr->pc);
	if (fr->signal_frame)
		return l ? l : s->core->arch->sigframe;
	bool after_go_handler = k > 0 && t->frames[k - 1].function && strcmp(t->frames[k - 1].function, "runtime.sigtramp") == 0;
	return after_go_handler ? l : NULL;
}

/**
 * Go's runtime relays a SIGQUIT (and the other signals it throws for) from M to M with
 * raiseproc so that each prints its stack, and the last one aborts (runtime/signal_unix.go
 * sighandler, Go 1.19): the crashing thread's signal frame then holds the relayed copy, sent by the
 * process itself. The original, from the watchdog, is in the signal frame of another thread still
 * in Go's handler (runtime.sigtramp): its sender replaces the relayed one in @p sf.
 */
static void go_relay_origin(const struct ct_triage_input *s, const struct ct_facts *f, struct ct_sigframe_facts *sf)
{
	const struct ct_thread *crashed = ct_stacks_crashed(s->stacks);
	if (!sf->has_siginfo || sf->external || sf->si_code > 0 || !f->sig.has_pid || sf->si_pid != f->sig.pid ||
	    sf->frame == 0 || sf->frame >= f->num_frames || !f->frames[sf->frame - 1].function ||
	    strcmp(f->frames[sf->frame - 1].function, "runtime.sigtramp") != 0)
		return;
	for (size_t i = 0; i < s->stacks->count; i++) {
		const struct ct_thread *t = &s->stacks->items[i];
		if (t == crashed)
			continue;
		for (size_t k = 1; k < t->num_frames && k < RELAY_FRAMES; k++) {
			const struct ct_arch_sigframe *l = sigframe_layout(s, t, k);
			struct ct_sigframe_facts other;
			if (!l || !t->frames[k - 1].function || strcmp(t->frames[k - 1].function, "runtime.sigtramp") != 0 ||
			    !ct_sigframe_read(s->core, l, k, t->frames[k].sp, &other))
				continue;
			ct_sigframe_derive_sender(&other, f->sig.pid, f->sig.signo);
			if (other.external && other.si_signo == sf->si_signo) {
				sf->si_pid = other.si_pid;
				sf->si_uid = other.si_uid;
				sf->si_code = other.si_code;
				sf->external = true;
				sf->relay_tid = t->tid;
				return;
			}
		}
	}
}

/**
 * Signal frames of the crashing thread and, when the dumped signal was raised from inside a handler
 * for a fault (by the handler itself, or a second fault the kernel delivered), the facts of the
 * interrupted context: the original fault, classified with the usual rules at the interrupted frame.
 */
static void gather_sigframes(const struct ct_triage_input *s, struct ct_facts *f, struct ct_facts_storage *st)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	const struct ct_arch_info *arch = s->core->arch;
	if (!t || !arch || !arch->sigframe || !f->sig.fatal)
		return;
	bool x86 = arch->cs_arch == CS_ARCH_X86;
	// The last frame too: the unwinder may stop at a signal frame it cannot step through.
	for (size_t i = 0; i < t->num_frames && f->num_sigframes < CT_MAX_SIGFRAMES; i++) {
		const struct ct_frame *fr = &t->frames[i];
		struct ct_sigframe_facts sf;
		// The layout its trampoline's code names (arch->sigframe when CFI found the frame).
		const struct ct_arch_sigframe *l = sigframe_layout(s, t, i);
		if (!l || !ct_sigframe_read(s->core, l, i, fr->sp, &sf))
			continue;
		// The interrupted instruction, decoded with the interrupted registers.
		struct ct_facts probe = { .pc = sf.pc };
		probe.insn.fault_mem = -1;
		gather_insn(s, &probe, sf.regs, sf.valid, CT_SIGFRAME_REGS);
		ct_sigframe_derive(&sf, x86, &probe.insn);
		ct_sigframe_derive_sender(&sf, f->sig.has_pid ? f->sig.pid : 0, f->sig.signo);
		sf.stepped = fr->signal_frame;
		go_relay_origin(s, f, &sf);
		f->sigframes[f->num_sigframes++] = sf;
	}
	// Re-raised: the dumped signal was sent by the process itself (raise, abort, kill of its own
	// pid) or is a second fault; the innermost signal frame holding a fault is the original one.
	bool self = f->sig.user_sent && (!f->sig.has_sender || f->sig.from_self);
	bool second_fault = f->sig.kernel_sent && ct_signal_is_fault(f->sig.signo);
	if (!self && !second_fault && !(f->sig.signo == CT_SIGABRT && !f->sig.has_code))
		return;
	for (size_t k = 0; k < f->num_sigframes; k++) {
		const struct ct_sigframe_facts *sf = &f->sigframes[k];
		// The first signal: a fault, or a signal another process sent (a watchdog's SIGABRT).
		// A sent signal needs no interrupted frame to be told (the unwinder may stop at Go's
		// sigreturn when the interrupted stack is a system stack); a fault does.
		if ((!sf->fault_signo && !sf->external) || (sf->fault_signo && (sf->frame + 1 >= f->num_frames || !sf->stepped)))
			continue;
		struct ct_facts *in = calloc(1, sizeof(*in));
		if (!in)
			return;
		in->blame = -1;
		in->insn.fault_mem = -1;
		in->arch = f->arch;
		in->pointer_size = f->pointer_size;
		if (sf->fault_signo)
			in->sig = (struct ct_signal_facts){ .fatal = true, .signo = sf->fault_signo, .has_code = true,
							    .code = sf->fault_code, .kernel_sent = true,
							    .code_name = ct_signal_code_name(sf->fault_signo, sf->fault_code),
							    .has_fault_address = sf->fault_has_address,
							    .fault_address = sf->fault_addr, .has_pid = f->sig.has_pid,
							    .pid = f->sig.pid };
		else
			in->sig = (struct ct_signal_facts){ .fatal = true, .signo = sf->si_signo, .has_code = true,
							    .code = sf->si_code, .user_sent = true,
							    .code_name = ct_signal_code_name(sf->si_signo, sf->si_code),
							    .has_sender = true, .sender_pid = sf->si_pid,
							    .sender_uid = sf->si_uid, .has_pid = f->sig.has_pid,
							    .pid = f->sig.pid };
		in->frames = f->frames + sf->frame + 1;
		in->frame_base = sf->frame + 1;
		in->num_frames = f->num_frames > sf->frame + 1 && sf->stepped ? f->num_frames - sf->frame - 1 : 0;
		in->stack.num_frames = in->num_frames;
		in->stack.truncated = f->stack.truncated;
		in->blame = ct_find_blame(in->frames, in->num_frames);
		ct_find_recursion(in->frames, in->num_frames, &in->stack);
		gather_context(s, in, st, sf->regs, sf->valid, CT_SIGFRAME_REGS, sf->pc, sf->sp);
		st->reraised = in;
		f->reraised = in;
		f->reraised_sigframe = k;
		return;
	}
}

void ct_facts_gather(const struct ct_triage_input *s, struct ct_facts *f, struct ct_facts_storage *st)
{
	const struct ct_core *core = s->core;
	const struct ct_arch_info *arch = core->arch;
	memset(f, 0, sizeof(*f));
	f->blame = -1;
	f->insn.fault_mem = -1;
	f->arch = ct_strpool_intern(s->out.strings, core->arch_name ? core->arch_name : "unknown");
	f->pointer_size = arch ? arch->pointer_size : 8;
	gather_signal(s, &f->sig);
	gather_maps(s, st);
	gather_frames(s, f, st);
	f->blame = ct_find_blame(f->frames, f->num_frames);
	ct_panic_find(f);
	if (f->sig.signo == CT_SIGABRT) {
		ct_panic_read(s, f);
		ct_go_fatal_read(s, f);
	}
	f->runtime = s->runtime;
	ct_find_recursion(f->frames, f->num_frames, &f->stack);
	const struct ct_core_thread *ct = subject_core_thread(s);
	uint64_t limit = arch ? arch->user_address_limit : 0;
	if (ct && ct->has_regs && arch) {
		gather_context(s, f, st, ct->dwarf, ct->valid, CT_MAX_DWARF_REGS, ct->pc, ct->sp);
		diag_undecodable(s, f);
	} else if (f->sig.has_fault_address) {
		ct_place_address(f->sig.fault_address, st->maps, st->num_maps, limit, NULL, &f->fault);
	}
	gather_sigframes(s, f, st);
	// std::terminate called by the C++ personality routine: the exception could not leave a frame.
	for (long i = 0; f->sig.signo == CT_SIGABRT && i < f->blame; i++) {
		if (f->frames[i].function && strcmp(f->frames[i].function, "__gxx_personality_v0") == 0) {
			long nf = ct_find_noexcept_frame(s, f);
			if (nf >= 0) {
				f->terminate_in_personality = true;
				f->noexcept_frame = nf;
				f->blame = nf;
			}
			break;
		}
	}
	if (f->sig.signo == CT_SIGABRT)
		ct_find_last_call(s, f, &f->last_call);
	if (f->sig.signo == CT_SIGABRT || !f->sig.fatal) {
		const char *msg = ct_read_abort_msg(s);
		if (msg)
			ct_abort_parse(s->out.strings, msg, &f->abort_msg);
	}
}
