// Is this ELF core a kernel dump, and of which kind? Decided by the ELF notes (and segment addresses)
// only, before any library sees the file, so a vmcore is never read as a process (format.c's chain).
#include <elf.h>
#include <string.h>

#include "arch/arch.h"
#include "dump/elfview.h"
#include "dump/format.h"
#include "util/bytes.h"

// QEMU dump-guest-memory with paging writes ~65,700 PT_LOADs (PN_XNUM); a million leaves room above
// any real machine while bounding the header walk.
#define MAX_PHDRS (1u << 20)
// Notes of a vmcore: one NT_PRSTATUS (+ one QEMU note) per CPU and VMCOREINFO; 64 Ki notes is far
// beyond 8192 CPUs.
#define MAX_NOTES 65536

/*
 * Whether a whole VMCOREINFO note has the CRASHTIME line that crash_save_vmcoreinfo() appends when the
 * kernel crashes into kdump (kernel/crash_core.c). QEMU copies the guest's VMCOREINFO as the kernel
 * published it at boot, without that line.
 */
static bool has_crashtime(const struct ct_bytes *desc)
{
	static const char key[] = "CRASHTIME=";
	const size_t n = sizeof(key) - 1;
	for (size_t i = 0; i + n <= desc->size; i++) {
		if ((i == 0 || desc->data[i - 1] == '\n') && memcmp(desc->data + i, key, n) == 0)
			return true;
	}
	return false;
}

/*
 * Looks through one PT_NOTE segment for VMCOREINFO / QEMU notes. *unstamped: a complete VMCOREINFO
 * note without CRASHTIME (QEMU's dump of an arm guest has no "QEMU" note, only this tells it apart).
 */
static void scan_notes(const struct ct_bytes *notes, bool *vmcoreinfo, bool *qemu, bool *unstamped)
{
	struct ct_note_iter it;
	struct ct_elf_note n;
	ct_note_iter_init(&it, notes);
	unsigned i = 0;
	while (i++ < MAX_NOTES && ct_note_iter_next(&it, &n)) {
		bool vi = ct_elf_note_is(&n, "VMCOREINFO");
		*vmcoreinfo |= vi;
		*unstamped |= vi && !has_crashtime(&n.desc);
		*qemu |= ct_elf_note_is(&n, "QEMU");
	}
	// A head-only dump cut inside a note still names it.
	if (ct_note_iter_cut(&it, &n)) {
		*vmcoreinfo |= ct_elf_note_is(&n, "VMCOREINFO");
		*qemu |= ct_elf_note_is(&n, "QEMU");
	}
}

static enum ct_elf_vmcore probe_elf(const struct ct_bytes *file)
{
	struct ct_elf_header h;
	struct ct_error *err = ct_elf_header_read(file, &h);
	if (err) {
		ct_error_destroy(err);
		return CT_ELF_NOT_VMCORE;
	}
	struct ct_bytes b = { file->data, file->size, h.big_endian };
	uint64_t phnum;
	if (h.type != ET_CORE || !ct_elf_phnum(&b, &h, &phnum) || h.phentsize < ct_elf_phdr_size(h.elf_class))
		return CT_ELF_NOT_VMCORE;
	if (phnum > MAX_PHDRS)
		phnum = MAX_PHDRS;
	// Kernel space of the dump's architecture, when its table knows it (the x86-64 check also
	// leaves out the vsyscall page that process cores include).
	const struct ct_arch_info *arch = ct_arch_find_endian(h.machine, h.elf_class, h.big_endian);
	uint64_t kernel_start = arch ? arch->kernel_address_start : 0;
	bool vmcoreinfo = false, qemu = false, unstamped = false, notes_cut = false, kernel_load = false;
	// QEMU puts e_phoff after two section headers (not right after the ELF header): use it as given.
	for (uint64_t i = 0; i < phnum; i++) {
		struct ct_elf_phdr ph;
		if (!ct_elf_phdr_read(&b, h.elf_class, h.phoff + i * h.phentsize, &ph))
			break;
		if (ph.type == PT_LOAD && kernel_start)
			kernel_load |= ph.vaddr >= kernel_start && ph.vaddr < 0xffffffffff600000ull;
		if (ph.type != PT_NOTE)
			continue;
		struct ct_bytes notes;
		if (ph.offset >= b.size) {
			notes_cut = true;
			continue;
		}
		// A head-only dump (cut inside the notes) still counts: take what is there.
		uint64_t filesz = ph.filesz;
		if (filesz > b.size - ph.offset)
			filesz = b.size - ph.offset;
		if (ct_bytes_sub(&b, ph.offset, filesz, &notes))
			scan_notes(&notes, &vmcoreinfo, &qemu, &unstamped);
	}
	if (qemu || unstamped)
		return CT_ELF_QEMU_VMCORE;
	if (vmcoreinfo)
		return CT_ELF_KDUMP_VMCORE;
	// A dump cut before its notes (QEMU's paging dumps put 3.6 MB of headers first): segments at
	// kernel addresses still tell a vmcore from a process core.
	if (notes_cut && kernel_load)
		return CT_ELF_KDUMP_VMCORE;
	return CT_ELF_NOT_VMCORE;
}

enum ct_elf_vmcore ct_probe_elf_vmcore(const uint8_t *data, size_t size)
{
	struct ct_bytes file = { .data = data, .size = size };
	if (!data || size < SELFMAG || memcmp(data, ELFMAG, SELFMAG) != 0)
		return CT_ELF_NOT_VMCORE;
	return probe_elf(&file);
}
