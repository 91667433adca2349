// The dynamic linker's list of loaded objects, read from the dump for cores without NT_FILE
// (qemu-user's, old kernels'): AT_PHDR → the program's PT_DYNAMIC → DT_DEBUG (mips:
// DT_MIPS_RLD_MAP, DT_MIPS_RLD_MAP_REL) → struct r_debug → struct link_map {l_addr, l_name, l_ld,
// l_next, l_prev} (glibc elf/link.h), every field one target word. Each object becomes a file
// mapping at its load address, as NT_FILE would have named it, so that module discovery opens it
// under --sysroot, checks its build-id against the dump and reports its trust like any other.
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump/elfview.h"
#include "modules/linkmap.h"
#include "modules/sysroot.h"
#include "util/cleanup.h"
#include "util/bytes.h"

#ifndef DT_MIPS_RLD_MAP
#define DT_MIPS_RLD_MAP 0x70000016
#endif
#ifndef DT_MIPS_RLD_MAP_REL
#define DT_MIPS_RLD_MAP_REL 0x70000035
#endif

/** Program headers and dynamic entries read from the dump: a sane program has a few dozen. */
#define MAX_PHDRS 128
#define MAX_DYN 1024
/** Longest l_name read (PATH_MAX). */
#define MAX_NAME 4096

static bool word_at(const struct ct_core *core, uint64_t addr, uint64_t *ret)
{
	return ct_core_read_word(core, addr, ret);
}

// Headers of an object loaded at @p base: from the dump, or, where the dump left the read-only pages
// out (qemu-user does), from its file @p fd (the first PT_LOAD maps file offset 0 at base).
static bool header_bytes(const struct ct_core *core, uint64_t base, uint64_t off, int fd, void *buf, size_t len)
{
	// base UINT64_MAX: the object's place is not known, only its file is read.
	if (base != UINT64_MAX && ct_core_read_fast(core, base + off, buf, len))
		return true;
	return fd >= 0 && off < (1u << 20) && pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/** The ELF header and program headers of the object at @p base; false when neither source has them. */
static bool read_headers(const struct ct_core *core, uint64_t base, int fd, struct ct_elf_header *h, uint8_t *buf,
			 size_t cap, struct ct_bytes *ret)
{
	uint8_t head[64];
	if (!header_bytes(core, base, 0, fd, head, sizeof(head)))
		return false;
	struct ct_bytes hb = { .data = head, .size = sizeof(head) };
	struct ct_error *err = ct_elf_header_read(&hb, h);
	if (err) {
		ct_error_destroy(err);
		return false;
	}
	size_t phsz = ct_elf_phdr_size(h->elf_class);
	if (h->elf_class != core->elf_class || h->machine != core->e_machine || h->phentsize != phsz || h->phnum == 0 ||
	    h->phnum * phsz > cap || !header_bytes(core, base, h->phoff, fd, buf, h->phnum * phsz))
		return false;
	*ret = (struct ct_bytes){ .data = buf, .size = h->phnum * phsz, .big_endian = h->big_endian };
	return true;
}

/**
 * The program's r_debug address, from its dynamic section found through AT_PHDR, and the program's
 * own range (its PT_LOAD segments).
 */
static bool find_r_debug(const struct ct_core *core, int exe_fd, uint64_t *ret, uint64_t *main_start,
			 uint64_t *main_end)
{
	unsigned w = core->arch->pointer_size;
	bool is64 = core->elf_class == ELFCLASS64;
	uint64_t phdr, phnum;
	if (!ct_core_auxv(core, AT_PHDR, &phdr) || !ct_core_auxv(core, AT_PHNUM, &phnum) || phnum > MAX_PHDRS)
		return false;
	size_t phsz = ct_elf_phdr_size(core->elf_class);
	uint8_t buf[MAX_PHDRS * 56];
	struct ct_bytes b = { .data = buf, .size = phnum * phsz, .big_endian = core->big_endian };
	if (!ct_core_read_fast(core, phdr, buf, phnum * phsz)) {
		// Not in the dump: the executable's own program headers (those AT_PHDR points at).
		struct ct_elf_header h;
		if (exe_fd < 0 || !read_headers(core, UINT64_MAX, exe_fd, &h, buf, sizeof(buf), &b) || h.phnum != phnum)
			return false;
	}
	uint64_t bias = 0, dyn = 0, dynsz = 0, dynoff = 0, lo = UINT64_MAX, hi = 0;
	bool has_phdr = false;
	for (uint64_t i = 0; i < phnum; i++) {
		struct ct_elf_phdr ph;
		if (!ct_elf_phdr_read(&b, core->elf_class, i * phsz, &ph))
			return false;
		if (ph.type == PT_PHDR) {
			bias = phdr - ph.vaddr;
			has_phdr = true;
		} else if (ph.type == PT_DYNAMIC) {
			dyn = ph.vaddr;
			dynsz = ph.filesz < ph.memsz ? ph.filesz : ph.memsz;
			dynoff = ph.offset;
		} else if (ph.type == PT_LOAD) {
			lo = ph.vaddr < lo ? ph.vaddr : lo;
			hi = ph.vaddr + ph.memsz > hi ? ph.vaddr + ph.memsz : hi;
		}
	}
	if (!has_phdr || !dyn || lo >= hi)
		return false;
	dyn += bias;
	*main_start = bias + (lo & ~(uint64_t)4095);
	*main_end = bias + hi;
	uint64_t entsz = 2 * (uint64_t)w;
	if (dynsz > MAX_DYN * entsz)
		dynsz = MAX_DYN * entsz;
	// The dynamic section is in the dump, or (mips keeps it in the read-only text, which qemu-user
	// leaves out) in the executable.
	_cleanup_free_ uint8_t *d = malloc(dynsz ? dynsz : 1);
	if (!d || (!ct_core_read_fast(core, dyn, d, dynsz) &&
		   (exe_fd < 0 || pread(exe_fd, d, dynsz, (off_t)dynoff) != (ssize_t)dynsz)))
		return false;
	for (uint64_t i = 0; (i + 1) * entsz <= dynsz; i++) {
		uint64_t at = dyn + i * entsz;
		const uint8_t *e = d + i * entsz;
		uint64_t tag = w == 8 ? ct_load64(e, core->big_endian) : ct_load32(e, core->big_endian);
		uint64_t val = w == 8 ? ct_load64(e + 8, core->big_endian) : ct_load32(e + 4, core->big_endian);
		if (!is64)
			tag = (uint64_t)(int64_t)(int32_t)tag;
		if (tag == DT_NULL)
			break;
		if (tag == DT_DEBUG && val) {
			*ret = val;
			return true;
		}
		// mips keeps .dynamic read-only: the linker stores r_debug's address in a word it names.
		if ((tag == DT_MIPS_RLD_MAP && val) || tag == DT_MIPS_RLD_MAP_REL) {
			uint64_t slot = tag == DT_MIPS_RLD_MAP ? val : at + val, r;
			if (word_at(core, slot, &r) && r) {
				*ret = r;
				return true;
			}
		}
	}
	return false;
}

/**
 * Start and end of the object loaded at @p l_addr, from its ELF and program headers in the dump or in
 * its file @p fd (-1: none).
 */
static bool object_range(const struct ct_core *core, uint64_t l_addr, int fd, uint64_t *start, uint64_t *end)
{
	uint8_t buf[MAX_PHDRS * 56];
	struct ct_elf_header h;
	struct ct_bytes b;
	size_t phsz = ct_elf_phdr_size(core->elf_class);
	if (!read_headers(core, l_addr, fd, &h, buf, sizeof(buf), &b))
		return false;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint64_t i = 0; i < h.phnum; i++) {
		struct ct_elf_phdr ph;
		if (ct_elf_phdr_read(&b, h.elf_class, i * phsz, &ph) && ph.type == PT_LOAD) {
			lo = ph.vaddr < lo ? ph.vaddr : lo;
			hi = ph.vaddr + ph.memsz > hi ? ph.vaddr + ph.memsz : hi;
		}
	}
	if (lo >= hi)
		return false;
	*start = l_addr + (lo & ~(uint64_t)4095);
	*end = l_addr + hi;
	return true;
}

size_t ct_linkmap_files(const struct ct_core *core, const char *main_path, const char *sysroot, size_t max,
			struct ct_file_mapping **ret)
{
	*ret = NULL;
	uint64_t r_debug, map, main_start, main_end;
	_cleanup_close_ int exe_fd = main_path ? open(main_path, O_RDONLY | O_CLOEXEC) : -1;
	if (!core->arch || max < 2 || !find_r_debug(core, exe_fd, &r_debug, &main_start, &main_end))
		return 0;
	unsigned w = core->arch->pointer_size;
	// struct r_debug: int r_version, then r_map (pointer-aligned).
	if (!word_at(core, r_debug + w, &map) || !map)
		return 0;
	struct ct_file_mapping *files = calloc(max ? max : 1, sizeof(*files));
	if (!files)
		return 0;
	size_t n = 0;
	if (main_path) {
		files[0] = (struct ct_file_mapping){ .start = main_start, .end = main_end, .path = strdup(main_path) };
		n = files[0].path != NULL;
	}
	// The list is bounded by the cap, not by trusting l_next: a cycle ends there too.
	for (size_t steps = 0; map && steps < max && n < max; steps++) {
		uint64_t l_addr, l_name, next;
		if (!word_at(core, map, &l_addr) || !word_at(core, map + w, &l_name) || !word_at(core, map + 3 * w, &next))
			break;
		char *name = NULL;
		struct ct_error *err = l_name ? ct_core_read_string(core, l_name, MAX_NAME, &name) : NULL;
		if (err) {
			ct_error_destroy(err);
			name = NULL;
		}
		uint64_t start, end;
		// The program itself has an empty name; the vdso's is not a path. The file is opened as
		// module discovery will open it: inside --sysroot when given.
		_cleanup_close_ int fd = -1;
		if (name && name[0] == '/')
			fd = sysroot && *sysroot ? ct_sysroot_open(sysroot, name) : open(name, O_RDONLY | O_CLOEXEC);
		if (name && name[0] == '/' && object_range(core, l_addr, fd, &start, &end)) {
			files[n].start = start;
			files[n].end = end;
			files[n].file_offset = 0;
			files[n].path = name;
			n++;
		} else {
			free(name);
		}
		map = next;
	}
	if (n <= (main_path != NULL)) {
		for (size_t i = 0; i < n; i++)
			free(files[i].path);
		free(files);
		return 0;
	}
	*ret = files;
	return n;
}
