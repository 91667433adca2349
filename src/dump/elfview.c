// Bounded reads of ELF headers, program headers and notes (see elfview.h).
#include <elf.h>
#include <string.h>

#include "dump/elfview.h"

struct ct_error *ct_elf_header_read(const struct ct_bytes *file, struct ct_elf_header *ret)
{
	const uint8_t *d = file->data;
	size_t size = file->size;
	if (size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0)
		return ct_error_create(CT_ERROR_CORRUPT, "not an ELF file");
	struct ct_elf_header h = { .elf_class = d[EI_CLASS] };
	if (h.elf_class != ELFCLASS32 && h.elf_class != ELFCLASS64)
		return ct_error_create(CT_ERROR_CORRUPT, "bad ELF class %u", d[EI_CLASS]);
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		return ct_error_create(CT_ERROR_CORRUPT, "bad ELF byte order %u", d[EI_DATA]);
	h.big_endian = d[EI_DATA] == ELFDATA2MSB;
	bool is64 = h.elf_class == ELFCLASS64;
	size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (size < ehsize)
		return ct_error_create(CT_ERROR_CORRUPT, "ELF header truncated (%zu of %zu bytes)", size, ehsize);
	struct ct_bytes b = { d, size, h.big_endian };
	// Offsets: Elf32_Ehdr / Elf64_Ehdr (the fields after e_version differ in width).
	h.type = (uint16_t)ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_type), 2);
	h.machine = (uint16_t)ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_machine), 2);
	if (is64) {
		h.entry = ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_entry), 8);
		h.phoff = ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_phoff), 8);
		h.shoff = ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_shoff), 8);
		h.flags = (uint32_t)ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_flags), 4);
		h.phentsize = (unsigned)ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_phentsize), 2);
		h.phnum = ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_phnum), 2);
		h.shentsize = (unsigned)ct_bytes_uint_or0(&b, offsetof(Elf64_Ehdr, e_shentsize), 2);
	} else {
		h.entry = ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_entry), 4);
		h.phoff = ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_phoff), 4);
		h.shoff = ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_shoff), 4);
		h.flags = (uint32_t)ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_flags), 4);
		h.phentsize = (unsigned)ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_phentsize), 2);
		h.phnum = ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_phnum), 2);
		h.shentsize = (unsigned)ct_bytes_uint_or0(&b, offsetof(Elf32_Ehdr, e_shentsize), 2);
	}
	*ret = h;
	return NULL;
}

size_t ct_elf_phdr_size(uint8_t elf_class)
{
	return elf_class == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
}

bool ct_elf_phnum(const struct ct_bytes *file, const struct ct_elf_header *h, uint64_t *ret)
{
	if (h->phnum != PN_XNUM) {
		*ret = h->phnum;
		return true;
	}
	bool is64 = h->elf_class == ELFCLASS64;
	size_t shdr_size = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	size_t info = is64 ? offsetof(Elf64_Shdr, sh_info) : offsetof(Elf32_Shdr, sh_info);
	struct ct_bytes b = { file->data, file->size, h->big_endian };
	uint64_t off, v;
	if (h->shoff == 0 || h->shentsize < shdr_size || ct_add_overflow(h->shoff, info, &off) ||
	    !ct_bytes_uint(&b, off, 4, &v))
		return false;
	*ret = v;
	return true;
}

bool ct_elf_phdr_read(const struct ct_bytes *b, uint8_t elf_class, uint64_t off, struct ct_elf_phdr *ret)
{
	struct ct_bytes p;
	if (!ct_bytes_sub(b, off, ct_elf_phdr_size(elf_class), &p))
		return false;
	struct ct_elf_phdr ph;
	if (elf_class == ELFCLASS64) {
		ph.type = (uint32_t)ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_type), 4);
		ph.flags = (uint32_t)ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_flags), 4);
		ph.offset = ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_offset), 8);
		ph.vaddr = ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_vaddr), 8);
		ph.filesz = ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_filesz), 8);
		ph.memsz = ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_memsz), 8);
		ph.align = ct_bytes_uint_or0(&p, offsetof(Elf64_Phdr, p_align), 8);
	} else {
		ph.type = (uint32_t)ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_type), 4);
		ph.offset = ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_offset), 4);
		ph.vaddr = ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_vaddr), 4);
		ph.filesz = ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_filesz), 4);
		ph.memsz = ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_memsz), 4);
		ph.flags = (uint32_t)ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_flags), 4);
		ph.align = ct_bytes_uint_or0(&p, offsetof(Elf32_Phdr, p_align), 4);
	}
	*ret = ph;
	return true;
}

void ct_note_iter_init(struct ct_note_iter *it, const struct ct_bytes *area)
{
	memset(it, 0, sizeof(*it));
	it->area = *area;
}

bool ct_note_iter_next(struct ct_note_iter *it, struct ct_elf_note *ret)
{
	const struct ct_bytes *a = &it->area;
	uint64_t off = it->off;
	if (it->malformed || off + 12 > a->size)
		return false;
	uint64_t namesz = ct_bytes_uint_or0(a, off, 4), descsz = ct_bytes_uint_or0(a, off + 4, 4);
	uint64_t name_off = off + 12, desc_off, next;
	if (!ct_align_up(name_off + namesz, 4, &desc_off) || !ct_align_up(desc_off + descsz, 4, &next) ||
	    !ct_in_bounds(a->size, name_off, namesz) || !ct_in_bounds(a->size, desc_off, descsz)) {
		it->malformed = true;
		it->bad_offset = off;
		it->bad_namesz = namesz;
		it->bad_descsz = descsz;
		return false;
	}
	ret->type = (uint32_t)ct_bytes_uint_or0(a, off + 8, 4);
	ret->name = (const char *)a->data + name_off;
	ret->namesz = (uint32_t)namesz;
	ret->desc = (struct ct_bytes){ a->data + desc_off, descsz, a->big_endian };
	ret->offset = off;
	// next > off always (a note is at least 12 bytes): the walk ends.
	it->off = next;
	return true;
}

bool ct_note_iter_cut(const struct ct_note_iter *it, struct ct_elf_note *ret)
{
	const struct ct_bytes *a = &it->area;
	uint64_t name_off = it->bad_offset + 12, desc_off;
	if (!it->malformed || !ct_in_bounds(a->size, name_off, it->bad_namesz) ||
	    !ct_align_up(name_off + it->bad_namesz, 4, &desc_off))
		return false;
	ret->type = (uint32_t)ct_bytes_uint_or0(a, it->bad_offset + 8, 4);
	ret->name = (const char *)a->data + name_off;
	ret->namesz = (uint32_t)it->bad_namesz;
	ret->desc = (struct ct_bytes){ a->data + (desc_off < a->size ? desc_off : a->size),
				       desc_off < a->size ? a->size - desc_off : 0, a->big_endian };
	ret->offset = it->bad_offset;
	return true;
}

bool ct_elf_note_is(const struct ct_elf_note *n, const char *name)
{
	size_t len = strlen(name) + 1;
	return n->namesz == len && memcmp(n->name, name, len) == 0;
}
