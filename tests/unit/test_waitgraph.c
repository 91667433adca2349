// The wait-for graph over hand-built wait states (src/triage/waitgraph.c), the syscall tables, the
// glibc layout table, and the deadlock rule over hand-built facts.
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/syscalls.h"
#include "test.h"
#include "triage/facts.h"
#include "triage/hang.h"
#include "triage/triage.h"

#define T(tid, lock) { tid, lock }
#define OWNED(tid) { true, tid, false }
#define FREE { false, 0, false }

static size_t cycle_tid(const struct ct_wg_result *res, const struct ct_wg_thread *t, size_t cycle, size_t k)
{
	return (size_t)t[res->order[res->cycles[cycle].start + k]].tid;
}

TEST(abba_is_one_cycle_of_two)
{
	// 20 waits for lock 1 (held by 30), 30 waits for lock 0 (held by 20); 10 joins 20 (lock 2).
	struct ct_wg_thread t[] = { T(30, 0), T(10, 2), T(20, 1) };
	struct ct_wg_lock l[] = { OWNED(20), OWNED(30), OWNED(20) };
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, 3, l, 3, &res));
	CHECK_EQ(res.num_cycles, 1);
	CHECK_EQ(res.cycles[0].length, 2);
	CHECK_EQ(cycle_tid(&res, t, 0, 0), 20); // starts at the lowest tid
	CHECK_EQ(cycle_tid(&res, t, 0, 1), 30);
	ct_wg_result_deinit(&res);
}

TEST(three_cycle_and_a_tail)
{
	// 1 -> 2 -> 3 -> 1 through locks 0..2; 4 and 5 queue behind 1 (a tail, not a cycle).
	struct ct_wg_thread t[] = { T(1, 1), T(2, 2), T(3, 0), T(4, 0), T(5, 3) };
	struct ct_wg_lock l[] = { OWNED(1), OWNED(2), OWNED(3), OWNED(4) };
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, 5, l, 4, &res));
	CHECK_EQ(res.num_cycles, 1);
	CHECK_EQ(res.cycles[0].length, 3);
	CHECK_EQ(cycle_tid(&res, t, 0, 0), 1);
	CHECK_EQ(cycle_tid(&res, t, 0, 1), 2);
	CHECK_EQ(cycle_tid(&res, t, 0, 2), 3);
	ct_wg_result_deinit(&res);
}

TEST(self_deadlock_unless_recursive)
{
	struct ct_wg_thread t[] = { T(7, 0) };
	struct ct_wg_lock normal[] = { OWNED(7) };
	struct ct_wg_lock recursive[] = { { true, 7, true } };
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, 1, normal, 1, &res));
	CHECK_EQ(res.num_cycles, 1);
	CHECK_EQ(res.cycles[0].length, 1);
	ct_wg_result_deinit(&res);
	CHECK(ct_waitgraph_cycles(t, 1, recursive, 1, &res));
	CHECK_EQ(res.num_cycles, 0);
	ct_wg_result_deinit(&res);
}

TEST(no_owner_no_edge)
{
	// A chain into a lock without a recorded owner (a condition, rwlock readers) and into a holder
	// outside the dump: never a cycle, never a guess.
	struct ct_wg_thread t[] = { T(1, 0), T(2, 1), T(3, 2), T(4, -1) };
	struct ct_wg_lock l[] = { OWNED(2), FREE, OWNED(99) };
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, 4, l, 3, &res));
	CHECK_EQ(res.num_cycles, 0);
	ct_wg_result_deinit(&res);
	CHECK(ct_waitgraph_cycles(NULL, 0, NULL, 0, &res));
	CHECK_EQ(res.num_cycles, 0);
}

TEST(two_disjoint_cycles)
{
	struct ct_wg_thread t[] = { T(5, 1), T(6, 0), T(8, 3), T(9, 2), T(1, 4) };
	struct ct_wg_lock l[] = { OWNED(5), OWNED(6), OWNED(8), OWNED(9), { true, 1, false } };
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, 5, l, 5, &res));
	CHECK_EQ(res.num_cycles, 3);
	size_t lengths = 0;
	for (size_t k = 0; k < res.num_cycles; k++)
		lengths += res.cycles[k].length;
	CHECK_EQ(lengths, 5);
	ct_wg_result_deinit(&res);
}

TEST(long_chain_is_linear)
{
	// 100,000 threads queued one behind the other, the last holding the first's lock: one cycle.
	size_t n = 100000;
	struct ct_wg_thread *t = calloc(n, sizeof(*t));
	struct ct_wg_lock *l = calloc(n, sizeof(*l));
	CHECK(t && l);
	if (!t || !l)
		return;
	for (size_t i = 0; i < n; i++) {
		t[i] = (struct ct_wg_thread){ (int)(i + 100), (long)i };
		l[i] = (struct ct_wg_lock){ true, (int)((i + 1) % n + 100), false };
	}
	struct ct_wg_result res;
	CHECK(ct_waitgraph_cycles(t, n, l, n, &res));
	CHECK_EQ(res.num_cycles, 1);
	CHECK_EQ(res.cycles[0].length, n);
	ct_wg_result_deinit(&res);
	free(t);
	free(l);
}

static void check_sorted(const struct ct_syscall_nr *table, size_t n)
{
	for (size_t i = 1; i < n; i++)
		CHECK(table[i - 1].nr < table[i].nr);
}

TEST(syscall_tables)
{
	check_sorted(ct_syscalls_x86_64, ct_num_syscalls_x86_64);
	check_sorted(ct_syscalls_i386, ct_num_syscalls_i386);
	check_sorted(ct_syscalls_generic, ct_num_syscalls_generic);
	unsigned flags;
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_x86_64, ct_num_syscalls_x86_64, 202, &flags), CT_SYS_FUTEX);
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_x86_64, ct_num_syscalls_x86_64, 0, &flags), CT_SYS_READ);
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_x86_64, ct_num_syscalls_x86_64, 230, &flags), CT_SYS_CLOCK_NANOSLEEP);
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_x86_64, ct_num_syscalls_x86_64, 9999, &flags), CT_SYS_UNKNOWN);
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_i386, ct_num_syscalls_i386, 422, &flags), CT_SYS_FUTEX);
	CHECK_EQ(flags, CT_SYSCALL_TIME64);
	CHECK_EQ(ct_syscall_lookup(ct_syscalls_generic, ct_num_syscalls_generic, 98, &flags), CT_SYS_FUTEX);
	CHECK_STR(ct_syscall_to_string(CT_SYS_EPOLL_WAIT), "epoll_wait");
	// Every architecture with a table names where the call's number and return value are.
	const struct ct_arch_info *archs[] = { &ct_arch_x86_64, &ct_arch_i386, &ct_arch_aarch64, &ct_arch_riscv64 };
	for (size_t i = 0; i < 4; i++) {
		CHECK(archs[i]->syscalls != NULL);
		CHECK((size_t)archs[i]->syscall_nr_index < archs[i]->num_regs);
		CHECK((size_t)archs[i]->syscall_ret_index < archs[i]->num_regs);
		CHECK(archs[i]->syscall_insn_len > 0);
	}
}

TEST(glibc_layouts)
{
	const struct ct_glibc_layout *l = ct_glibc_layout_find("x86_64", 2, 36);
	CHECK(l && l->mutex_owner == 8 && l->mutex_kind == 16 && l->rwlock_cur_writer == 24 && l->cond_signals == 40);
	const struct ct_glibc_layout *old = ct_glibc_layout_find("x86_64", 2, 17);
	CHECK(old && old->mutex_owner == 8 && old->rwlock_size == 0); // pre-2.25 rwlock: not read
	const struct ct_glibc_layout *unknown = ct_glibc_layout_find("x86_64", 0, 0);
	CHECK(unknown && unknown->rwlock_size == 0 && unknown->mutex_size == 40);
	const struct ct_glibc_layout *i386 = ct_glibc_layout_find("i386", 2, 36);
	CHECK(i386 && i386->mutex_kind == 12 && i386->rwlock_cur_writer == 28);
	CHECK(ct_glibc_layout_find("s390x", 2, 36) == NULL);
}

/* ---- the deadlock rule over hand-built facts ---- */

static void hand_built_hang(struct ct_hang *h, struct ct_lock *locks, struct ct_cycle_member *m, struct ct_cycle *c)
{
	memset(h, 0, sizeof(*h));
	locks[0] = (struct ct_lock){ .address = 0x1000, .kind = CT_LOCK_MUTEX, .name = "accounts", .has_owner = true, .owner = 11,
				     .owner_field = "__owner", .owner_in_dump = true };
	locks[1] = (struct ct_lock){ .address = 0x1040, .kind = CT_LOCK_MUTEX, .name = "orders", .has_owner = true, .owner = 12,
				     .owner_field = "__owner", .owner_in_dump = true };
	m[0] = (struct ct_cycle_member){ 11, 1, "transfer_funds", NULL };
	m[1] = (struct ct_cycle_member){ 12, 0, "restock", NULL };
	c[0] = (struct ct_cycle){ 0, 2 };
	h->present = true;
	h->locks = locks;
	h->num_locks = 2;
	h->members = m;
	h->num_members = 2;
	h->cycles = c;
	h->num_cycles = 1;
}

TEST(deadlock_outranks_only_signal_verdicts)
{
	struct ct_hang h;
	struct ct_lock locks[2];
	struct ct_cycle_member m[2];
	struct ct_cycle c[1];
	hand_built_hang(&h, locks, m, c);
	struct ct_facts f;
	memset(&f, 0, sizeof(f));
	f.hang = &h;
	CHECK(ct_deadlock_outranks(&f, CT_CLASS_EXTERNAL_SIGNAL));
	CHECK(ct_deadlock_outranks(&f, CT_CLASS_NO_SIGNAL));
	CHECK(ct_deadlock_outranks(&f, CT_CLASS_SELF_SIGNAL));
	CHECK(!ct_deadlock_outranks(&f, CT_CLASS_NULL_DEREF));
	CHECK(!ct_deadlock_outranks(&f, CT_CLASS_ABORT));
	h.num_cycles = 0;
	CHECK(!ct_deadlock_outranks(&f, CT_CLASS_EXTERNAL_SIGNAL));
	f.hang = NULL;
	CHECK(!ct_deadlock_outranks(&f, CT_CLASS_NO_SIGNAL));
}

TEST(deadlock_fill_and_signature)
{
	struct ct_report rep;
	CHECK(ct_report_init(&rep));
	struct ct_verdict r;
	ct_verdict_init(&r, &rep.strings);
	struct ct_lock locks[2];
	struct ct_cycle_member m[2];
	struct ct_cycle c[1];
	hand_built_hang(&r.hang, locks, m, c);
	struct ct_facts f;
	memset(&f, 0, sizeof(f));
	f.hang = &r.hang;
	f.blame = -1;
	f.sig.fatal = true;
	f.sig.user_sent = true;
	f.sig.has_sender = true;
	f.sig.signo = 6;
	ct_deadlock_fill(&f, &r);
	CHECK_EQ(r.crash.cls, CT_CLASS_DEADLOCK);
	CHECK(r.crash.subclass == NULL);
	CHECK(strstr(r.crash.summary, "thread 11 in transfer_funds waits for mutex `orders` held by thread 12") != NULL);
	bool threads = false;
	for (size_t i = 0; i < r.crash.num_details; i++)
		threads |= !strcmp(r.crash.details[i].key, "cycle_threads") && !strcmp(r.crash.details[i].string, "11 -> 12");
	CHECK(threads);
	// The signature: the functions taking the locks, rotated to the smallest key; tids do not matter.
	const char *sig = ct_hang_signature(&r);
	CHECK_STR(sig, "deadlock|restock@accounts|transfer_funds@orders");
	m[0].tid = 500;
	m[1].tid = 400;
	CHECK_STR(ct_hang_signature(&r), sig);
	// The model's arrays here are the test's: detach them before deinit.
	memset(&r.hang, 0, sizeof(r.hang));
	ct_verdict_free(&r);
	ct_report_deinit(&rep);
}

TEST(self_deadlock_fill)
{
	struct ct_report rep;
	CHECK(ct_report_init(&rep));
	struct ct_verdict r;
	ct_verdict_init(&r, &rep.strings);
	struct ct_lock locks[2];
	struct ct_cycle_member m[2];
	struct ct_cycle c[1];
	hand_built_hang(&r.hang, locks, m, c);
	m[0] = (struct ct_cycle_member){ 11, 0, "refresh_entry", NULL };
	c[0].length = 1;
	struct ct_facts f;
	memset(&f, 0, sizeof(f));
	f.hang = &r.hang;
	f.blame = -1;
	ct_deadlock_fill(&f, &r);
	CHECK_EQ(r.crash.cls, CT_CLASS_DEADLOCK);
	CHECK_STR(r.crash.subclass, "self-deadlock");
	CHECK_STR(ct_hang_signature(&r), "deadlock/self-deadlock|refresh_entry@accounts");
	memset(&r.hang, 0, sizeof(r.hang));
	ct_verdict_free(&r);
	ct_report_deinit(&rep);
}

TEST_MAIN()
