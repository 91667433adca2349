// An ELF process core as a struct ct_dump: its segment table is the memory, its NT_PRSTATUS notes
// the threads, NT_FILE where the modules come from. The core itself stays the process stages' own.
#include <elf.h>
#include <string.h>

#include "dump/dump.h"
#include "dump/elfcore.h"

static bool elf_read(const struct ct_dump *dump, uint64_t addr, void *buf, size_t len)
{
	return ct_core_read_fast(dump->impl, addr, buf, len);
}

static const char *elf_fact(const struct ct_dump *dump, const char *key)
{
	(void)dump;
	(void)key;
	return NULL;
}

// A process core does not say when it was written: the trail stage takes the file's time.
static bool elf_time(const struct ct_dump *dump, struct ct_dump_time *ret)
{
	(void)dump;
	memset(ret, 0, sizeof(*ret));
	return false;
}

static void elf_close(struct ct_dump *dump)
{
	ct_core_destroy(dump->impl);
}

static const struct ct_dump_ops elf_ops = {
	.what = "process core", .read = elf_read, .fact = elf_fact, .time = elf_time, .close = elf_close,
};

void ct_dump_from_core(struct ct_core *core, const struct ct_dump_format *format, struct ct_dump *ret)
{
	*ret = (struct ct_dump){
		.ops = &elf_ops,
		.format = format,
		.arch = core->arch,
		.arch_name = core->arch_name,
		.pointer_size = core->arch ? core->arch->pointer_size : core->elf_class == ELFCLASS32 ? 4 : 8,
		.modules = CT_DUMP_MODULES_FILE_NOTE,
		.threads = core->threads,
		.num_threads = core->num_threads,
		.impl = core,
	};
}

void ct_dump_close(struct ct_dump *dump)
{
	if (dump->ops)
		dump->ops->close(dump);
	memset(dump, 0, sizeof(*dump));
}
