/**
 * @file pkgnote.h
 * systemd's ELF package note (https://systemd.io/ELF_PACKAGE_METADATA/): a note of owner "FDO",
 * type 0xcafe1a7e, whose descriptor is a JSON object {"type", "name", "version", "architecture",
 * "os", "osVersion", "debugInfoUrl"} naming the package a module came from. Read from the module's
 * file (sections or PT_NOTE) or, without a file, from the note in the dump's memory.
 */
#ifndef CT_PKGNOTE_H
#define CT_PKGNOTE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "coretriage/report.h"
#include "coretriage/strpool.h"
#include "util/bytes.h"

/** NT_FDO_PACKAGING_METADATA (systemd's src/fundamental/elf-util.h… and binutils 2.39's readelf). */
#define CT_NT_FDO_PACKAGING_METADATA 0xcafe1a7e
/** Longest package note read: real ones are ~200 bytes. */
#define CT_MAX_PACKAGE_NOTE 8192

/**
 * Finds the first note of @p owner and @p type in a note area (4-byte aligned, as ELF notes are);
 * at most 256 notes are looked at. On success *@p desc views its descriptor inside @p notes.
 */
bool ct_note_find(const struct ct_bytes *notes, const char *owner, uint32_t type, struct ct_bytes *desc);

/** Fills @p ret from the package note's JSON (@p len bytes, untrusted). False when it is no JSON object. */
bool ct_pkgnote_parse(struct ct_strpool *strings, const char *json, size_t len, struct ct_package *ret);

/** Finds the package note of @p elf (SHT_NOTE sections, then PT_NOTE segments) and fills @p ret. */
bool ct_pkgnote_from_elf(struct ct_strpool *strings, Elf *elf, struct ct_package *ret);

#endif
