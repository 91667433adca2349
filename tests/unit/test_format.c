// Unit tests of the probe chain (src/dump/format.c): its order and the pipelines filter, over
// signature bytes only (the probes of real dumps run in the kernel and golden tests).
#include <elf.h>

#include "dump/format.h"
#include "test.h"

TEST(chain_order)
{
	// ELF vmcores are probed before process cores: a vmcore is an ET_CORE too.
	size_t core = 0, qemu = 0, kdump = 0, n = 0;
	for (const struct ct_dump_format *f; (f = ct_dump_format_at(n)); n++) {
		CHECK(f->name && f->probe);
		if (strcmp(f->name, "elf-core") == 0)
			core = n + 1;
		if (strcmp(f->name, "qemu-elf") == 0)
			qemu = n + 1;
		if (strcmp(f->name, "kdump-elf") == 0)
			kdump = n + 1;
	}
	CHECK(n == 5 && core && qemu && kdump && qemu < core && kdump < core);
}

TEST(probe_by_signature)
{
	unsigned all = CT_PIPELINE_BIT(CT_PIPELINE_PROCESS) | CT_PIPELINE_BIT(CT_PIPELINE_KERNEL);
	uint8_t kdump[64] = "KDUMP   ", flat[64] = "makedumpfile", other[64] = "hello";
	const struct ct_dump_format *f = ct_dump_probe(kdump, sizeof(kdump), all);
	CHECK(f && strcmp(f->name, "kdump-compressed") == 0 && f->pipeline == CT_PIPELINE_KERNEL);
	f = ct_dump_probe(flat, sizeof(flat), all);
	CHECK(f && strcmp(f->name, "kdump-flattened") == 0);
	CHECK(!ct_dump_probe(other, sizeof(other), all));
	CHECK(!ct_dump_probe(NULL, 0, all));
	// A build without the kernel pipeline takes no kernel format.
	CHECK(!ct_dump_probe(kdump, sizeof(kdump), CT_PIPELINE_BIT(CT_PIPELINE_PROCESS)));
	// An ELF core header without notes: a process core.
	Elf64_Ehdr h = { .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_ehsize = sizeof(h),
			 .e_phentsize = sizeof(Elf64_Phdr) };
	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	f = ct_dump_probe((const uint8_t *)&h, sizeof(h), all);
	CHECK(f && strcmp(f->name, "elf-core") == 0 && f->pipeline == CT_PIPELINE_PROCESS);
}

TEST_MAIN()
