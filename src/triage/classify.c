// The classifier: an ordered rule table over struct ct_facts (docs/classes.md). The first
// rule whose `when` holds wins; its `fill` writes the verdict. Both are pure functions of the facts.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/heap.h"
#include "triage/triage.h"

/* ---- helpers over facts ---- */

static bool sig_is(const struct ct_facts *f, int signo)
{
	return f->sig.fatal && f->sig.signo == signo;
}

static bool code_is(const struct ct_facts *f, int code)
{
	return f->sig.has_code && f->sig.code == code;
}

/** A fault the kernel raised (not sent by a process). Without siginfo, assume it when not known sent. */
bool ct_facts_kernel_fault(const struct ct_facts *f)
{
	return f->sig.fatal && (f->sig.kernel_sent || !f->sig.has_code);
}

/** The kernel's fault address is meaningful (x86 #GP reports SI_KERNEL and 0). */
static bool kernel_address_usable(const struct ct_facts *f)
{
	return f->sig.has_fault_address && f->fault.valid && !code_is(f, CT_SI_KERNEL);
}

/** The data address the rules use: the kernel's, else the one the instruction computes. */
static const struct ct_address_facts *data_address(const struct ct_facts *f)
{
	if (kernel_address_usable(f))
		return &f->fault;
	if (f->computed.valid)
		return &f->computed;
	return NULL;
}

/** The function at frame @p i is one of @p names (library frames are fair evidence). */
static long find_frame(const struct ct_facts *f, const char *const *names)
{
	for (size_t i = 0; i < f->num_frames; i++) {
		const char *fn = f->frames[i].function;
		if (!fn || f->frames[i].own)
			continue;
		for (const char *const *n = names; *n; n++) {
			size_t len = strlen(*n);
			// Demangled C++ names carry parameters: "std::terminate()" matches "std::terminate".
			if (strncmp(fn, *n, len) == 0 && (fn[len] == '\0' || fn[len] == '('))
				return (long)i;
		}
	}
	return -1;
}

static const char *const assert_frames[] = { "__assert_fail", "__assert_perror_fail", "__assert_fail_base", NULL };
static const char *const stack_chk_frames[] = { "__stack_chk_fail", "__stack_chk_fail_local", NULL };
static const char *const fortify_frames[] = { "__chk_fail", "__fortify_fail", NULL };
static const char *const malloc_abort_frames[] = { "malloc_printerr", NULL };
static const char *const throw_frames[] = { "__cxa_throw", "__cxa_rethrow", "std::rethrow_exception",
					    "_Unwind_Resume", "__gxx_personality_v0", NULL };
static const char *const terminate_frames[] = { "std::terminate", "__cxxabiv1::__terminate",
						"__gnu_cxx::__verbose_terminate_handler", "__cxa_call_terminate", NULL };
static const char *const abort_frames[] = { "abort", NULL };
// glibc 2.36 malloc/malloc.c internals and the public entry points that reach them.
static const char *const allocator_frames[] = {
	"_int_free",	 "_int_malloc",	   "_int_realloc",   "_int_memalign", "malloc_consolidate",
	"unlink_chunk",	 "tcache_get",	   "tcache_put",     "tcache_init",   "tcache_thread_shutdown",
	"malloc",	 "free",	   "realloc",	     "calloc",	      "__libc_malloc",
	"__libc_free",	 "__libc_realloc", "__libc_calloc",  "cfree",	      "sysmalloc",
	"_int_free_merge_chunk", "_int_free_create_chunk", "_int_free_maybe_consolidate", NULL,
};

// Imports the program's last call may reach through its PLT/GOT (struct ct_call_facts), by class.
// Mangled C++ names are matched as they are in .dynsym.
static const char *const assert_imports[] = { "__assert_fail", "__assert_perror_fail", "__assert", NULL };
static const char *const stack_chk_imports[] = { "__stack_chk_fail", "__stack_chk_fail_local", NULL };
static const char *const fortify_imports[] = { "__chk_fail", "__fortify_fail", NULL };
static const char *const heap_imports[] = {
	"free", "malloc", "calloc", "realloc", "reallocarray", "cfree", "posix_memalign", "aligned_alloc",
	"memalign", "valloc", "pvalloc", "malloc_trim", NULL,
};
// operator new/new[]/delete/delete[] in every overload: _Znwm, _ZdlPvm, _ZdaPvSt11align_val_t, …
static const char *const heap_import_prefixes[] = { "_Znw", "_Zna", "_Zdl", "_Zda", NULL };
static const char *const throw_imports[] = {
	"__cxa_throw", "__cxa_rethrow", "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE",
	"_ZSt9terminatev", "__cxa_call_terminate", "__cxa_call_unexpected", NULL,
};
static const char *const abort_imports[] = { "abort", NULL };

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++) {
		if (strcmp(name, *list) == 0)
			return true;
	}
	return false;
}

/** The program's last call reached an import of @p list (bound to a library, not to its own code). */
static bool import_is(const struct ct_facts *f, const char *const *list)
{
	const struct ct_call_facts *c = &f->last_call;
	return c->symbol && !c->resolved_own && name_in(c->symbol, list);
}

/** __chk_fail, __fortify_fail, or any checked function __<name>_chk (__memcpy_chk, __printf_chk, …). */
static bool import_is_fortify(const struct ct_facts *f)
{
	const struct ct_call_facts *c = &f->last_call;
	if (!c->symbol || c->resolved_own)
		return false;
	size_t len = strlen(c->symbol);
	return name_in(c->symbol, fortify_imports) ||
	       (len > 6 && strncmp(c->symbol, "__", 2) == 0 && strcmp(c->symbol + len - 4, "_chk") == 0);
}

static bool import_is_heap(const struct ct_facts *f)
{
	const struct ct_call_facts *c = &f->last_call;
	if (!c->symbol || c->resolved_own)
		return false;
	if (name_in(c->symbol, heap_imports))
		return true;
	for (const char *const *p = heap_import_prefixes; *p; p++) {
		if (strncmp(c->symbol, *p, strlen(*p)) == 0)
			return true;
	}
	return false;
}

/** The abort-family class the program's last call points to, or CT_CLASS_UNKNOWN. */
static enum ct_class import_class(const struct ct_facts *f)
{
	if (import_is(f, assert_imports))
		return CT_CLASS_ASSERTION_FAILURE;
	if (import_is(f, stack_chk_imports))
		return CT_CLASS_STACK_BUFFER_OVERFLOW;
	if (import_is_fortify(f))
		return CT_CLASS_FORTIFY_FAILURE;
	if (import_is_heap(f))
		return CT_CLASS_HEAP_CORRUPTION;
	if (import_is(f, throw_imports))
		return CT_CLASS_UNCAUGHT_EXCEPTION;
	if (import_is(f, abort_imports))
		return CT_CLASS_ABORT;
	return CT_CLASS_UNKNOWN;
}

/**
 * The dump names the abort's cause by itself: a glibc message of a known kind, or a named library
 * frame of the family (__assert_fail, __stack_chk_fail, __chk_fail, malloc_printerr, std::terminate,
 * __cxa_throw). The program's last call is used only without these: it is weaker (a call made, not
 * the check that fired) and must never override them.
 */
static bool abort_cause_known(const struct ct_facts *f)
{
	enum ct_abort_kind k = f->abort_msg.kind;
	if (k == CT_ABORT_ASSERTION || k == CT_ABORT_STACK_SMASHING || k == CT_ABORT_FORTIFY || k == CT_ABORT_MALLOC)
		return true;
	return find_frame(f, assert_frames) >= 0 || find_frame(f, stack_chk_frames) >= 0 ||
	       find_frame(f, fortify_frames) >= 0 || find_frame(f, malloc_abort_frames) >= 0 ||
	       find_frame(f, terminate_frames) >= 0 || find_frame(f, throw_frames) >= 0;
}

/** Last-call evidence for an abort-family rule: the program's last call names class @p cls. */
static bool import_says(const struct ct_facts *f, enum ct_class cls)
{
	return cls != CT_CLASS_UNKNOWN && import_class(f) == cls && !abort_cause_known(f);
}

static bool is_fill_pattern(uint64_t v)
{
	// 0x4141…, 0xdead…, 0xcccc…: the same byte repeated. The lowest byte is ignored (a jump to a
	// pattern is aligned down on aarch64/riscv: 0x4141414141414140); 32- and 48-bit patterns count.
	uint8_t b = (uint8_t)(v >> 8);
	if (b == 0 || b == 0xff)
		return false;
	int same = 1;
	for (int i = 2; i < 8 && (uint8_t)(v >> (8 * i)) == b; i++)
		same++;
	// At least 0x??414141?? (three repeated bytes above the lowest one), and nothing else above them.
	return same >= 3 && (same == 7 || v >> (8 * (same + 1)) == 0);
}

/** Location of the blamed frame: "list_sum (crashme.c:63)". Pooled. */
static const char *blame_location(const struct ct_facts *f, struct ct_verdict *r)
{
	if (f->blame < 0 || (size_t)f->blame >= f->num_frames)
		return NULL;
	const struct ct_frame_fact *fr = &f->frames[f->blame];
	const char *fn = fr->function ? fr->function
		: fr->module && fr->has_module_offset ? ct_strpool_printf(r->strings, "%s+0x%" PRIx64, fr->module, fr->module_offset)
		: !fr->module && fr->own ? ct_strpool_printf(r->strings, "JIT code at 0x%" PRIx64, fr->pc)
					 : "??";
	if (fr->file && fr->line) {
		const char *base = strrchr(fr->file, '/');
		return ct_strpool_printf(r->strings, "%s (%s:%d)", fn, base ? base + 1 : fr->file, fr->line);
	}
	return ct_strpool_printf(r->strings, "%s", fn);
}

/**
 * What the thread was doing (docs/hangs.md): " while blocked in nanosleep(5 s) in slow_flush (x.c:9)",
 * " while in list_sum (crashme.c:63)" without a blocking call, or "". Pooled.
 */
static const char *while_doing(const struct ct_facts *f, struct ct_verdict *r)
{
	const char *loc = blame_location(f, r);
	if (f->blocked_in)
		return ct_strpool_printf(r->strings, " while blocked in %s%s%s", f->blocked_in, loc ? " in " : "", loc ? loc : "");
	return loc ? ct_strpool_printf(r->strings, " while in %s", loc) : "";
}

/** " in list_sum (crashme.c:63)" or "". Pooled. */
static const char *in_blame(const struct ct_facts *f, struct ct_verdict *r)
{
	const char *loc = blame_location(f, r);
	return loc ? ct_strpool_printf(r->strings, " in %s", loc) : "";
}

static const char *perms(struct ct_verdict *r, uint32_t flags)
{
	return ct_strpool_printf(r->strings, "%c%c%c", flags & CT_PF_R ? 'r' : '-', flags & CT_PF_W ? 'w' : '-',
				flags & CT_PF_X ? 'x' : '-');
}

static const char *mapping_text(struct ct_verdict *r, const struct ct_mapping_fact *m)
{
	return ct_strpool_printf(r->strings, "0x%" PRIx64 "-0x%" PRIx64 " %s%s%s%s", m->start, m->end, perms(r, m->flags),
				m->file ? " " : "", m->file ? m->file : (m->is_stack ? " [stack]" : " [anon]"), "");
}

static void evidence_address(struct ct_verdict *r, const char *what, const struct ct_address_facts *a)
{
	if (!a || !a->valid)
		return;
	if (a->mapping.present) {
		ct_crash_add_evidence(&r->crash, r->strings, "%s 0x%" PRIx64 " is in mapping %s", what, a->address,
				      mapping_text(r, &a->mapping));
	} else if (a->non_canonical) {
		ct_crash_add_evidence(&r->crash, r->strings, "%s 0x%" PRIx64 " is non-canonical", what, a->address);
	} else if (a->nearest.present) {
		ct_crash_add_evidence(&r->crash, r->strings, "%s 0x%" PRIx64 " is unmapped; nearest mapping %s at distance 0x%" PRIx64, what,
				      a->address, mapping_text(r, &a->nearest), a->distance);
	} else {
		ct_crash_add_evidence(&r->crash, r->strings, "%s 0x%" PRIx64 " is unmapped", what, a->address);
	}
}

static void evidence_insn(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_insn_facts *in = &f->insn;
	if (!in->decoded)
		return;
	char ops[256] = "";
	size_t used = 0;
	for (size_t i = 0; i < in->num_mem && used < sizeof(ops); i++) {
		const struct ct_mem_operand *m = &in->mem[i];
		if (m->base && m->has_base_value)
			used += (size_t)snprintf(ops + used, sizeof(ops) - used, " with %s = 0x%" PRIx64, m->base,
						 m->base_value);
		if (m->has_address && used < sizeof(ops))
			used += (size_t)snprintf(ops + used, sizeof(ops) - used, ", address 0x%" PRIx64, m->address);
	}
	ct_crash_add_evidence(&r->crash, r->strings, "instruction at 0x%" PRIx64 ": %s%s%s", in->address, in->text, ops,
			      in->decoder && strcmp(in->decoder, "zydis") == 0
				      ? " (decoded by Zydis: capstone 4 cannot decode this encoding)"
				      : "");
}

/** Common verdict setter. */
static void verdict(struct ct_verdict *r, enum ct_class cls, const char *subclass, enum ct_confidence c)
{
	r->crash.cls = cls;
	r->crash.subclass = subclass ? ct_strpool_intern(r->strings, subclass) : NULL;
	r->crash.confidence = c;
}

static void set_address(struct ct_verdict *r, const struct ct_address_facts *a, enum ct_address_kind kind)
{
	if (!a || !a->valid)
		return;
	r->crash.has_address = true;
	r->crash.address = a->address;
	r->crash.has_address_kind = true;
	r->crash.address_kind = kind;
}

static enum ct_address_kind address_kind(const struct ct_address_facts *a)
{
	if (a->near_null)
		return CT_ADDRESS_NULL;
	if (a->non_canonical)
		return CT_ADDRESS_NON_CANONICAL;
	if (a->in_stack_guard)
		return CT_ADDRESS_STACK_GUARD;
	if (!a->mapping.present)
		return CT_ADDRESS_UNMAPPED;
	return CT_ADDRESS_MAPPED;
}

static const char *access_or(const struct ct_facts *f, const char *fallback)
{
	const char *a = ct_access_to_string(f->insn.access);
	return a ? a : fallback;
}

static void set_access(const struct ct_facts *f, struct ct_verdict *r)
{
	r->crash.access = f->insn.access;
}

/**
 * Compares the kernel's fault address with the computed one. Returns true when they disagree (and
 * says so in the evidence).
 */
static bool addresses_disagree(const struct ct_facts *f, struct ct_verdict *r)
{
	if (!kernel_address_usable(f) || !f->computed.valid)
		return false;
	uint64_t k = f->fault.address, c = f->computed.address;
	unsigned size = 16;
	if (f->insn.fault_mem >= 0 && f->insn.mem[f->insn.fault_mem].size > size)
		size = f->insn.mem[f->insn.fault_mem].size;
	// The kernel reports the first byte that faulted: at or just after the operand's start.
	if (k >= c && k - c < size)
		return false;
	ct_crash_add_evidence(&r->crash, r->strings,
			      "conflict: the kernel's fault address 0x%" PRIx64
			      " differs from the address the instruction computes, 0x%" PRIx64,
			      k, c);
	return true;
}

static enum ct_confidence lower(enum ct_confidence c)
{
	return c == CT_CONFIDENCE_HIGH ? CT_CONFIDENCE_MEDIUM : CT_CONFIDENCE_LOW;
}

static const char *signal_name(const struct ct_facts *f, struct ct_verdict *r)
{
	const char *n = ct_signal_name(f->sig.signo);
	return n ? n : ct_strpool_printf(r->strings, "signal %d", f->sig.signo);
}

/* ---- rules ---- */

static bool when_no_signal(const struct ct_facts *f)
{
	return !f->sig.fatal;
}

static void fill_no_signal(const struct ct_facts *f, struct ct_verdict *r)
{
	verdict(r, CT_CLASS_NO_SIGNAL, NULL, CT_CONFIDENCE_HIGH);
	ct_crash_add_evidence(&r->crash, r->strings, "no thread's prstatus carries a signal (pr_cursig 0): a live snapshot");
	if (f->sig.signo)
		ct_crash_add_evidence(&r->crash, r->strings, "siginfo holds signal %d (%s) but no thread stopped on it (e.g. a debugger's attach)",
				      f->sig.signo, signal_name(f, r));
	const char *loc = blame_location(f, r);
	if (f->blocked_in)
		r->crash.summary = ct_strpool_printf(r->strings, "no crash: snapshot of a running process, first thread blocked in %s%s%s",
						    f->blocked_in, loc ? " in " : "", loc ? loc : "");
	else
		r->crash.summary = ct_strpool_printf(r->strings, "no crash: snapshot of a running process%s%s",
						    loc ? ", first thread in " : "", loc ? loc : "");
}

static bool when_external_signal(const struct ct_facts *f)
{
	if (!f->sig.fatal || !f->sig.user_sent)
		return false;
	// Unknown sender (no siginfo sender): treated as external, with low confidence.
	return !f->sig.has_sender || !f->sig.has_pid || f->sig.sender_pid != f->sig.pid;
}

static void fill_external_signal(const struct ct_facts *f, struct ct_verdict *r)
{
	if (!f->sig.has_sender) {
		verdict(r, CT_CLASS_EXTERNAL_SIGNAL, NULL, CT_CONFIDENCE_LOW);
		ct_crash_add_evidence(&r->crash, r->strings, "si_code says a process sent the signal, but the sender is not recorded");
		r->crash.summary = ct_strpool_printf(r->strings, "%s sent by a process (sender unknown)", signal_name(f, r));
		return;
	}
	verdict(r, CT_CLASS_EXTERNAL_SIGNAL, NULL, f->sig.has_pid ? CT_CONFIDENCE_HIGH : CT_CONFIDENCE_MEDIUM);
	ct_crash_add_evidence(&r->crash, r->strings, "sender pid %d (uid %d) is not the dumped process (pid %d)", f->sig.sender_pid,
			      f->sig.sender_uid, f->sig.pid);
	ct_crash_add_detail_int(&r->crash, r->strings, "sender_pid", f->sig.sender_pid);
	ct_crash_add_detail_int(&r->crash, r->strings, "sender_uid", f->sig.sender_uid);
	r->crash.summary = ct_strpool_printf(r->strings, "%s sent by another process (pid %d, uid %d)%s", signal_name(f, r),
					    f->sig.sender_pid, f->sig.sender_uid, while_doing(f, r));
}

/** SIGABRT from the process itself (abort() raises it with SI_TKILL from its own pid). */
static bool self_abort(const struct ct_facts *f)
{
	return sig_is(f, CT_SIGABRT) && (!f->sig.has_code || f->sig.user_sent || f->sig.code == CT_SI_KERNEL);
}

/**
 * The library frames before the blamed one are incomplete: one has no name (no symbols for libc: a
 * core from elsewhere), or the unwinder lost the chain and a stack scan found the rest.
 */
static bool library_frames_incomplete(const struct ct_facts *f)
{
	size_t end = f->blame >= 0 ? (size_t)f->blame : f->num_frames;
	for (size_t i = 0; i <= end && i < f->num_frames; i++) {
		if ((i < end && !f->frames[i].function && !f->frames[i].signal_frame) || f->frames[i].scanned)
			return true;
	}
	return false;
}

/** "free", "std::terminate()": the last call's import for people. */
static const char *last_call_name(const struct ct_facts *f)
{
	const struct ct_call_facts *c = &f->last_call;
	return c->display ? c->display : c->symbol;
}

/**
 * Evidence of the program's last call for a verdict of class @p cls. Returns true when it points
 * to another abort-family class (a conflict, said in the evidence).
 */
static bool evidence_last_call(const struct ct_facts *f, struct ct_verdict *r, enum ct_class cls)
{
	const struct ct_call_facts *c = &f->last_call;
	if (!c->present || !c->symbol)
		return false;
	ct_crash_add_evidence(&r->crash, r->strings, "the blamed frame's last call, at 0x%" PRIx64 ", goes to %s@%s%s%s%s%s", c->site,
			      last_call_name(f), c->via ? c->via : "plt", c->resolved_module ? " (bound to " : "",
			      c->resolved_module ? c->resolved_module : "", c->resolved_module ? ")" : "",
			      c->scanned ? "; that frame was found by stack scanning" : "");
	ct_crash_add_detail_string(&r->crash, r->strings, "last_call", last_call_name(f));
	if (c->resolved_own) {
		ct_crash_add_evidence(&r->crash, r->strings, "%s is bound to the program's own code, so it is not library evidence",
				      last_call_name(f));
		return false;
	}
	enum ct_class ic = import_class(f);
	if (ic != CT_CLASS_UNKNOWN && ic != cls) {
		ct_crash_add_evidence(&r->crash, r->strings, "conflict: the program's last call (%s) points to %s", last_call_name(f),
				      ct_class_to_string(ic));
		return true;
	}
	return false;
}

/**
 * Shared by the abort-family rules (class @p cls): the frame, message and last-call evidence;
 * records agreement and returns the confidence. High: the abort message and a library frame or the
 * last call agree, or a library frame alone. Medium: the message alone, or the last call alone (a call
 * the program made, not the check that fired; without libc nothing else survives).
 */
static enum ct_confidence abort_confidence(const struct ct_facts *f, struct ct_verdict *r, enum ct_class cls,
					   long frame, bool msg_matches, bool import_matches, const char *what)
{
	enum ct_confidence c;
	if (frame >= 0)
		ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld is %s (%s)", frame, f->frames[frame].function,
				      f->frames[frame].module ? f->frames[frame].module : "?");
	if (f->abort_msg.present)
		ct_crash_add_evidence(&r->crash, r->strings, "glibc __abort_msg: \"%s\"", f->abort_msg.text);
	bool conflict = evidence_last_call(f, r, cls);
	if (msg_matches && (frame >= 0 || import_matches)) {
		c = CT_CONFIDENCE_HIGH;
	} else if (frame >= 0 && f->abort_msg.present && !msg_matches) {
		ct_crash_add_evidence(&r->crash, r->strings, "conflict: the frames show %s but the abort message is of kind %s", what,
				      ct_abort_kind_to_string(f->abort_msg.kind));
		c = CT_CONFIDENCE_MEDIUM;
	} else if (msg_matches) {
		if (library_frames_incomplete(f))
			ct_crash_add_evidence(&r->crash, r->strings, "the library frames are incomplete (unnamed, or skipped by a stack scan): only the abort message says %s",
					      what);
		else
			ct_crash_add_evidence(&r->crash, r->strings, "conflict: the abort message says %s but no such library frame was unwound",
					      what);
		c = CT_CONFIDENCE_MEDIUM;
	} else if (frame >= 0) {
		// Frame only, no message (the message was not saved or not found): the frame is strong.
		c = CT_CONFIDENCE_HIGH;
	} else {
		ct_crash_add_evidence(&r->crash, r->strings, "only the program's last call says %s: no library frame names it and no abort message was found",
				      what);
		c = CT_CONFIDENCE_MEDIUM;
	}
	return conflict ? lower(c) : c;
}

static bool when_assertion(const struct ct_facts *f)
{
	return self_abort(f) && (f->abort_msg.kind == CT_ABORT_ASSERTION || find_frame(f, assert_frames) >= 0 ||
				 import_says(f, CT_CLASS_ASSERTION_FAILURE));
}

static void fill_assertion(const struct ct_facts *f, struct ct_verdict *r)
{
	long fr = find_frame(f, assert_frames);
	bool msg = f->abort_msg.kind == CT_ABORT_ASSERTION;
	verdict(r, CT_CLASS_ASSERTION_FAILURE, NULL,
		abort_confidence(f, r, CT_CLASS_ASSERTION_FAILURE, fr, msg, import_is(f, assert_imports), "a failed assertion"));
	const struct ct_abort_facts *a = &f->abort_msg;
	if (msg) {
		if (a->file)
			ct_crash_add_detail_string(&r->crash, r->strings, "assert_file", a->file);
		if (a->line)
			ct_crash_add_detail_int(&r->crash, r->strings, "assert_line", a->line);
		if (a->function)
			ct_crash_add_detail_string(&r->crash, r->strings, "assert_function", a->function);
		if (a->expression)
			ct_crash_add_detail_string(&r->crash, r->strings, "assert_expression", a->expression);
		// The assert's function and the blamed frame should be the same function.
		if (a->function && f->blame >= 0 && f->frames[f->blame].function &&
		    !strstr(f->frames[f->blame].function, a->function)) {
			ct_crash_add_evidence(&r->crash, r->strings, "conflict: the assertion names function %s but the blamed frame is %s",
					      a->function, f->frames[f->blame].function);
			r->crash.confidence = CT_CONFIDENCE_MEDIUM;
		}
		r->crash.summary = ct_strpool_printf(r->strings, "assertion `%s` failed in %s (%s:%d)",
						    a->expression ? a->expression : "?", a->function ? a->function : "?",
						    a->file ? a->file : "?", a->line);
	} else {
		r->crash.summary = ct_strpool_printf(r->strings, "assertion failed%s (the assertion's text was not recovered)",
						    in_blame(f, r));
	}
}

static bool when_stack_smashing(const struct ct_facts *f)
{
	return self_abort(f) && (f->abort_msg.kind == CT_ABORT_STACK_SMASHING || find_frame(f, stack_chk_frames) >= 0 ||
				 import_says(f, CT_CLASS_STACK_BUFFER_OVERFLOW));
}

static void fill_stack_smashing(const struct ct_facts *f, struct ct_verdict *r)
{
	long fr = find_frame(f, stack_chk_frames);
	verdict(r, CT_CLASS_STACK_BUFFER_OVERFLOW, NULL,
		abort_confidence(f, r, CT_CLASS_STACK_BUFFER_OVERFLOW, fr, f->abort_msg.kind == CT_ABORT_STACK_SMASHING,
				 import_is(f, stack_chk_imports), "a stack-protector failure"));
	if (f->abort_msg.present)
		ct_crash_add_detail_string(&r->crash, r->strings, "message", f->abort_msg.text);
	const char *loc = blame_location(f, r);
	r->crash.summary = ct_strpool_printf(r->strings, "stack buffer overflow: the stack-protector canary of %s was overwritten",
					    loc ? loc : "a frame");
}

static bool when_fortify(const struct ct_facts *f)
{
	return self_abort(f) && (f->abort_msg.kind == CT_ABORT_FORTIFY || find_frame(f, fortify_frames) >= 0 ||
				 import_says(f, CT_CLASS_FORTIFY_FAILURE));
}

/** "memcpy" for __memcpy_chk; NULL for __chk_fail/__fortify_fail or a non-fortify import. Pooled. */
static const char *checked_import(const struct ct_facts *f, struct ct_verdict *r)
{
	const char *sym = f->last_call.symbol;
	if (!import_is_fortify(f) || name_in(sym, fortify_imports))
		return NULL;
	return ct_strpool_printf(r->strings, "%.*s", (int)(strlen(sym) - 6), sym + 2);
}

static void fill_fortify(const struct ct_facts *f, struct ct_verdict *r)
{
	long fr = find_frame(f, fortify_frames);
	verdict(r, CT_CLASS_FORTIFY_FAILURE, NULL,
		abort_confidence(f, r, CT_CLASS_FORTIFY_FAILURE, fr, f->abort_msg.kind == CT_ABORT_FORTIFY, import_is_fortify(f),
				 "a _FORTIFY_SOURCE check failure"));
	if (f->abort_msg.present)
		ct_crash_add_detail_string(&r->crash, r->strings, "message", f->abort_msg.text);
	// The checked call: the inlined fortify wrapper just inside the blamed frame (string_fortified.h's
	// memcpy), else the checked function the program called (__memcpy_chk → memcpy), else the
	// library frame just inside the blamed one.
	const char *checked = NULL;
	const struct ct_frame_fact *inner = f->blame > 0 ? &f->frames[f->blame - 1] : NULL;
	if (inner && inner->inlined && inner->library && inner->function)
		checked = inner->function;
	if (!checked)
		checked = checked_import(f, r);
	if (!checked && inner && inner->function)
		checked = inner->function;
	if (checked)
		ct_crash_add_detail_string(&r->crash, r->strings, "checked_call", checked);
	const char *what = f->abort_msg.kind == CT_ABORT_FORTIFY && !strstr(f->abort_msg.text, "buffer overflow")
		? f->abort_msg.text
		: "buffer overflow";
	const char *loc = blame_location(f, r);
	if (checked)
		r->crash.summary = ct_strpool_printf(r->strings, "%s detected by _FORTIFY_SOURCE in %s()%s%s", what, checked,
						    loc ? " called from " : "", loc ? loc : "");
	else
		r->crash.summary = ct_strpool_printf(r->strings, "%s detected by _FORTIFY_SOURCE%s", what, in_blame(f, r));
}

/** The innermost non-signal frames (before the first own frame) are allocator internals. */
static long allocator_fault_frame(const struct ct_facts *f)
{
	for (size_t i = 0; i < f->num_frames; i++) {
		const struct ct_frame_fact *fr = &f->frames[i];
		if (fr->own)
			return -1;
		if (fr->signal_frame || !fr->function)
			continue;
		for (const char *const *n = allocator_frames; *n; n++) {
			if (strcmp(fr->function, *n) == 0)
				return (long)i;
		}
		// Only the innermost library frames count; a memcpy under free() does not make it heap.
		if (i >= 3)
			return -1;
	}
	return -1;
}

/** The heap state's subclass (src/triage/heap.c): a poisoned tcache entry, an overrun chunk; none. */
static enum ct_heap_subclass heap_state_subclass(const struct ct_facts *f)
{
	if (!f->heap)
		return CT_HEAP_NONE;
	if (f->heap->poison.present && f->heap->poison.bin == CT_HEAP_BIN_TCACHE)
		return CT_HEAP_TCACHE_POISONING;
	if (f->heap->overflow.present)
		return CT_HEAP_OVERFLOW;
	return CT_HEAP_NONE;
}

bool ct_fault_in_allocator(const struct ct_facts *f)
{
	return (sig_is(f, CT_SIGSEGV) || sig_is(f, CT_SIGBUS)) && ct_facts_kernel_fault(f) && allocator_fault_frame(f) >= 0;
}

static bool when_heap(const struct ct_facts *f)
{
	if (self_abort(f))
		return f->abort_msg.kind == CT_ABORT_MALLOC || find_frame(f, malloc_abort_frames) >= 0 ||
		       import_says(f, CT_CLASS_HEAP_CORRUPTION);
	return ct_fault_in_allocator(f);
}

static void fill_heap(const struct ct_facts *f, struct ct_verdict *r)
{
	if (self_abort(f)) {
		long fr = find_frame(f, malloc_abort_frames);
		bool msg = f->abort_msg.kind == CT_ABORT_MALLOC;
		enum ct_confidence c = abort_confidence(f, r, CT_CLASS_HEAP_CORRUPTION, fr, msg, import_is_heap(f),
							"a glibc malloc check failure");
		// What the heap shows outranks what the message says ("free(): invalid pointer" of a
		// chunk whose header an overflow overwrote).
		enum ct_heap_subclass heap_sub = heap_state_subclass(f);
		verdict(r, CT_CLASS_HEAP_CORRUPTION,
			ct_heap_subclass_to_string(heap_sub ? heap_sub : msg ? f->abort_msg.heap_subclass : CT_HEAP_NONE), c);
		if (f->abort_msg.present)
			ct_crash_add_detail_string(&r->crash, r->strings, "message", f->abort_msg.text);
		if (heap_sub) {
			r->crash.summary = ct_strpool_printf(r->strings, "%s (glibc: \"%s\")%s", ct_heap_subclass_summary(heap_sub),
							    msg ? f->abort_msg.text : "heap check failed", in_blame(f, r));
		} else if (msg) {
			r->crash.summary = ct_strpool_printf(r->strings, "%s (\"%s\")%s",
							    ct_heap_subclass_summary(f->abort_msg.heap_subclass), f->abort_msg.text,
							    in_blame(f, r));
		} else if (fr < 0 && import_is_heap(f)) {
			r->crash.summary = ct_strpool_printf(r->strings, "heap corruption detected by the allocator during %s()%s",
							    last_call_name(f), in_blame(f, r));
		} else {
			r->crash.summary = ct_strpool_printf(r->strings, "heap corruption detected by glibc malloc%s", in_blame(f, r));
		}
		return;
	}
	long fr = allocator_fault_frame(f);
	enum ct_heap_subclass heap_sub = heap_state_subclass(f);
	verdict(r, CT_CLASS_HEAP_CORRUPTION, ct_heap_subclass_to_string(heap_sub ? heap_sub : CT_HEAP_CORRUPTED_METADATA),
		CT_CONFIDENCE_MEDIUM);
	ct_crash_add_evidence(&r->crash, r->strings, "the fault is inside the allocator: frame #%ld %s (%s)", fr, f->frames[fr].function,
			      f->frames[fr].module ? f->frames[fr].module : "?");
	evidence_insn(f, r);
	const struct ct_address_facts *a = data_address(f);
	evidence_address(r, "data address", a);
	set_access(f, r);
	if (a)
		set_address(r, a, address_kind(a));
	r->crash.summary = ct_strpool_printf(r->strings, "%s: %s faulted inside %s%s", heap_sub ? ct_heap_subclass_summary(heap_sub) : "heap metadata corrupted",
					    signal_name(f, r), f->frames[fr].function, in_blame(f, r));
}

/**
 * An exception that escaped a noexcept function (blamed at gathering): evidence and summary.
 * Returns false when this is not such a case.
 */
static bool ct_noexcept_escape(const struct ct_facts *f, struct ct_verdict *r, const char *what)
{
	if (!f->terminate_in_personality)
		return false;
	const struct ct_frame_fact *nf = &f->frames[f->noexcept_frame];
	long thrower = ct_find_blame(f->frames, f->num_frames);
	ct_crash_add_evidence(&r->crash, r->strings, "std::terminate was called by the C++ personality routine (__gxx_personality_v0) while the exception unwound");
	ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld %s has an LSDA with no call-site entry for its pc: the exception may not leave it (noexcept)",
			      f->noexcept_frame + (long)f->frame_base, nf->function ? nf->function : "??");
	ct_crash_add_detail_string(&r->crash, r->strings, "noexcept_function", nf->function ? nf->function : "??");
	const char *from = thrower >= 0 && thrower != f->noexcept_frame && f->frames[thrower].function
		? ct_strpool_printf(r->strings, ", thrown in %s", f->frames[thrower].function)
		: "";
	r->crash.summary = ct_strpool_printf(r->strings, "exception%s%s%s escaped noexcept function %s%s", f->exception_type ? " " : "",
					    f->exception_type ? f->exception_type : "", what, blame_location(f, r), from);
	return true;
}

static bool when_uncaught(const struct ct_facts *f)
{
	return self_abort(f) && (find_frame(f, terminate_frames) >= 0 || find_frame(f, throw_frames) >= 0 ||
				 import_says(f, CT_CLASS_UNCAUGHT_EXCEPTION));
}

static void fill_uncaught(const struct ct_facts *f, struct ct_verdict *r)
{
	long term = find_frame(f, terminate_frames), thr = find_frame(f, throw_frames);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	if (term >= 0)
		ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld is %s", term, f->frames[term].function);
	if (thr >= 0)
		ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld is %s", thr, f->frames[thr].function);
	bool conflict = evidence_last_call(f, r, CT_CLASS_UNCAUGHT_EXCEPTION);
	if (term < 0 && thr < 0) {
		ct_crash_add_evidence(&r->crash, r->strings, "only the program's last call says an exception was thrown: no library frame names it");
		c = CT_CONFIDENCE_MEDIUM;
	} else if (thr < 0 && !f->exception_type && !import_is(f, throw_imports)) {
		ct_crash_add_evidence(&r->crash, r->strings, "std::terminate was reached without a throw frame (noexcept violation or a direct call?)");
		c = CT_CONFIDENCE_MEDIUM;
	}
	if (conflict)
		c = lower(c);
	if (f->exception_type) {
		ct_crash_add_evidence(&r->crash, r->strings, "exception type %s (from the std::type_info the throw left on the stack)",
				      f->exception_type);
		ct_crash_add_detail_string(&r->crash, r->strings, "exception_type", f->exception_type);
	}
	verdict(r, CT_CLASS_UNCAUGHT_EXCEPTION, NULL, c);
	if (f->exception_what) {
		ct_crash_add_evidence(&r->crash, r->strings, "what(): \"%s\" (the message of the thrown std::logic_error/std::runtime_error)",
				      f->exception_what);
		ct_crash_add_detail_string(&r->crash, r->strings, "exception_what", f->exception_what);
	}
	const char *what = f->exception_what ? ct_strpool_printf(r->strings, ": \"%s\"", f->exception_what) : "";
	if (ct_noexcept_escape(f, r, what))
		return;
	const char *loc = blame_location(f, r);
	r->crash.summary = ct_strpool_printf(r->strings, "uncaught C++ exception%s%s%s%s", f->exception_type ? " of type " : "",
					    f->exception_type ? f->exception_type : "", what,
					    loc ? ct_strpool_printf(r->strings, " thrown from %s", loc) : "");
}

static bool when_abort(const struct ct_facts *f)
{
	if (!self_abort(f))
		return false;
	if (find_frame(f, abort_frames) >= 0 || f->abort_msg.present || import_is(f, abort_imports))
		return true;
	// No frames to tell abort() from raise(SIGABRT): SI_TKILL from its own pid is what abort() sends.
	return f->sig.has_code && f->sig.code == CT_SI_TKILL && f->sig.from_self;
}

static void fill_abort(const struct ct_facts *f, struct ct_verdict *r)
{
	long fr = find_frame(f, abort_frames);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	bool called_abort = fr >= 0 || import_is(f, abort_imports);
	if (fr >= 0)
		ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld is abort (%s)", fr, f->frames[fr].module ? f->frames[fr].module : "?");
	bool conflict = evidence_last_call(f, r, CT_CLASS_ABORT);
	// Go's throw/fatal (src/triage/panic_read.c): the message when read, else why not (issue 26).
	if (f->go_fatal.message)
		ct_crash_add_evidence(&r->crash, r->strings, "Go fatal error \"%s\" (from %s's closure on the g0 stack)",
				      f->go_fatal.message, f->go_fatal.function);
	else if (f->go_fatal.why_not)
		ct_crash_add_evidence(&r->crash, r->strings, "Go fatal error message not read: %s", f->go_fatal.why_not);
	if (fr < 0 && called_abort) {
		// The program called abort() itself: as good as an abort frame, unless that frame's return
		// address came from a stack scan (it may be stale).
		if (f->last_call.scanned)
			c = CT_CONFIDENCE_MEDIUM;
	} else if (fr < 0) {
		ct_crash_add_evidence(&r->crash, r->strings, "no abort frame unwound; SIGABRT SI_TKILL from the process itself");
		c = CT_CONFIDENCE_MEDIUM;
	}
	if (conflict)
		c = lower(c);
	if (f->abort_msg.present) {
		ct_crash_add_evidence(&r->crash, r->strings, "glibc __abort_msg: \"%s\"", f->abort_msg.text);
		ct_crash_add_detail_string(&r->crash, r->strings, "message", f->abort_msg.text);
	}
	verdict(r, CT_CLASS_ABORT, NULL, c);
	const char *msg = f->abort_msg.present ? ct_strpool_printf(r->strings, ": \"%s\"", f->abort_msg.text) : "";
	if (called_abort || !f->last_call.symbol || f->last_call.resolved_own)
		r->crash.summary = ct_strpool_printf(r->strings, "abort() called%s%s", in_blame(f, r), msg);
	else
		r->crash.summary = ct_strpool_printf(r->strings, "abort during %s()%s%s", last_call_name(f), in_blame(f, r), msg);
}

static bool when_self_signal(const struct ct_facts *f)
{
	return f->sig.fatal && f->sig.user_sent && f->sig.has_sender && f->sig.from_self;
}

static void fill_self_signal(const struct ct_facts *f, struct ct_verdict *r)
{
	verdict(r, CT_CLASS_SELF_SIGNAL, NULL, CT_CONFIDENCE_HIGH);
	ct_crash_add_evidence(&r->crash, r->strings, "sender pid %d is the dumped process itself (%s)", f->sig.sender_pid,
			      f->sig.code_name ? f->sig.code_name : "user-sent");
	ct_crash_add_detail_int(&r->crash, r->strings, "sender_pid", f->sig.sender_pid);
	r->crash.summary = ct_strpool_printf(r->strings, "the process sent itself %s (%s, not a fault)%s", signal_name(f, r),
					    f->sig.code == CT_SI_TKILL ? "raise/tgkill" : f->sig.code_name ? f->sig.code_name : "kill",
					    in_blame(f, r));
}

static bool segv_like(const struct ct_facts *f)
{
	return (sig_is(f, CT_SIGSEGV) || sig_is(f, CT_SIGBUS)) && ct_facts_kernel_fault(f);
}

static bool when_null_call(const struct ct_facts *f)
{
	return segv_like(f) && f->has_pc && f->pc < CT_NEAR_NULL_LIMIT;
}

static void fill_null_call(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	ct_crash_add_evidence(&r->crash, r->strings, "pc 0x%" PRIx64 " is in the null page", f->pc);
	if (f->has_sp_word) {
		ct_crash_add_evidence(&r->crash, r->strings, "return address at [sp]: 0x%" PRIx64 "%s", f->sp_word,
				      f->sp_word_after_call ? ", right after a call instruction" : "");
		if (!f->sp_word_after_call)
			c = CT_CONFIDENCE_MEDIUM;
	}
	verdict(r, CT_CLASS_NULL_CALL, NULL, c);
	r->crash.access = CT_ACCESS_EXEC;
	set_address(r, &f->pc_addr, CT_ADDRESS_NULL);
	r->crash.summary = ct_strpool_printf(r->strings, "call through a NULL function pointer (pc 0x%" PRIx64 ")%s", f->pc,
					    blame_location(f, r) ? ct_strpool_printf(r->strings, " from %s", blame_location(f, r)) : "");
}

static bool when_exec_nx(const struct ct_facts *f)
{
	if (!segv_like(f) || !f->has_pc)
		return false;
	if (f->pc_addr.mapping.present && !(f->pc_addr.mapping.flags & CT_PF_X))
		return true;
	return code_is(f, CT_SEGV_ACCERR) && f->sig.has_fault_address && f->sig.fault_address == f->pc;
}

static void fill_exec_nx(const struct ct_facts *f, struct ct_verdict *r)
{
	verdict(r, CT_CLASS_EXEC_NON_EXECUTABLE, NULL, CT_CONFIDENCE_HIGH);
	evidence_address(r, "pc", &f->pc_addr);
	if (f->sig.has_fault_address && f->sig.fault_address == f->pc)
		ct_crash_add_evidence(&r->crash, r->strings, "the fault address equals pc: the instruction fetch faulted");
	if (f->has_sp_word && f->sp_word_after_call)
		ct_crash_add_evidence(&r->crash, r->strings, "return address at [sp]: 0x%" PRIx64 ", right after a call instruction", f->sp_word);
	r->crash.access = CT_ACCESS_EXEC;
	set_address(r, &f->pc_addr, CT_ADDRESS_MAPPED);
	const struct ct_mapping_fact *m = &f->pc_addr.mapping;
	if (m->present) {
		ct_crash_add_detail_string(&r->crash, r->strings, "mapping_permissions", perms(r, m->flags));
		if (m->file)
			ct_crash_add_detail_string(&r->crash, r->strings, "mapping_file", m->file);
	}
	const char *what = !m->present ? "memory" : m->is_stack ? "the stack" : m->file ? m->file : "anonymous memory (heap)";
	r->crash.summary = ct_strpool_printf(r->strings, "jump into non-executable %s at 0x%" PRIx64 " (%s)%s", what, f->pc,
					    m->present ? perms(r, m->flags) : "?",
					    blame_location(f, r) ? ct_strpool_printf(r->strings, " from %s", blame_location(f, r)) : "");
}

static bool when_stack_overflow(const struct ct_facts *f)
{
	if (!segv_like(f))
		return false;
	const struct ct_address_facts *a = data_address(f);
	if (a && a->in_stack_guard)
		return true;
	if (f->stack.valid && f->stack.far_below && a && a->address < f->stack.stack_start &&
	    a->address + CT_NEAR_NULL_LIMIT >= f->stack.sp)
		return true; // one huge frame: the access is at (or just below) sp, far below the stack
	return f->stack.valid && (f->stack.sp_outside || f->stack.sp_in_guard) && f->stack.has_stack &&
	       !f->stack.far_below;
}

static void fill_stack_overflow(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_address_facts *a = data_address(f);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	if (a)
		evidence_address(r, "fault address", a);
	if (f->stack.valid && f->stack.has_stack)
		ct_crash_add_evidence(&r->crash, r->strings, "sp 0x%" PRIx64 ", stack mapping 0x%" PRIx64 "-0x%" PRIx64 "%s", f->stack.sp,
				      f->stack.stack_start, f->stack.stack_end,
				      f->stack.sp_outside ? " (sp is outside it)" : "");
	if (f->stack.recursion_depth >= 2) {
		ct_crash_add_evidence(&r->crash, r->strings, "recursion: a cycle of %zu frame(s) repeats %zu times from frame #%zu",
				      f->stack.cycle_length, f->stack.recursion_depth, f->stack.cycle_start);
		ct_crash_add_detail_int(&r->crash, r->strings, "recursion_depth", (int64_t)f->stack.recursion_depth);
		ct_crash_add_detail_int(&r->crash, r->strings, "recursion_cycle_length", (int64_t)f->stack.cycle_length);
	} else {
		// A guard-gap hit without recursion: one huge frame (alloca, a large array) or a small stack.
		c = CT_CONFIDENCE_MEDIUM;
	}
	if (f->stack.far_below) {
		ct_crash_add_evidence(&r->crash, r->strings, "sp is 0x%" PRIx64 " bytes below the stack mapping, beyond the guard gap, in unmapped space",
				      f->stack.stack_start - f->stack.sp);
		ct_crash_add_evidence(&r->crash, r->strings, "the faulting frame is %" PRIu64 " bytes (%" PRIu64 " MiB) from its caller's sp: one huge frame (a VLA or alloca)",
				      f->stack.frame_size, f->stack.frame_size >> 20);
		ct_crash_add_detail_int(&r->crash, r->strings, "frame_size", (int64_t)f->stack.frame_size);
	}
	ct_crash_add_detail_int(&r->crash, r->strings, "frames", (int64_t)f->num_frames);
	evidence_insn(f, r);
	verdict(r, CT_CLASS_STACK_OVERFLOW, NULL, c);
	set_access(f, r);
	set_address(r, a, CT_ADDRESS_STACK_GUARD);
	const char *cycle = NULL;
	if (f->stack.recursion_depth >= 2 && f->stack.cycle_start < f->num_frames &&
	    f->frames[f->stack.cycle_start].function)
		cycle = f->frames[f->stack.cycle_start].function;
	if (cycle)
		r->crash.summary = ct_strpool_printf(r->strings, "stack overflow: unbounded recursion in %s (%zu%s frames)", cycle,
						    f->num_frames, f->stack.truncated ? "+" : "");
	else if (f->stack.far_below)
		r->crash.summary = ct_strpool_printf(r->strings, "stack overflow: one %" PRIu64 " MiB frame%s (a VLA or alloca)",
						    f->stack.frame_size >> 20, in_blame(f, r));
	else
		r->crash.summary = ct_strpool_printf(r->strings, "stack overflow%s (%zu frames)", in_blame(f, r), f->num_frames);
}

static bool bad_code_address(const struct ct_facts *f, uint64_t v, const struct ct_address_facts *placed)
{
	if (placed && placed->valid)
		return !placed->mapping.present || !(placed->mapping.flags & CT_PF_X);
	return is_fill_pattern(v);
}

static bool when_stack_corruption(const struct ct_facts *f)
{
	if (!segv_like(f))
		return false;
	if (f->insn.decoded && f->insn.is_ret && f->insn.has_return_address)
		return bad_code_address(f, f->insn.return_address, &f->computed) || f->computed.non_canonical ||
		       is_fill_pattern(f->insn.return_address);
	// The ret itself faulted reading [sp]: the stack pointer was corrupted (restored from the stack).
	if (f->insn.decoded && f->insn.is_ret && !f->insn.has_return_address && f->computed.valid &&
	    !f->computed.mapping.present)
		return true;
	// The ret already happened: pc is garbage and it is the word the ret popped.
	if (f->has_pc && !f->pc_addr.mapping.present && f->has_popped_word && f->popped_word == f->pc &&
	    !(f->has_sp_word && f->sp_word_after_call))
		return true;
	return f->has_pc && !f->pc_addr.mapping.present && is_fill_pattern(f->pc);
}

static void fill_stack_corruption(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	uint64_t target;
	if (f->insn.decoded && f->insn.is_ret && !f->insn.has_return_address) {
		evidence_insn(f, r);
		evidence_address(r, "sp", &f->computed);
		ct_crash_add_evidence(&r->crash, r->strings, "ret faulted reading its return address: the stack pointer itself was corrupted");
		verdict(r, CT_CLASS_STACK_CORRUPTION, NULL, CT_CONFIDENCE_HIGH);
		r->crash.access = CT_ACCESS_READ;
		set_address(r, &f->computed, address_kind(&f->computed));
		ct_crash_add_detail_address(&r->crash, r->strings, "stack_pointer", f->computed.address);
		r->crash.summary = ct_strpool_printf(r->strings, "stack corruption: ret with a corrupted stack pointer 0x%" PRIx64 "%s",
						    f->computed.address, in_blame(f, r));
		return;
	}
	if (f->insn.decoded && f->insn.is_ret && f->insn.has_return_address) {
		target = f->insn.return_address;
		evidence_insn(f, r);
		ct_crash_add_evidence(&r->crash, r->strings, "ret would return to 0x%" PRIx64 " (read at [sp]), which is %s", target,
				      f->computed.non_canonical ? "non-canonical"
				      : !f->computed.mapping.present ? "unmapped" : "not executable");
	} else {
		target = f->pc;
		evidence_address(r, "pc", &f->pc_addr);
		if (f->has_popped_word && f->popped_word == f->pc)
			ct_crash_add_evidence(&r->crash, r->strings, "pc equals the word just below sp: a ret popped it from the stack");
		else
			c = CT_CONFIDENCE_MEDIUM;
	}
	if (is_fill_pattern(target))
		ct_crash_add_evidence(&r->crash, r->strings, "0x%" PRIx64 " looks like a fill pattern (repeated bytes)", target);
	ct_crash_add_detail_address(&r->crash, r->strings, "return_address", target);
	verdict(r, CT_CLASS_STACK_CORRUPTION, NULL, c);
	r->crash.access = CT_ACCESS_EXEC;
	r->crash.has_address = true;
	r->crash.address = target;
	r->crash.has_address_kind = true;
	r->crash.address_kind = f->computed.non_canonical || (f->pc_addr.valid && f->pc_addr.non_canonical)
					? CT_ADDRESS_NON_CANONICAL
					: CT_ADDRESS_UNMAPPED;
	r->crash.summary = ct_strpool_printf(r->strings, "stack corruption: return address overwritten with 0x%" PRIx64 "%s", target,
					    in_blame(f, r));
}

static bool when_null_deref(const struct ct_facts *f)
{
	if (!sig_is(f, CT_SIGSEGV) || !ct_facts_kernel_fault(f))
		return false;
	const struct ct_address_facts *a = data_address(f);
	return a && a->near_null;
}

static void fill_null_deref(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_address_facts *a = data_address(f);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	if (kernel_address_usable(f))
		ct_crash_add_evidence(&r->crash, r->strings, "fault address 0x%" PRIx64 " is below 64 KiB (near NULL)", f->fault.address);
	else
		ct_crash_add_evidence(&r->crash, r->strings, "the kernel gave no fault address; the instruction computes 0x%" PRIx64, a->address);
	evidence_insn(f, r);
	if (addresses_disagree(f, r))
		c = lower(c);
	if (!kernel_address_usable(f))
		c = lower(c);
	if (f->culprit) {
		const struct ct_mem_operand *bm = f->insn.fault_mem >= 0 ? &f->insn.mem[f->insn.fault_mem] : NULL;
		if (bm && bm->has_base_value && bm->base_value != 0)
			ct_crash_add_evidence(&r->crash, r->strings, "%s held the near-NULL pointer 0x%" PRIx64, f->culprit, bm->base_value);
		else
			ct_crash_add_evidence(&r->crash, r->strings, "%s held the NULL pointer", f->culprit);
		ct_crash_add_detail_string(&r->crash, r->strings, "culprit", f->culprit);
	}
	const struct ct_mem_operand *m = f->insn.fault_mem >= 0 ? &f->insn.mem[f->insn.fault_mem] : NULL;
	if (m && m->base && m->has_base_value) {
		ct_crash_add_detail_string(&r->crash, r->strings, "base_register", m->base);
		ct_crash_add_detail_int(&r->crash, r->strings, "offset", m->disp);
	}
	verdict(r, CT_CLASS_NULL_DEREF, NULL, c);
	set_access(f, r);
	set_address(r, a, CT_ADDRESS_NULL);
	const char *acc = access_or(f, "access");
	// "is NULL" only when the register really held 0; a near-null base (&p->member of a NULL p, a
	// small integer used as a pointer) is said as it is.
	if (f->culprit && m && m->has_base_value && m->base_value == 0)
		r->crash.summary = ct_strpool_printf(r->strings, "NULL pointer %s at offset 0x%" PRIx64 ": %s is NULL%s", acc,
						    a->address, f->culprit, in_blame(f, r));
	else if (f->culprit && m && m->has_base_value)
		r->crash.summary = ct_strpool_printf(r->strings, "NULL pointer %s at 0x%" PRIx64 ": %s holds 0x%" PRIx64 "%s", acc,
						    a->address, f->culprit, m->base_value, in_blame(f, r));
	else if (f->culprit)
		r->crash.summary = ct_strpool_printf(r->strings, "NULL pointer %s at 0x%" PRIx64 " through %s%s", acc, a->address,
						    f->culprit, in_blame(f, r));
	else
		r->crash.summary = ct_strpool_printf(r->strings, "NULL pointer %s at 0x%" PRIx64 "%s%s%s", acc, a->address,
						    m && m->text[0] ? " (" : "", m && m->text[0] ? m->text : "",
						    m && m->text[0] ? ct_strpool_printf(r->strings, ")%s", in_blame(f, r)) : in_blame(f, r));
}

static bool misaligned(const struct ct_facts *f)
{
	return f->insn.decoded && f->insn.needs_alignment && f->insn.alignment && f->computed.valid &&
	       f->computed.address % f->insn.alignment != 0;
}

static bool when_misaligned(const struct ct_facts *f)
{
	if (sig_is(f, CT_SIGBUS) && code_is(f, CT_BUS_ADRALN))
		return true;
	return sig_is(f, CT_SIGSEGV) && code_is(f, CT_SI_KERNEL) && misaligned(f);
}

static void fill_misaligned(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_insn(f, r);
	if (misaligned(f))
		ct_crash_add_evidence(&r->crash, r->strings, "%s needs %u-byte alignment; address 0x%" PRIx64 " is off by %" PRIu64,
				      f->insn.text, f->insn.alignment, f->computed.address,
				      f->computed.address % f->insn.alignment);
	else
		c = CT_CONFIDENCE_MEDIUM;
	verdict(r, CT_CLASS_MISALIGNED_ACCESS, NULL, c);
	set_access(f, r);
	const struct ct_address_facts *a = f->computed.valid ? &f->computed : data_address(f);
	set_address(r, a, CT_ADDRESS_MISALIGNED);
	if (f->insn.needs_alignment)
		ct_crash_add_detail_int(&r->crash, r->strings, "alignment", f->insn.alignment);
	r->crash.summary = ct_strpool_printf(r->strings, "misaligned %s at 0x%" PRIx64 " by %s%s", access_or(f, "access"),
					    a ? a->address : 0, f->insn.decoded ? f->insn.text : "an alignment-checked access",
					    in_blame(f, r));
}

static bool when_wild(const struct ct_facts *f)
{
	if (!segv_like(f))
		return false;
	// A call or jump to an unmapped place (not null: that is null-call).
	if (f->has_pc && f->pc_addr.valid && !f->pc_addr.mapping.present)
		return true;
	const struct ct_address_facts *a = data_address(f);
	if (!a)
		return false;
	if (a->non_canonical)
		return true;
	if (!a->mapping.present && !a->in_stack_guard)
		return true;
	// Mapped but without any access (PROT_NONE), not a stack guard.
	return a->mapping.present && !(a->mapping.flags & (CT_PF_R | CT_PF_W | CT_PF_X));
}

static void fill_wild(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	if (f->has_pc && f->pc_addr.valid && !f->pc_addr.mapping.present) {
		evidence_address(r, "pc", &f->pc_addr);
		if (f->has_sp_word && f->sp_word_after_call)
			ct_crash_add_evidence(&r->crash, r->strings, "return address at [sp]: 0x%" PRIx64 ", right after a call: a call through a wild function pointer",
					      f->sp_word);
		else
			c = CT_CONFIDENCE_MEDIUM;
		verdict(r, CT_CLASS_WILD_POINTER, NULL, c);
		r->crash.access = CT_ACCESS_EXEC;
		set_address(r, &f->pc_addr, f->pc_addr.non_canonical ? CT_ADDRESS_NON_CANONICAL : CT_ADDRESS_UNMAPPED);
		r->crash.summary = ct_strpool_printf(r->strings, "jump to unmapped address 0x%" PRIx64 "%s", f->pc,
						    blame_location(f, r) ? ct_strpool_printf(r->strings, " from %s", blame_location(f, r)) : "");
		return;
	}
	const struct ct_address_facts *a = data_address(f);
	if (!kernel_address_usable(f))
		ct_crash_add_evidence(&r->crash, r->strings, "the kernel gave no fault address (%s); the instruction computes 0x%" PRIx64,
				      f->sig.code_name ? f->sig.code_name : "no si_addr", a->address);
	evidence_insn(f, r);
	evidence_address(r, "address", a);
	if (addresses_disagree(f, r))
		c = lower(c);
	enum ct_address_kind kind = a->non_canonical ? CT_ADDRESS_NON_CANONICAL
				    : a->mapping.present ? CT_ADDRESS_NO_ACCESS
							 : CT_ADDRESS_UNMAPPED;
	if (a->mapping.present)
		c = lower(c);
	if (!a->non_canonical && !a->mapping.present && a->nearest.present)
		ct_crash_add_detail_address(&r->crash, r->strings, "nearest_mapping", a->nearest.start);
	if (is_fill_pattern(a->address))
		ct_crash_add_evidence(&r->crash, r->strings, "0x%" PRIx64 " looks like a fill pattern (repeated bytes)", a->address);
	if (f->culprit) {
		ct_crash_add_evidence(&r->crash, r->strings, "%s held the bad pointer", f->culprit);
		ct_crash_add_detail_string(&r->crash, r->strings, "culprit", f->culprit);
	}
	verdict(r, CT_CLASS_WILD_POINTER, NULL, c);
	set_access(f, r);
	set_address(r, a, kind);
	if (f->insn.is_indirect_branch && f->insn.access == CT_ACCESS_READ) {
		ct_crash_add_detail_bool(&r->crash, r->strings, "indirect_branch", true);
		r->crash.summary = ct_strpool_printf(r->strings, "wild pointer: %s reads its target from %s address 0x%" PRIx64 "%s",
						    f->insn.is_call ? "indirect call" : "indirect jump",
						    ct_address_kind_to_string(kind), a->address,
						    in_blame(f, r));
		return;
	}
	r->crash.summary = ct_strpool_printf(r->strings, "wild pointer %s at %s address 0x%" PRIx64 "%s%s%s",
					    access_or(f, "access"), ct_address_kind_to_string(kind), a->address,
					    f->culprit ? " through " : "",
					    f->culprit ? f->culprit : "", in_blame(f, r));
}

static bool when_readonly(const struct ct_facts *f)
{
	if (!sig_is(f, CT_SIGSEGV) || !code_is(f, CT_SEGV_ACCERR))
		return false;
	const struct ct_address_facts *a = data_address(f);
	if (!a || !a->mapping.present || (a->mapping.flags & CT_PF_W))
		return false;
	return f->insn.access == CT_ACCESS_WRITE || !f->insn.decoded;
}

static void fill_readonly(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_address_facts *a = data_address(f);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_address(r, "fault address", a);
	evidence_insn(f, r);
	if (!f->insn.decoded) {
		ct_crash_add_evidence(&r->crash, r->strings, "instruction not decoded: a write is inferred from SEGV_ACCERR on a readable mapping");
		c = CT_CONFIDENCE_MEDIUM;
	}
	if (addresses_disagree(f, r))
		c = lower(c);
	verdict(r, CT_CLASS_WRITE_TO_READONLY, NULL, c);
	r->crash.access = CT_ACCESS_WRITE;
	set_address(r, a, CT_ADDRESS_MAPPED);
	ct_crash_add_detail_string(&r->crash, r->strings, "mapping_permissions", perms(r, a->mapping.flags));
	if (a->mapping.file)
		ct_crash_add_detail_string(&r->crash, r->strings, "mapping_file", a->mapping.file);
	r->crash.summary = ct_strpool_printf(r->strings, "write to read-only memory at 0x%" PRIx64 " (%s%s%s)%s", a->address,
					    perms(r, a->mapping.flags), a->mapping.file ? " " : "",
					    a->mapping.file ? a->mapping.file : "", in_blame(f, r));
}

static bool when_bus(const struct ct_facts *f)
{
	return sig_is(f, CT_SIGBUS) && ct_facts_kernel_fault(f);
}

static void fill_bus(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_address_facts *a = data_address(f);
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_address(r, "fault address", a);
	evidence_insn(f, r);
	set_access(f, r);
	const char *why = f->sig.code_name ? f->sig.code_name : "unknown si_code";
	const char *text;
	if (code_is(f, CT_BUS_ADRERR) && a && a->mapping.present && a->mapping.file) {
		uint64_t off = a->mapping.file_offset + (a->address - a->mapping.start);
		ct_crash_add_detail_string(&r->crash, r->strings, "mapped_file", a->mapping.file);
		ct_crash_add_detail_address(&r->crash, r->strings, "file_offset", off);
		ct_crash_add_evidence(&r->crash, r->strings, "offset 0x%" PRIx64 " of %s is past the end of the file", off, a->mapping.file);
		text = ct_strpool_printf(r->strings, "bus error: %s at offset 0x%" PRIx64 " past the end of the mapped file %s",
					access_or(f, "access"), off, a->mapping.file);
	} else if (code_is(f, CT_BUS_MCEERR_AR) || code_is(f, CT_BUS_MCEERR_AO)) {
		text = ct_strpool_printf(r->strings, "bus error: hardware memory error (%s)", why);
	} else {
		if (!a || !a->mapping.present)
			c = CT_CONFIDENCE_MEDIUM;
		text = ct_strpool_printf(r->strings, "bus error (%s)%s", why,
					a ? ct_strpool_printf(r->strings, " at 0x%" PRIx64, a->address) : "");
	}
	verdict(r, CT_CLASS_BUS_ERROR, NULL, c);
	ct_crash_add_detail_string(&r->crash, r->strings, "si_code", why);
	if (a)
		set_address(r, a, address_kind(a));
	r->crash.summary = ct_strpool_printf(r->strings, "%s%s", text, in_blame(f, r));
}

static bool when_int_overflow(const struct ct_facts *f)
{
	if (!sig_is(f, CT_SIGFPE))
		return false;
	if (code_is(f, CT_FPE_INTOVF))
		return true;
	// x86 #DE covers both: a nonzero divisor means the quotient overflowed.
	return code_is(f, CT_FPE_INTDIV) && f->insn.has_divisor && f->insn.divisor != 0;
}

static void fill_int_overflow(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_insn(f, r);
	if (f->insn.has_divisor) {
		ct_crash_add_detail_int(&r->crash, r->strings, "divisor", f->insn.divisor);
		if (f->insn.has_dividend)
			ct_crash_add_detail_int(&r->crash, r->strings, "dividend", f->insn.dividend);
		ct_crash_add_evidence(&r->crash, r->strings, "divisor %" PRId64 ", dividend %s%" PRId64, f->insn.divisor,
				      f->insn.dividend_is_min ? "the minimum value " : "", f->insn.dividend);
		if (code_is(f, CT_FPE_INTDIV))
			ct_crash_add_evidence(&r->crash, r->strings, "the kernel reports FPE_INTDIV for every #DE; the divisor is not 0, so the quotient overflowed");
	}
	verdict(r, CT_CLASS_INTEGER_OVERFLOW, NULL, c);
	if (f->insn.has_divisor && f->insn.divisor == -1 && f->insn.dividend_is_min)
		r->crash.summary = ct_strpool_printf(r->strings, "integer overflow: %u-bit minimum value divided by -1%s",
						    f->insn.div_size * 8, in_blame(f, r));
	else
		r->crash.summary = ct_strpool_printf(r->strings, "integer overflow (%s)%s",
						    f->sig.code_name ? f->sig.code_name : "SIGFPE", in_blame(f, r));
}

static bool when_div_zero(const struct ct_facts *f)
{
	return sig_is(f, CT_SIGFPE) && code_is(f, CT_FPE_INTDIV);
}

static void fill_div_zero(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_insn(f, r);
	if (f->insn.has_divisor) {
		ct_crash_add_evidence(&r->crash, r->strings, "divisor is 0");
		ct_crash_add_detail_int(&r->crash, r->strings, "divisor", 0);
	} else {
		ct_crash_add_evidence(&r->crash, r->strings, "FPE_INTDIV; the divisor could not be read from the instruction");
		c = CT_CONFIDENCE_MEDIUM;
	}
	verdict(r, CT_CLASS_DIVIDE_BY_ZERO, NULL, c);
	r->crash.summary = ct_strpool_printf(r->strings, "integer division by zero%s%s%s", f->insn.decoded ? " (" : "",
					    f->insn.decoded ? ct_strpool_printf(r->strings, "%s)", f->insn.text) : "", in_blame(f, r));
}

static bool when_fpe(const struct ct_facts *f)
{
	return sig_is(f, CT_SIGFPE);
}

static void fill_fpe(const struct ct_facts *f, struct ct_verdict *r)
{
	evidence_insn(f, r);
	verdict(r, CT_CLASS_FLOATING_POINT_EXCEPTION, NULL, f->sig.has_code ? CT_CONFIDENCE_HIGH : CT_CONFIDENCE_MEDIUM);
	r->crash.summary = ct_strpool_printf(r->strings, "floating-point exception (%s)%s",
					    f->sig.code_name ? f->sig.code_name : "unknown si_code", in_blame(f, r));
}

static bool when_trap(const struct ct_facts *f)
{
	if (sig_is(f, CT_SIGILL))
		return f->insn.decoded && f->insn.is_trap;
	return sig_is(f, CT_SIGTRAP) && ct_facts_kernel_fault(f);
}

static void fill_trap(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	evidence_insn(f, r);
	// aarch64's brk (what __builtin_trap emits there) raises SIGTRAP with pc at the brk itself.
	bool trap_insn = f->insn.decoded && f->insn.is_trap;
	if (sig_is(f, CT_SIGTRAP) && !f->insn.is_breakpoint && !trap_insn) {
		ct_crash_add_evidence(&r->crash, r->strings, "SIGTRAP (%s) without a breakpoint instruction at pc",
				      f->sig.code_name ? f->sig.code_name : "?");
		c = CT_CONFIDENCE_MEDIUM;
	}
	verdict(r, CT_CLASS_TRAP, NULL, c);
	if (f->insn.is_breakpoint) {
		ct_crash_add_evidence(&r->crash, r->strings, "int3 breakpoint just before pc (SIGTRAP leaves pc after it)");
		r->crash.summary = ct_strpool_printf(r->strings, "deliberate trap (int3 breakpoint before 0x%" PRIx64 ")%s", f->pc,
						    in_blame(f, r));
	} else {
		r->crash.summary = ct_strpool_printf(r->strings, "deliberate trap (%s)%s",
						    f->insn.decoded ? f->insn.text : signal_name(f, r), in_blame(f, r));
	}
}

static bool when_illegal(const struct ct_facts *f)
{
	return sig_is(f, CT_SIGILL);
}

static void fill_illegal(const struct ct_facts *f, struct ct_verdict *r)
{
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	if (f->insn.have_bytes) {
		char hex[3 * 16 + 1] = "";
		for (size_t i = 0; i < f->insn.size && i < 16; i++)
			snprintf(hex + 3 * i, 4, "%02x ", f->insn.bytes[i]);
		ct_crash_add_evidence(&r->crash, r->strings, "bytes at pc: %s%s", hex,
				      f->insn.decoded ? ct_strpool_printf(r->strings, "(%s)", f->insn.text) : "(undecodable)");
	} else {
		c = CT_CONFIDENCE_MEDIUM;
	}
	verdict(r, CT_CLASS_ILLEGAL_INSTRUCTION, NULL, c);
	// Name the instruction, or its first bytes: "undecodable" only where a decoder exists.
	const char *what;
	if (f->insn.decoded)
		what = ct_strpool_printf(r->strings, "%s %s", f->insn.is_privileged ? "privileged instruction" : "unsupported instruction",
					f->insn.text);
	else if (f->insn.have_bytes && f->insn.size >= 4)
		what = ct_strpool_printf(r->strings, "%s %02x %02x %02x %02x", f->insn.has_decoder ? "undecodable bytes" : "bytes",
					f->insn.bytes[0], f->insn.bytes[1], f->insn.bytes[2], f->insn.bytes[3]);
	else if (f->insn.have_bytes)
		what = ct_strpool_printf(r->strings, "%s %02x", f->insn.has_decoder ? "undecodable byte" : "byte", f->insn.bytes[0]);
	else
		what = "instruction bytes not in the dump";
	r->crash.summary = ct_strpool_printf(r->strings, "illegal instruction: %s (%s)%s", what,
					    f->sig.code_name ? f->sig.code_name : "SIGILL", in_blame(f, r));
}

static bool when_unknown(const struct ct_facts *f)
{
	return true;
}

static void fill_unknown(const struct ct_facts *f, struct ct_verdict *r)
{
	verdict(r, CT_CLASS_UNKNOWN, NULL, CT_CONFIDENCE_LOW);
	evidence_insn(f, r);
	const struct ct_address_facts *a = data_address(f);
	if (a)
		evidence_address(r, "address", a);
	else if (sig_is(f, CT_SIGSEGV) && code_is(f, CT_SI_KERNEL))
		ct_crash_add_evidence(&r->crash, r->strings, "general-protection fault and the faulting address could not be computed from the instruction");
	set_access(f, r);
	if (a)
		set_address(r, a, address_kind(a));
	r->crash.summary = ct_strpool_printf(r->strings, "%s%s%s%s", f->sig.fatal ? signal_name(f, r) : "no signal",
					    f->sig.code_name ? ct_strpool_printf(r->strings, " (%s)", f->sig.code_name) : "",
					    " not classified", in_blame(f, r));
}

struct rule {
	/** The class the rule decides (go-fault: the fault's, null-deref unless its message says another). */
	enum ct_class cls;
	/** The rule's name when it is not its class's id, else NULL. */
	const char *name;
	bool (*when)(const struct ct_facts *f);
	void (*fill)(const struct ct_facts *f, struct ct_verdict *r);
};

// Order matters: the first rule that matches wins (docs/classes.md).
static const struct rule rules[] = {
	{ CT_CLASS_NO_SIGNAL, NULL, when_no_signal, fill_no_signal },
	{ CT_CLASS_EXTERNAL_SIGNAL, NULL, when_external_signal, fill_external_signal },
	{ CT_CLASS_ASSERTION_FAILURE, NULL, when_assertion, fill_assertion },
	{ CT_CLASS_STACK_BUFFER_OVERFLOW, NULL, when_stack_smashing, fill_stack_smashing },
	{ CT_CLASS_FORTIFY_FAILURE, NULL, when_fortify, fill_fortify },
	// Stack-overflow evidence (sp at or past its mapping's edge, the access in the guard gap) outranks
	// every "fault inside X" rule: an overflow that meets the guard page inside calloc is no heap bug.
	{ CT_CLASS_STACK_OVERFLOW, NULL, when_stack_overflow, fill_stack_overflow },
	{ CT_CLASS_HEAP_CORRUPTION, NULL, when_heap, fill_heap },
	{ CT_CLASS_UNCAUGHT_EXCEPTION, NULL, when_uncaught, fill_uncaught },
	{ CT_CLASS_DEADLOCK, "go-deadlock", ct_when_go_deadlock, ct_fill_go_deadlock },
	{ CT_CLASS_NULL_DEREF, "go-fault", ct_when_go_fault, ct_fill_go_fault },
	{ CT_CLASS_PANIC, NULL, ct_when_panic, ct_fill_panic },
	{ CT_CLASS_ABORT, NULL, when_abort, fill_abort },
	{ CT_CLASS_SELF_SIGNAL, NULL, when_self_signal, fill_self_signal },
	{ CT_CLASS_NULL_CALL, NULL, when_null_call, fill_null_call },
	{ CT_CLASS_EXEC_NON_EXECUTABLE, NULL, when_exec_nx, fill_exec_nx },
	{ CT_CLASS_STACK_CORRUPTION, NULL, when_stack_corruption, fill_stack_corruption },
	{ CT_CLASS_USE_AFTER_FREE, NULL, ct_when_use_after_free, ct_fill_use_after_free },
	{ CT_CLASS_NULL_DEREF, NULL, when_null_deref, fill_null_deref },
	{ CT_CLASS_MISALIGNED_ACCESS, NULL, when_misaligned, fill_misaligned },
	{ CT_CLASS_WILD_POINTER, NULL, when_wild, fill_wild },
	{ CT_CLASS_WRITE_TO_READONLY, NULL, when_readonly, fill_readonly },
	{ CT_CLASS_BUS_ERROR, NULL, when_bus, fill_bus },
	{ CT_CLASS_INTEGER_OVERFLOW, NULL, when_int_overflow, fill_int_overflow },
	{ CT_CLASS_DIVIDE_BY_ZERO, NULL, when_div_zero, fill_div_zero },
	{ CT_CLASS_FLOATING_POINT_EXCEPTION, NULL, when_fpe, fill_fpe },
	{ CT_CLASS_TRAP, NULL, when_trap, fill_trap },
	{ CT_CLASS_ILLEGAL_INSTRUCTION, NULL, when_illegal, fill_illegal },
	{ CT_CLASS_UNKNOWN, NULL, when_unknown, fill_unknown },
};
#define NUM_RULES (sizeof(rules) / sizeof(rules[0]))

const char *ct_rule_name(size_t index)
{
	if (index >= NUM_RULES)
		return NULL;
	return rules[index].name ? rules[index].name : ct_class_to_string(rules[index].cls);
}

bool ct_rule_matches(size_t index, const struct ct_facts *f)
{
	return index < NUM_RULES && rules[index].when(f);
}

static void signal_evidence(const struct ct_facts *f, struct ct_verdict *r)
{
	if (!f->sig.fatal)
		return;
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%s", signal_name(f, r));
	if (f->sig.has_code && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", si_code %d (%s)", f->sig.code,
			      f->sig.code_name ? f->sig.code_name : "?");
	if (f->sig.has_fault_address && f->sig.kernel_sent && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", fault address 0x%" PRIx64 "%s", f->sig.fault_address,
			      code_is(f, CT_SI_KERNEL) ? " (not meaningful with SI_KERNEL)" : "");
	if (f->sig.user_sent && f->sig.has_sender && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ", sent by pid %d (uid %d)%s", f->sig.sender_pid,
			 f->sig.sender_uid, f->sig.from_self ? ", the process itself" : "");
	ct_crash_add_evidence(&r->crash, r->strings, "%s", buf);
}

/**
 * A fault whose frame is not the blamed one (a NULL read inside libc's strlen or a library called
 * by the program): the summary names both.
 */
static void fault_frame_summary(const struct ct_facts *f, struct ct_verdict *r, long blame)
{
	if (blame <= 0 || !f->num_frames || !ct_facts_kernel_fault(f) || !r->crash.summary || f->sig.signo == CT_SIGABRT)
		return;
	const struct ct_frame_fact *ff = &f->frames[0];
	const struct ct_frame_fact *bf = &f->frames[blame];
	// The same function deeper in a recursion is not another place.
	if (ff->function && bf->function && strcmp(ff->function, bf->function) == 0)
		return;
	const char *where = ff->function ? ff->function
		: ff->module && ff->has_module_offset ? ct_strpool_printf(r->strings, "%s+0x%" PRIx64, ff->module, ff->module_offset)
						      : NULL;
	if (where)
		r->crash.summary = ct_strpool_printf(r->strings, "%s (faulted in %s%s%s)", r->crash.summary, where,
						    ff->function && ff->module ? ", " : "",
						    ff->function && ff->module ? ff->module : "");
}

/** Frames named in the "skipped" evidence at most: the rest are counted. */
#define MAX_SKIPPED_NAMED 8

/** Why each frame inside the blamed one was not blamed (docs/classes.md "Blame"), in one line. */
static void skipped_evidence(const struct ct_facts *f, struct ct_verdict *r, long blame)
{
	char buf[1024];
	size_t used = 0, named = 0, more = 0;
	for (long i = 0; i < blame; i++) {
		const struct ct_frame_fact *fr = &f->frames[i];
		if (named == MAX_SKIPPED_NAMED) {
			more++;
			continue;
		}
		const char *why = fr->runtime_why ? fr->runtime_why
			: fr->package ? ct_strpool_printf(r->strings, "a library of another package (source package %s)", fr->package)
				      : "a library that is not the program's (another package or location)";
		int k = fr->module || fr->function
			? snprintf(buf + used, sizeof(buf) - used, "%s#%ld %s (%s: %s)", named ? ", " : "", i + (long)f->frame_base,
				   fr->function ? fr->function : "??", fr->module ? fr->module : "?", why)
			: snprintf(buf + used, sizeof(buf) - used, "%s#%ld 0x%" PRIx64 " (%s)", named ? ", " : "", i + (long)f->frame_base,
				   fr->pc, why);
		if (k < 0 || (size_t)k >= sizeof(buf) - used) {
			more++;
			named = MAX_SKIPPED_NAMED;
			continue;
		}
		used += (size_t)k;
		named++;
	}
	if (!named)
		return;
	ct_crash_add_evidence(&r->crash, r->strings, "frames skipped: %s%s", buf,
			      more ? ct_strpool_printf(r->strings, " and %zu more", more) : "");
}

size_t ct_classify(const struct ct_facts *f, struct ct_verdict *r)
{
	if (f->reraised)
		return ct_classify_reraised(f, r);
	signal_evidence(f, r);
	size_t i;
	for (i = 0; i < NUM_RULES - 1; i++) {
		if (rules[i].when(f))
			break;
	}
	if (ct_deadlock_outranks(f, rules[i].cls))
		ct_deadlock_fill(f, r); // src/triage/deadlock.c: a wait-for cycle says why the process was stopped
	else
		rules[i].fill(f, r);
	long blame = ct_effective_blame(f, r);
	r->crash.blame_frame = blame >= 0 ? blame + (long)f->frame_base : -1;
	if (blame != f->blame && blame >= 0)
		ct_crash_add_evidence(&r->crash, r->strings, "the recursion cycle, not the leaf the overflow hit, is blamed");
	fault_frame_summary(f, r, blame);
	if (blame >= 0) {
		const struct ct_frame_fact *b = &f->frames[blame];
		if (b->program)
			ct_crash_add_evidence(&r->crash, r->strings, "blamed frame #%ld: %s (%s), the first frame in the program's own code (%s)",
					      r->crash.blame_frame, b->function ? b->function : "??",
					      b->module ? b->module : ct_strpool_printf(r->strings, "0x%" PRIx64, b->pc), b->program_why);
		else
			ct_crash_add_evidence(&r->crash, r->strings, "blamed frame #%ld: %s (%s), no frame is in the program's own code: the first frame outside the C/C++ and language runtimes",
					      r->crash.blame_frame, b->function ? b->function : "??", b->module ? b->module : "?");
		if (blame == f->blame)
			skipped_evidence(f, r, blame);
	} else if (f->num_frames) {
		ct_crash_add_evidence(&r->crash, r->strings, "no frame in the program's own code was found");
	}
	// The instruction matters for faults; for a sent signal or abort() it is only libc's syscall return.
	if (f->insn.decoded && !r->crash.has_instruction && ct_facts_kernel_fault(f) && !sig_is(f, CT_SIGABRT)) {
		r->crash.has_instruction = true;
		r->crash.instruction_address = f->insn.address;
		r->crash.instruction_text = ct_strpool_intern(r->strings, f->insn.text);
	}
	return i;
}
