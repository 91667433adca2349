// SPDX-License-Identifier: GPL-2.0
/*
 * ct_null: a kernel module whose init writes through a NULL struct pointer, so the test vmcores have a
 * genuine "BUG: kernel NULL pointer dereference" Oops from a known call chain. Built by
 * scripts/make-vmcores against the guest kernel's linux-headers.
 */
#include <linux/init.h>
#include <linux/module.h>

struct ct_thing {
	long a, b;
	int victim; /* at offset 0x10, so the Oops reports address 0x10, not 0 */
};

/* noinline: keeps ct_null_write as its own frame in the Call Trace the tests compare. */
static noinline void ct_null_write(struct ct_thing *thing)
{
	WRITE_ONCE(thing->victim, 42);
}

/* Never set: READ_ONCE keeps the compiler from propagating the NULL into ct_null_write. */
static struct ct_thing *ct_null_target;

static noinline struct ct_thing *ct_null_lookup(void)
{
	return READ_ONCE(ct_null_target);
}

static int __init ct_null_init(void)
{
	ct_null_write(ct_null_lookup());
	return 0;
}
module_init(ct_null_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("coretriage test: NULL pointer write Oops");
