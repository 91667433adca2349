// Facts from a process-core session: signal, mappings, the faulting instruction, stack, frames,
// abort message, exception type, culprit variable.
#include <stdlib.h>
#include <string.h>

#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/insn.h"

/** Bytes before a return address checked for a call instruction (x86 calls are at most 7 bytes + prefixes). */
#define CALL_WINDOW 16

void ct_facts_storage_deinit(struct ct_facts_storage *st)
{
	free(st->frames);
	free(st->maps);
	st->frames = NULL;
	st->maps = NULL;
}

static const struct ct_core_thread *crashing_core_thread(const struct ct_core *core, int tid)
{
	for (size_t i = 0; i < core->num_threads; i++) {
		if (core->threads[i].tid == tid)
			return &core->threads[i];
	}
	return core->num_threads ? &core->threads[0] : NULL;
}

static void gather_signal(struct ct_session *s, struct ct_signal_facts *sig)
{
	const struct ct_report *r = s->report;
	sig->fatal = r->crashing_thread != 0;
	sig->signo = r->signal.present ? r->signal.number : 0;
	sig->has_code = r->signal.has_code;
	sig->code = r->signal.code;
	sig->code_name = r->signal.has_code ? ct_signal_code_name(sig->signo, sig->code) : NULL;
	sig->has_fault_address = r->signal.has_fault_address;
	sig->fault_address = r->signal.fault_address;
	sig->has_sender = r->signal.has_sender;
	sig->sender_pid = r->signal.sender_pid;
	sig->sender_uid = r->signal.sender_uid;
	sig->has_pid = r->process.has_pid;
	sig->pid = r->process.pid;
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

/** Index of the last element of sorted @p maps whose start is <= @p addr, or n when none. */
static size_t map_floor(const struct ct_mapping_fact *maps, size_t n, uint64_t addr)
{
	size_t lo = ct_mapping_upper(maps, n, addr);
	return lo ? lo - 1 : n;
}

static void gather_maps(struct ct_session *s, struct ct_facts_storage *st)
{
	const struct ct_core *core = s->core;
	st->maps = calloc(core->num_segments ? core->num_segments : 1, sizeof(*st->maps));
	if (!st->maps)
		return;
	// Cores can have 10^5 segments and NT_FILE entries: sort both and search, never nest loops.
	const struct ct_file_mapping **files = calloc(core->num_files ? core->num_files : 1, sizeof(*files));
	for (size_t j = 0; files && j < core->num_files; j++)
		files[j] = &core->files[j];
	if (files)
		qsort(files, core->num_files, sizeof(*files), compare_files);
	for (size_t i = 0; i < core->num_segments; i++) {
		const struct ct_segment *seg = &core->segments[i];
		struct ct_mapping_fact *m = &st->maps[st->num_maps++];
		m->present = true;
		m->start = seg->vaddr;
		m->end = seg->vaddr + seg->memsz;
		m->flags = seg->flags;
		size_t lo = 0, hi = files ? core->num_files : 0;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (files[mid]->start <= m->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && m->start < files[lo - 1]->end) {
			const struct ct_file_mapping *fm = files[lo - 1];
			m->file = ct_report_strdup(s->report, fm->path);
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
	struct ct_session *s = arg;
	return ct_modules_read_code(s, addr, buf, len);
}

static void gather_frames(struct ct_session *s, struct ct_facts *f, struct ct_facts_storage *st)
{
	struct ct_report *r = s->report;
	const struct ct_thread *t = ct_report_crashing_thread(r);
	if (!t && r->num_threads)
		t = &r->threads[0];
	if (!t || !t->num_frames)
		return;
	st->frames = calloc(t->num_frames, sizeof(*st->frames));
	if (!st->frames)
		return;
	for (size_t i = 0; i < t->num_frames; i++) {
		const struct ct_frame *fr = &t->frames[i];
		struct ct_frame_fact *ff = &st->frames[i];
		ff->pc = fr->pc;
		ff->function = ct_normalize_function(r, fr->function);
		ff->module = fr->module;
		ff->file = fr->file;
		ff->line = fr->line;
		ff->inlined = fr->inlined;
		ff->signal_frame = fr->signal_frame;
		ff->scanned = fr->trust == CT_TRUST_SCAN;
		// Callers are attributed at pc - 1 (the return address may be past the function's end).
		uint64_t lookup = i && fr->pc && !t->frames[i - 1].signal_frame ? fr->pc - 1 : fr->pc;
		const struct ct_module_state *m = ct_modules_find(s, lookup);
		if (!m) {
			ff->library = false;
			ff->own = false;
			continue;
		}
		ff->has_module_offset = true;
		ff->module_offset = fr->pc - m->start;
		bool system = m->is_vdso || (!m->is_main && ct_path_is_system(m->path));
		// Own module, but the frame is a system header inlined into it (fortify wrappers) or
		// runtime code linked in without debug info while the module has some (static libc, crt).
		bool header = fr->file && ct_path_is_system(fr->file);
		// A module with DWARF: frames without a source line are linked-in runtime (libc.a,
		// libc_nonshared.a's __stack_chk_fail_local, crt1.o's _start), not the program's code.
		Dwarf_Addr dbias;
		bool runtime = !system && !fr->file && m->dwfl_module && dwfl_module_getdwarf(m->dwfl_module, &dbias);
		ff->library = system || header || runtime;
		ff->own = !ff->library && !fr->signal_frame;
	}
	f->frames = st->frames;
	f->num_frames = t->num_frames;
	f->stack.num_frames = t->num_frames;
	f->stack.truncated = t->truncated;
}

static void gather_insn(struct ct_session *s, struct ct_facts *f, const struct ct_core_thread *ct)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint8_t code[16];
	size_t len = sizeof(code);
	while (len && !ct_modules_read_code(s, f->pc, code, len))
		len--;
	uint8_t before[2];
	bool have_before = f->pc >= 2 && ct_modules_read_code(s, f->pc - 2, before, 2);
	struct ct_insn_ctx ctx = { .regs = ct->dwarf, .valid = ct->valid, .num_regs = CT_MAX_DWARF_REGS, .pc = f->pc,
				   .read = read_data, .arg = s, .values = ct->values, .num_values = ct->num_values };
	ct_insn_decode(arch, len ? code : NULL, len, have_before ? before : NULL, have_before ? 2 : 0, &ctx,
		       &f->insn);
}

void ct_facts_gather(struct ct_session *s, struct ct_facts *f, struct ct_facts_storage *st)
{
	struct ct_report *r = s->report;
	const struct ct_core *core = s->core;
	const struct ct_arch_info *arch = core->arch;
	memset(f, 0, sizeof(*f));
	f->blame = -1;
	f->insn.fault_mem = -1;
	f->arch = r->input.arch;
	f->pointer_size = arch ? arch->pointer_size : 8;
	gather_signal(s, &f->sig);
	gather_maps(s, st);
	gather_frames(s, f, st);
	f->blame = ct_find_blame(f->frames, f->num_frames);
	ct_find_recursion(f->frames, f->num_frames, &f->stack);
	const struct ct_core_thread *ct = crashing_core_thread(core, r->crashing_thread);
	uint64_t limit = arch ? arch->user_address_limit : 0;
	if (ct && ct->has_regs && arch) {
		f->has_pc = true;
		f->pc = ct->pc;
		bool outside = false;
		const struct ct_mapping_fact *stack = stack_of(st, ct->sp, &outside);
		ct_place_address(f->pc, st->maps, st->num_maps, limit, stack, &f->pc_addr);
		f->stack.valid = true;
		f->stack.sp = ct->sp;
		f->stack.sp_outside = outside;
		if (stack) {
			f->stack.has_stack = true;
			f->stack.stack_start = stack->start;
			f->stack.stack_end = stack->end;
		}
		struct ct_address_facts spa;
		ct_place_address(ct->sp, st->maps, st->num_maps, limit, NULL, &spa);
		f->stack.sp_in_guard = spa.in_stack_guard;
		f->has_sp_word = ct_core_read_word(core, ct->sp, &f->sp_word);
		if (f->has_sp_word) {
			uint8_t b[CALL_WINDOW];
			f->sp_word_after_call = f->sp_word > CALL_WINDOW && arch->is_after_call &&
						ct_modules_read_code(s, f->sp_word - CALL_WINDOW, b, sizeof(b)) &&
						arch->is_after_call(b, sizeof(b));
		}
		f->has_popped_word = ct_core_read_word(core, ct->sp - f->pointer_size, &f->popped_word);
		gather_insn(s, f, ct);
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
			f->exception_type = ct_find_exception_type(s, ct->sp, stack->end);
		if ((f->sig.signo == CT_SIGSEGV || f->sig.signo == CT_SIGBUS) && f->insn.decoded && f->num_frames &&
		    f->frames[0].own)
			f->culprit = ct_find_culprit(s, f, ct->dwarf, ct->valid);
	} else if (f->sig.has_fault_address) {
		ct_place_address(f->sig.fault_address, st->maps, st->num_maps, limit, NULL, &f->fault);
	}
	if (f->sig.signo == CT_SIGABRT)
		ct_find_last_call(s, f, &f->last_call);
	if (f->sig.signo == CT_SIGABRT || !f->sig.fatal) {
		const char *msg = ct_read_abort_msg(s);
		if (msg)
			ct_abort_parse(r, msg, &f->abort_msg);
	}
}
