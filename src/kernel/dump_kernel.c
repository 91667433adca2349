// A kernel dump (libkdumpfile's view of it, struct ct_vmcore) as a struct ct_dump: kernel virtual
// memory, the CPUs with their NT_PRSTATUS registers, VMCOREINFO's facts and CRASHTIME, the architecture
// and pointer size as libkdumpfile reads them.
#include <string.h>

#include <libkdumpfile/kdumpfile.h>

#include "dump/dump.h"
#include "kernel/vmcore.h"

static bool kernel_read(const struct ct_dump *dump, uint64_t addr, void *buf, size_t len)
{
	// libkdumpfile's context caches pages as it reads: the dump stays the same dump.
	return ct_vmcore_try_read(dump->impl, addr, buf, len);
}

static const char *kernel_fact(const struct ct_dump *dump, const char *key)
{
	const struct ct_vmcore *vm = dump->impl;
	return ct_vmcoreinfo_get(&vm->vmcoreinfo, key);
}

static bool kernel_time(const struct ct_dump *dump, struct ct_dump_time *ret)
{
	const struct ct_vmcore *vm = dump->impl;
	memset(ret, 0, sizeof(*ret));
	// CRASHTIME is written by the crashing kernel (crash_save_vmcoreinfo); QEMU dumps lack it.
	ret->has_crash_time = ct_vmcoreinfo_crash_time(&vm->vmcoreinfo, &ret->crash_time);
	return ret->has_crash_time;
}

static void kernel_close(struct ct_dump *dump)
{
	ct_vmcore_close(dump->impl);
}

static const struct ct_dump_ops kernel_ops = {
	.what = "kernel dump", .read = kernel_read, .fact = kernel_fact, .time = kernel_time, .close = kernel_close,
};

void ct_dump_from_vmcore(struct ct_vmcore *vm, const struct ct_dump_format *format, size_t max_threads,
			 struct ct_dump *ret)
{
	size_t cap = max_threads ? max_threads : vm->num_cpus;
	// Without a table of ours, libkdumpfile's names (its strings live as long as its context).
	const char *arch_name = vm->arch ? vm->arch->name : NULL;
	if (!arch_name && (kdump_get_string_attr(vm->ctx, KDUMP_ATTR_ARCH_NAME, &arch_name) != KDUMP_OK))
		arch_name = NULL;
	kdump_num_t ptr_size;
	unsigned pointer_size = vm->arch ? vm->arch->pointer_size : 0;
	if (kdump_get_number_attr(vm->ctx, KDUMP_ATTR_PTR_SIZE, &ptr_size) == KDUMP_OK && ptr_size <= 8)
		pointer_size = (unsigned)ptr_size;
	*ret = (struct ct_dump){
		.ops = &kernel_ops,
		.format = format,
		.arch = vm->arch,
		.arch_name = arch_name,
		.pointer_size = pointer_size,
		.modules = CT_DUMP_MODULES_KERNEL,
		.threads = vm->cpus,
		// Registers need the dump's arch table: without one no CPU is a thread of the report.
		.num_threads = vm->arch ? (vm->num_cpus < cap ? vm->num_cpus : cap) : 0,
		.impl = vm,
	};
}
