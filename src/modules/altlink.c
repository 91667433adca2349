// The shared (dwz) file a debug file names: .gnu_debugaltlink or .debug_sup (see altlink.h).
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "modules/altlink.h"

/** Largest link section read: a path, a NUL and a build-id. */
#define MAX_SECTION (CT_ALTLINK_MAX_NAME + 16 + CT_ALTLINK_MAX_ID)

// The section named @p want (any type), NULL when none.
static Elf_Scn *section_header(Elf *elf, const char *want)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

static Elf_Data *section(Elf *elf, const char *want)
{
	Elf_Scn *scn = section_header(elf, want);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return NULL;
	// objcopy --compress-debug-sections compresses .debug_sup with the rest: inflated when its
	// header claims a size a path and a build-id can have (a hostile one claims GiB).
	GElf_Chdr ch;
	if ((sh.sh_flags & SHF_COMPRESSED) &&
	    (!gelf_getchdr(scn, &ch) || ch.ch_size > MAX_SECTION || elf_compress(scn, 0, 0) < 0))
		return NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size ? d : NULL;
}

// "name\0" at @p p of @p n bytes into ret->name (empty allowed when @p empty_ok); the bytes after the
// NUL through *@p rest.
static bool take_name(const uint8_t *p, size_t n, bool empty_ok, struct ct_altlink *ret, const uint8_t **rest)
{
	const uint8_t *z = memchr(p, 0, n);
	size_t len = z ? (size_t)(z - p) : 0;
	if (!z || (len == 0 && !empty_ok) || len >= sizeof(ret->name))
		return false;
	memcpy(ret->name, p, len);
	ret->name[len] = '\0';
	*rest = z + 1;
	return true;
}

static bool gnu_altlink(Elf_Data *d, struct ct_altlink *ret)
{
	const uint8_t *p = d->d_buf, *end = p + d->d_size, *id;
	if (!take_name(p, d->d_size, false, ret, &id))
		return false;
	size_t n = (size_t)(end - id);
	if (n == 0 || n > sizeof(ret->id))
		return false;
	memcpy(ret->id, id, n);
	ret->id_len = n;
	ret->dwarf5 = false;
	return true;
}

// A .debug_sup of the file that refers to a supplementary file (@p supplementary false: a name is
// required) or of the supplementary file itself (true: its own checksum, the name empty).
static bool debug_sup(Elf_Data *d, bool supplementary, struct ct_altlink *ret)
{
	const uint8_t *p = d->d_buf, *end = p + d->d_size, *q;
	// version (uhalf, 5 in either byte order), is_supplementary
	if (d->d_size < 4 || !((p[0] == 5 && p[1] == 0) || (p[0] == 0 && p[1] == 5)) || p[2] != supplementary)
		return false;
	if (!take_name(p + 3, d->d_size - 3, supplementary, ret, &q))
		return false;
	uint64_t len = 0;
	unsigned shift = 0;
	for (;; shift += 7) {
		if (q >= end || shift > 63)
			return false;
		uint8_t b = *q++;
		len |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	if (len == 0 || len > sizeof(ret->id) || len > (uint64_t)(end - q))
		return false;
	memcpy(ret->id, q, (size_t)len);
	ret->id_len = (size_t)len;
	ret->dwarf5 = true;
	return true;
}

bool ct_altlink_sup_checksum(Elf *elf, uint8_t *id, size_t *len)
{
	struct ct_altlink self;
	Elf_Data *d = elf && elf_kind(elf) == ELF_K_ELF ? section(elf, ".debug_sup") : NULL;
	if (!d || !debug_sup(d, true, &self))
		return false;
	memcpy(id, self.id, self.id_len);
	*len = self.id_len;
	return true;
}

bool ct_altlink_read(Elf *elf, struct ct_altlink *ret)
{
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return false;
	Elf_Data *d = section(elf, ".gnu_debugaltlink");
	if (d)
		return gnu_altlink(d, ret);
	d = section(elf, ".debug_sup");
	return d && debug_sup(d, false, ret);
}

int ct_altlink_read_path(const char *path, struct ct_altlink *ret)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int found = ct_altlink_read(elf, ret) ? 1 : elf && section_header(elf, ".gnu_debugaltlink") ? 0 : -1;
	elf_end(elf);
	close(fd);
	return found;
}
