// SPDX-License-Identifier: GPL-2.0
/*
 * ct_panic: one test module for every way scripts/make-vmcores makes the kernel die. The module
 * parameter "mode" picks it; the guest's kernel command line (ct_crash=) and boot parameters pick the
 * mode and whether the kernel panics on it (softlockup_panic=1, hung_task_panic=1, panic_on_warn=1,
 * panic_on_oops). Every crash happens in a noinline function of its own, so the tests can ask for the
 * culprit function by name. Built against the guest kernel's linux-headers.
 */
#include <linux/completion.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

static char *mode = "";
module_param(mode, charp, 0444);

/* Spins with preemption off: a soft lockup (softlockup_panic=1) or an RCU stall (panic_on_rcu_stall). */
static noinline void ct_spin_forever(void)
{
	preempt_disable();
	for (;;)
		cpu_relax();
}

/*
 * An RCU stall is only seen while a grace period waits for this CPU: an idle guest may have none in
 * flight (the rcu guest once spun for 240 s without a stall, twice in one CI run). A callback queued
 * before the spin asks for one, which the other vCPU's grace-period kthread starts and this CPU, with
 * preemption off, never lets end.
 */
static struct rcu_head ct_grace_period;

static void ct_grace_period_done(struct rcu_head *head)
{
}

static DECLARE_COMPLETION(ct_never);

/* Uninterruptible sleep that never ends: the hung-task detector (hung_task_panic=1). */
static noinline void ct_sleep_forever(void)
{
	wait_for_completion(&ct_never);
	pr_info("ct_panic: woken\n"); /* never; and no tail call, so this frame stays on the stack */
}

static noinline void ct_bug(void)
{
	BUG();
}

/* Not canonical on x86-64 (bits 63..47 differ): a general protection fault, not a page fault. */
static unsigned long ct_bad_address = 0xdead000000000100ul;

static noinline void ct_noncanonical_read(void)
{
	pr_info("ct_panic: read %ld\n", READ_ONCE(*(long *)READ_ONCE(ct_bad_address)));
}

static noinline void ct_warn(void)
{
	WARN_ON(READ_ONCE(mode)[0] != 0);
}

static int ct_zero;

/* Unbounded recursion: each level keeps 256 bytes live, so the 16 KiB stack hits its guard page. */
static noinline int ct_recurse(int depth)
{
	volatile char pad[256];

	if (READ_ONCE(ct_zero) < 0) /* never: keeps the compiler from calling the recursion infinite */
		return 0;
	pad[depth & 255] = (char)depth;
	return ct_recurse(depth + 1) + pad[(depth + 1) & 255];
}

/* Both operands from memory: gcc turns 1 / z into a compare, and a constant dividend may be propagated. */
static int ct_dividend = 1000;

static noinline int ct_divide(void)
{
	return READ_ONCE(ct_dividend) / READ_ONCE(ct_zero);
}

/* Writes past a stack buffer over the canary: __stack_chk_fail panics on return. */
static int ct_smash_len = 64;

static noinline void ct_smash_canary(void)
{
	char buf[16];
	volatile char *p = buf;
	int i, n = READ_ONCE(ct_smash_len);

	for (i = 0; i < n; i++)
		p[i] = 'A';
	pr_info("ct_panic: smashed %d bytes at %px\n", n, buf);
}

static int __init ct_panic_init(void)
{
	pr_info("ct_panic: mode %s\n", mode);
	if (!strcmp(mode, "rcu"))
		call_rcu(&ct_grace_period, ct_grace_period_done);
	if (!strcmp(mode, "softlockup") || !strcmp(mode, "rcu"))
		ct_spin_forever();
	else if (!strcmp(mode, "hung"))
		ct_sleep_forever();
	else if (!strcmp(mode, "bug"))
		ct_bug();
	else if (!strcmp(mode, "gpf"))
		ct_noncanonical_read();
	else if (!strcmp(mode, "warn"))
		ct_warn();
	else if (!strcmp(mode, "overflow"))
		pr_info("ct_panic: %d\n", ct_recurse(0));
	else if (!strcmp(mode, "divide"))
		pr_info("ct_panic: %d\n", ct_divide());
	else if (!strcmp(mode, "canary"))
		ct_smash_canary();
	return -EINVAL;
}
module_init(ct_panic_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("coretriage test: kernel panics of every kind");
