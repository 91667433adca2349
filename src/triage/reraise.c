// A fault re-raised by its handler (issue 16): crash reporters, Python's faulthandler and language
// runtimes catch SIGSEGV & co., log, then abort() or raise the signal again, so the dumped signal
// says "abort" or "self-signal". The signal frame the kernel pushed for the handler still holds the
// original fault; it is classified with the usual rules at the interrupted frame, and the handler
// and the re-raise are evidence.
#include <inttypes.h>

#include "triage/facts.h"
#include "triage/triage.h"

static const char *sig_name(struct ct_verdict *r, int signo)
{
	const char *n = ct_signal_name(signo);
	return n ? n : ct_strpool_printf(r->strings, "signal %d", signo);
}

size_t ct_classify_reraised(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_facts *in = f->reraised;
	const struct ct_sigframe_facts *sf = &f->sigframes[f->reraised_sigframe];
	size_t rule = ct_classify(in, r);
	const char *outer = sig_name(r, f->sig.signo);
	ct_crash_add_evidence(&r->crash, r->strings, "dumped signal: %s, si_code %d (%s)%s", outer, f->sig.code,
			      f->sig.code_name ? f->sig.code_name : "?",
			      f->sig.from_self ? ct_strpool_printf(r->strings, ", sent by the process itself (pid %d)", f->sig.pid) : "");
	const char *how = f->sig.kernel_sent ? "a second fault inside the handler"
			  : f->sig.code == CT_SI_TKILL ? "raise/tgkill from the process itself"
						       : "sent by the process itself";
	// The handler: the frame just inside the signal trampoline. It is a libc frame when the handler's
	// last call was a tail call (faulthandler's raise()): then the handler itself is not on the stack.
	const struct ct_frame_fact *handler = sf->frame > 0 ? &f->frames[sf->frame - 1] : NULL;
	const char *hname = handler && handler->function ? handler->function : "?";
	bool handler_named = handler && handler->own && handler->function;
	ct_crash_add_evidence(&r->crash, r->strings, "the dumped %s (%s) was raised inside a signal handler: frame #%zu %s runs on the signal frame #%zu",
			      outer, how, sf->frame ? sf->frame - 1 : 0, hname, sf->frame);
	// The first signal another process sent (issue 21): the handler's siginfo names the sender; trap
	// facts are the thread's last trap and say nothing about it.
	int first = sf->fault_signo ? sf->fault_signo : sf->si_signo;
	if (!sf->fault_signo && sf->relay_tid)
		ct_crash_add_evidence(&r->crash, r->strings, "the handler's siginfo: %s relayed by the Go runtime from thread to thread (raiseproc); "
				      "thread %d's handler holds the original, si_code %d (%s), sent by pid %d (uid %d), not the dumped process (pid %d)",
				      sig_name(r, sf->si_signo), sf->relay_tid, sf->si_code, in->sig.code_name ? in->sig.code_name : "?",
				      sf->si_pid, sf->si_uid, f->sig.pid);
	else if (!sf->fault_signo)
		ct_crash_add_evidence(&r->crash, r->strings, "the handler's siginfo: %s, si_code %d (%s), sent by pid %d (uid %d), not the dumped process (pid %d)",
				      sig_name(r, sf->si_signo), sf->si_code, in->sig.code_name ? in->sig.code_name : "?", sf->si_pid,
				      sf->si_uid, f->sig.pid);
	else if (sf->has_trap)
		ct_crash_add_evidence(&r->crash, r->strings, "signal frame #%zu sigcontext: trapno %" PRIu64 ", err 0x%" PRIx64 ", cr2 0x%" PRIx64
				      "; interrupted pc 0x%" PRIx64 ", sp 0x%" PRIx64,
				      sf->frame, sf->trapno, sf->err, sf->cr2, sf->pc, sf->sp);
	else if (sf->has_esr || sf->has_fault_address)
		ct_crash_add_evidence(&r->crash, r->strings, "signal frame #%zu sigcontext: fault_address 0x%" PRIx64 ", esr 0x%" PRIx64
				      "; interrupted pc 0x%" PRIx64 ", sp 0x%" PRIx64,
				      sf->frame, sf->fault_address, sf->esr, sf->pc, sf->sp);
	if (sf->has_siginfo && sf->fault_source && sf->si_signo == sf->fault_signo)
		ct_crash_add_evidence(&r->crash, r->strings, "the handler's siginfo: %s, si_code %d, si_addr 0x%" PRIx64, sig_name(r, sf->si_signo),
				      sf->si_code, sf->si_addr);
	if (sf->fault_signo)
		ct_crash_add_evidence(&r->crash, r->strings, "original fault: %s (%s), from %s", sig_name(r, sf->fault_signo),
				      in->sig.code_name ? in->sig.code_name : "?", sf->fault_source ? sf->fault_source : "?");
	else if (in->num_frames)
		ct_crash_add_evidence(&r->crash, r->strings, "original signal: %s from pid %d, interrupting frame #%zu; the handler re-raised it",
				      sig_name(r, sf->si_signo), sf->si_pid, sf->frame + 1);
	else
		ct_crash_add_evidence(&r->crash, r->strings, "original signal: %s from pid %d, interrupting a context the unwinder did not "
				      "step into; the handler re-raised it", sig_name(r, sf->si_signo), sf->si_pid);
	ct_crash_add_detail_string(&r->crash, r->strings, "reraised_as", outer);
	ct_crash_add_detail_string(&r->crash, r->strings, "original_signal", sig_name(r, first));
	if (handler_named)
		ct_crash_add_detail_string(&r->crash, r->strings, "handler", handler->function);
	ct_crash_add_detail_int(&r->crash, r->strings, "signal_frame", (int64_t)sf->frame);
	const char *who = handler_named ? ct_strpool_printf(r->strings, "the handler %s", hname) : "a signal handler";
	if (f->sig.kernel_sent) {
		ct_crash_add_evidence(&r->crash, r->strings, "the handler then faulted itself: %s (%s)%s", outer,
				      f->sig.code_name ? f->sig.code_name : "?",
				      f->sig.has_fault_address ? ct_strpool_printf(r->strings, " at 0x%" PRIx64, f->sig.fault_address) : "");
		r->crash.summary = ct_strpool_printf(r->strings, "%s (then %s faulted too: %s)", r->crash.summary ? r->crash.summary : "",
						    who, outer);
	} else {
		r->crash.summary = ct_strpool_printf(r->strings, "%s (re-raised as %s by %s)", r->crash.summary ? r->crash.summary : "",
						    outer, who);
	}
	return rule;
}
