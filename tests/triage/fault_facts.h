/**
 * @file fault_facts.h
 * The hand-built fact set the classifier tests start from (test_classify.c, test_rule_order.c).
 */
#ifndef CT_TEST_FAULT_FACTS_H
#define CT_TEST_FAULT_FACTS_H

#include "triage/facts.h"

/** A fault by the kernel in a process with pid 100. */
static inline struct ct_facts fault(int signo, int code)
{
	struct ct_facts f = { 0 };
	f.blame = -1;
	f.insn.fault_mem = -1;
	f.sig.fatal = true;
	f.sig.signo = signo;
	f.sig.has_code = true;
	f.sig.code = code;
	f.sig.kernel_sent = code > 0;
	f.sig.user_sent = code <= 0;
	f.sig.has_pid = true;
	f.sig.pid = 100;
	f.has_pc = true;
	f.pc = 0x555555555000;
	f.pc_addr = (struct ct_address_facts){ .valid = true, .address = f.pc,
					       .mapping = { .present = true, .start = 0x555555554000, .end = 0x555555556000,
							    .flags = CT_PF_R | CT_PF_X, .file = "/home/u/prog" } };
	f.arch = "x86_64";
	f.pointer_size = 8;
	return f;
}

#endif
