// The FDO package note of a module (pkgnote.h), as systemd-coredump reads it (systemd v252
// src/shared/elf-util.c parse_package_metadata()).
#include <jansson.h>
#include <string.h>

#include "dump/elfview.h"
#include "modules/pkgnote.h"

// One note walker for every note area: dump/elfview's bounded iterator.
bool ct_note_find(const struct ct_bytes *notes, const char *owner, uint32_t type, struct ct_bytes *desc)
{
	struct ct_note_iter it;
	struct ct_elf_note n;
	ct_note_iter_init(&it, notes);
	for (int i = 0; i < 256 && ct_note_iter_next(&it, &n); i++) {
		if (n.type == type && ct_elf_note_is(&n, owner)) {
			*desc = n.desc;
			return true;
		}
	}
	return false;
}

static const char *member(struct ct_strpool *strings, json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s && *s ? ct_strpool_intern(strings, s) : NULL;
}

bool ct_pkgnote_parse(struct ct_strpool *strings, const char *json, size_t len, struct ct_package *ret)
{
	// The descriptor is NUL-padded to the note's alignment.
	while (len && json[len - 1] == '\0')
		len--;
	if (len == 0 || len > CT_MAX_PACKAGE_NOTE)
		return false;
	json_t *o = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return false;
	}
	struct ct_package p = { .present = true };
	p.type = member(strings, o, "type");
	p.name = member(strings, o, "name");
	p.version = member(strings, o, "version");
	p.architecture = member(strings, o, "architecture");
	p.os = member(strings, o, "os");
	p.os_version = member(strings, o, "osVersion");
	p.debuginfo_url = member(strings, o, "debugInfoUrl");
	json_decref(o);
	if (!p.name && !p.type)
		return false;
	*ret = p;
	return true;
}

static bool from_area(struct ct_strpool *strings, const void *data, size_t size, bool be, struct ct_package *ret)
{
	struct ct_bytes notes = { data, size, be }, desc;
	return ct_note_find(&notes, "FDO", CT_NT_FDO_PACKAGING_METADATA, &desc) &&
	       ct_pkgnote_parse(strings, (const char *)desc.data, desc.size, ret);
}

bool ct_pkgnote_from_elf(struct ct_strpool *strings, Elf *elf, struct ct_package *ret)
{
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh))
		return false;
	bool be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	// Sections first: `objcopy --add-section` adds a note without a program header.
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		if (d && d->d_buf && from_area(strings, d->d_buf, d->d_size, be, ret))
			return true;
	}
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum && i < 256; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE || ph.p_filesz > (1u << 20))
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (d && d->d_buf && from_area(strings, d->d_buf, d->d_size, be, ret))
			return true;
	}
	return false;
}
