// The kernel's crash lines read generally (src/kernel/die_line.c) and the kernel rule table over a log
// (panic_parse.c, kclass.c): wordings the test guests do not produce, as Linux prints them
// (arch/x86/kernel/dumpstack.c __die_header, traps.c, kernel/panic.c), still get their exception's name
// and the nearest class.
#include <string.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "test.h"
#include "triage/triage.h"

static bool die(const char *line, struct ct_die_header *d)
{
	return ct_die_header_parse(line, strlen(line), d);
}

TEST(die_headers)
{
	struct ct_die_header d;
	CHECK(die("divide error: 0000 [#1] PREEMPT SMP NOPTI", &d));
	CHECK_EQ(d.name_len, strlen("divide error"));
	CHECK_EQ(d.error_code, 0);
	CHECK_EQ(d.count, 1);
	CHECK(die("general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI", &d));
	CHECK_EQ(d.name_len, strlen("general protection fault"));
	CHECK(die("kernel stack overflow (double-fault): 0000 [#1] SMP", &d));
	CHECK_EQ(d.name_len, strlen("kernel stack overflow (double-fault)"));
	CHECK(die("Oops: 0002 [#3] PREEMPT SMP NOPTI", &d));
	CHECK_EQ(d.error_code, 2);
	CHECK_EQ(d.count, 3);
	CHECK(die("stack segment: 0000 [#1] SMP PTI", &d));
	CHECK_EQ(d.name_len, strlen("stack segment"));
	CHECK(!die("BUG: kernel NULL pointer dereference, address: 0000000000000010", &d));
	CHECK(!die("ct_panic: mode divide [#1]", &d));
	CHECK(!die(": 0000 [#1]", &d));
}

TEST(panic_reasons)
{
	CHECK_EQ(ct_panic_reason_classify(NULL), CT_REASON_NONE);
	CHECK_EQ(ct_panic_reason_classify("Fatal exception in interrupt"), CT_REASON_FATAL_EXCEPTION);
	CHECK_EQ(ct_panic_reason_classify("softlockup: hung tasks"), CT_REASON_SOFT_LOCKUP);
	CHECK_EQ(ct_panic_reason_classify("hung_task: blocked tasks"), CT_REASON_HUNG_TASK);
	CHECK_EQ(ct_panic_reason_classify("RCU Stall"), CT_REASON_RCU_STALL);
	CHECK_EQ(ct_panic_reason_classify("kernel: panic_on_warn set ..."), CT_REASON_WARN);
	CHECK_EQ(ct_panic_reason_classify("stack-protector: Kernel stack is corrupted in: f+0x1/0x2"), CT_REASON_STACK_PROTECTOR);
	CHECK_EQ(ct_panic_reason_classify("Watchdog detected hard LOCKUP on cpu 3"), CT_REASON_HARD_LOCKUP);
	CHECK_EQ(ct_panic_reason_classify("corrupted stack end detected inside scheduler"), CT_REASON_STACK_OVERFLOW);
	CHECK_EQ(ct_panic_reason_classify("something nobody wrote yet"), CT_REASON_OTHER);
}

TEST(symbol_text)
{
	struct ct_ksym_text t;
	const char *s = "? ct_recurse+0x2d/0x7a [ct_panic]";
	CHECK(ct_ksym_text_parse(s, strlen(s), &t));
	CHECK(t.unreliable);
	CHECK_STR(t.function, "ct_recurse");
	CHECK_STR(t.module, "ct_panic");
	CHECK_EQ(t.offset, 0x2d);
	CHECK_EQ(t.size, 0x7a);
	s = "do_one_initcall+0x56/0x220";
	CHECK(ct_ksym_text_parse(s, strlen(s), &t));
	CHECK(!t.unreliable && !*t.module);
	s = "? 0xffffffffc054d000";
	CHECK(!ct_ksym_text_parse(s, strlen(s), &t));
}

static const char *classify(struct ct_report *r, const char *log)
{
	struct ct_panic_record rec;
	ct_panic_parse(&r->strings, log, &rec);
	struct ct_verdict verdict;
	ct_verdict_init(&verdict, &r->strings);
	ct_kernel_classify(&verdict, &ct_arch_x86_64, &rec);
	ct_verdict_move_to_report(&verdict, r);
	ct_panic_record_deinit(&rec);
	return ct_class_to_string(r->crash.cls);
}

// An exception without a class of its own (int3 in kernel code): the nearest class and its name.
TEST(unknown_exception_is_kernel_oops)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	const char *log = "[   10.000000] int3: 0000 [#1] PREEMPT SMP NOPTI\n"
			  "[   10.000001] CPU: 1 PID: 95 Comm: insmod Tainted: G           OE      6.1.0-57-amd64 #1\n"
			  "[   10.000002] RIP: 0010:ct_trap+0x1/0x2 [ct_mod]\n"
			  "[   10.000003] Kernel panic - not syncing: Fatal exception\n";
	CHECK_STR(classify(&r, log), "kernel-oops");
	CHECK_STR(r.crash.subclass, "int3");
	CHECK(strstr(r.crash.summary, "int3") && strstr(r.crash.summary, "ct_trap") && strstr(r.crash.summary, "CPU 1"));
	ct_report_deinit(&r);
}

// The older x86 wording of a stack overflow (a double fault on the guard page, Linux 4.x-5.x).
TEST(old_double_fault_overflow)
{
	struct ct_report r;
	CHECK(ct_report_init(&r));
	const char *log = "[    5.000000] kernel stack overflow (double-fault): 0000 [#1] SMP\n"
			  "[    5.000001] CPU: 0 PID: 1 Comm: init Not tainted 5.10.0-20-amd64 #1\n"
			  "[    5.000002] RIP: 0010:deep+0x10/0x40\n"
			  "[    5.000003] Kernel panic - not syncing: Fatal exception in interrupt\n";
	CHECK_STR(classify(&r, log), "kernel-stack-overflow");
	CHECK(strstr(r.crash.summary, "deep+0x10/0x40") != NULL);
	ct_report_deinit(&r);
}

TEST(rule_names)
{
	CHECK_STR(ct_kernel_rule_name(0), "kernel-stack-overflow");
	size_t n = 0;
	while (ct_kernel_rule_name(n))
		n++;
	CHECK_STR(ct_kernel_rule_name(n - 1), "unknown");
}

TEST_MAIN()
