// Is this file a kernel dump, and of which kind? Decided by signature and ELF notes only, before any
// library sees the file, so a vmcore is never reported as "not an ELF core" or read as a process.
#include <elf.h>
#include <string.h>

#include "kernel/kernel.h"
#include "util/bytes.h"

// QEMU dump-guest-memory with paging writes ~65,700 PT_LOADs (PN_XNUM); a million leaves room above
// any real machine while bounding the header walk.
#define MAX_PHDRS (1u << 20)
// Notes of a vmcore: one NT_PRSTATUS (+ one QEMU note) per CPU and VMCOREINFO; 64 Ki notes is far
// beyond 8192 CPUs.
#define MAX_NOTES 65536

struct elf_view {
	struct ct_bytes b;
	bool is64;
};

/* Looks through one PT_NOTE segment for VMCOREINFO / QEMU notes. */
static void scan_notes(const struct ct_bytes *notes, bool *vmcoreinfo, bool *qemu)
{
	uint64_t off = 0;
	for (unsigned n = 0; n < MAX_NOTES && off + 12 <= notes->size; n++) {
		uint64_t namesz = ct_bytes_uint_or0(notes, off, 4), descsz = ct_bytes_uint_or0(notes, off + 4, 4);
		uint64_t name_off = off + 12, desc_off, next;
		if (!ct_align_up(name_off + namesz, 4, &desc_off) || !ct_align_up(desc_off + descsz, 4, &next) ||
		    !ct_in_bounds(notes->size, name_off, namesz))
			return;
		const char *name = (const char *)notes->data + name_off;
		// namesz counts the terminating NUL.
		if (namesz == sizeof("VMCOREINFO") && memcmp(name, "VMCOREINFO", namesz) == 0)
			*vmcoreinfo = true;
		else if (namesz == sizeof("QEMU") && memcmp(name, "QEMU", namesz) == 0)
			*qemu = true;
		if (next <= off)
			return;
		off = next;
	}
}

static const char *probe_elf(const struct ct_bytes *file)
{
	struct elf_view e = { .b = *file };
	if (file->size < EI_NIDENT || file->data[EI_CLASS] == ELFCLASSNONE)
		return NULL;
	e.is64 = file->data[EI_CLASS] == ELFCLASS64;
	e.b.big_endian = file->data[EI_DATA] == ELFDATA2MSB;
	uint64_t type, phoff, phentsize, phnum, shoff;
	if (e.is64) {
		if (!ct_bytes_uint(&e.b, 16, 2, &type) || !ct_bytes_uint(&e.b, 32, 8, &phoff) ||
		    !ct_bytes_uint(&e.b, 40, 8, &shoff) || !ct_bytes_uint(&e.b, 54, 2, &phentsize) ||
		    !ct_bytes_uint(&e.b, 56, 2, &phnum))
			return NULL;
	} else {
		if (!ct_bytes_uint(&e.b, 16, 2, &type) || !ct_bytes_uint(&e.b, 28, 4, &phoff) ||
		    !ct_bytes_uint(&e.b, 32, 4, &shoff) || !ct_bytes_uint(&e.b, 42, 2, &phentsize) ||
		    !ct_bytes_uint(&e.b, 44, 2, &phnum))
			return NULL;
	}
	if (type != ET_CORE)
		return NULL;
	// PN_XNUM: the real count is in section header 0's sh_info (QEMU's paging dumps use it).
	if (phnum == PN_XNUM && !ct_bytes_uint(&e.b, shoff + (e.is64 ? 44 : 28), 4, &phnum))
		return NULL;
	if (phentsize < (e.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return NULL;
	if (phnum > MAX_PHDRS)
		phnum = MAX_PHDRS;
	bool vmcoreinfo = false, qemu = false, notes_cut = false, kernel_load = false;
	// QEMU puts e_phoff after two section headers (not right after the ELF header): use it as given.
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t ph = phoff + i * phentsize, p_type, p_offset, p_filesz;
		if (!ct_bytes_uint(&e.b, ph, 4, &p_type))
			break;
		if (p_type == PT_LOAD && e.is64) {
			// x86-64 kernel space, but not the vsyscall page that process cores include too.
			uint64_t vaddr = ct_bytes_uint_or0(&e.b, ph + 16, 8);
			kernel_load |= vaddr >= 0xffff800000000000ull && vaddr < 0xffffffffff600000ull;
		}
		if (p_type != PT_NOTE)
			continue;
		if (e.is64) {
			p_offset = ct_bytes_uint_or0(&e.b, ph + 8, 8);
			p_filesz = ct_bytes_uint_or0(&e.b, ph + 32, 8);
		} else {
			p_offset = ct_bytes_uint_or0(&e.b, ph + 4, 4);
			p_filesz = ct_bytes_uint_or0(&e.b, ph + 16, 4);
		}
		struct ct_bytes notes;
		if (p_offset >= e.b.size) {
			notes_cut = true;
			continue;
		}
		// A head-only dump (cut inside the notes) still counts: take what is there.
		if (p_filesz > e.b.size - p_offset)
			p_filesz = e.b.size - p_offset;
		if (ct_bytes_sub(&e.b, p_offset, p_filesz, &notes))
			scan_notes(&notes, &vmcoreinfo, &qemu);
	}
	if (qemu)
		return "qemu-elf";
	if (vmcoreinfo)
		return "kdump-elf";
	// A dump cut before its notes (QEMU's paging dumps put 3.6 MB of headers first): segments at
	// kernel addresses still tell a vmcore from a process core.
	if (notes_cut && kernel_load)
		return "kdump-elf";
	return NULL;
}

const char *ct_kernel_probe(const unsigned char *data, size_t size)
{
	struct ct_bytes file = { .data = data, .size = size };
	if (!data)
		return NULL;
	if (size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0)
		return probe_elf(&file);
	// diskdump.h: "KDUMP   " for makedumpfile -c/-l/-p/-z, "DISKDUMP" for the old diskdump.
	if (size >= 8 && (memcmp(data, "KDUMP   ", 8) == 0 || memcmp(data, "DISKDUMP", 8) == 0))
		return "kdump-compressed";
	// makedumpfile.h MAKEDUMPFILE_SIGNATURE: the flattened stream (makedumpfile -F, QEMU kdump-*).
	if (size >= 16 && memcmp(data, "makedumpfile\0\0\0\0", 16) == 0)
		return "kdump-flattened";
	return NULL;
}
