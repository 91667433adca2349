// The probe chain (format.h): the formats in the order their probes run. ELF vmcores come before
// process cores: a vmcore is an ET_CORE too, and must never be read as a process.
#include <string.h>

#include "dump/format.h"
#include "dump/sniff.h"

static bool probe_qemu_elf(const uint8_t *data, size_t size)
{
	return ct_probe_elf_vmcore(data, size) == CT_ELF_QEMU_VMCORE;
}

static bool probe_kdump_elf(const uint8_t *data, size_t size)
{
	return ct_probe_elf_vmcore(data, size) == CT_ELF_KDUMP_VMCORE;
}

static bool probe_elf_core(const uint8_t *data, size_t size)
{
	return ct_sniff(data, size) == CT_FORMAT_ELF_CORE;
}

// diskdump.h: "KDUMP   " for makedumpfile -c/-l/-p/-z, "DISKDUMP" for the old diskdump.
static bool probe_kdump(const uint8_t *data, size_t size)
{
	return ct_sniff(data, size) == CT_FORMAT_KDUMP;
}

// makedumpfile.h MAKEDUMPFILE_SIGNATURE: the flattened stream (makedumpfile -F, QEMU kdump-*).
static bool probe_flattened(const uint8_t *data, size_t size)
{
	return size >= 16 && memcmp(data, "makedumpfile\0\0\0\0", 16) == 0;
}

static const struct ct_dump_format formats[] = {
	{ "qemu-elf", CT_PIPELINE_KERNEL, CT_CONTAINER_ELF, true, probe_qemu_elf },
	{ "kdump-elf", CT_PIPELINE_KERNEL, CT_CONTAINER_ELF, false, probe_kdump_elf },
	{ "elf-core", CT_PIPELINE_PROCESS, CT_CONTAINER_ELF, false, probe_elf_core },
	{ "kdump-compressed", CT_PIPELINE_KERNEL, CT_CONTAINER_DISKDUMP, false, probe_kdump },
	{ "kdump-flattened", CT_PIPELINE_KERNEL, CT_CONTAINER_FLATTENED, false, probe_flattened },
};

const struct ct_dump_format *ct_dump_probe(const uint8_t *data, size_t size, unsigned pipelines)
{
	for (size_t i = 0; data && i < sizeof(formats) / sizeof(formats[0]); i++) {
		if ((pipelines & CT_PIPELINE_BIT(formats[i].pipeline)) && formats[i].probe(data, size))
			return &formats[i];
	}
	return NULL;
}

const struct ct_dump_format *ct_dump_format_at(size_t index)
{
	return index < sizeof(formats) / sizeof(formats[0]) ? &formats[index] : NULL;
}
