/**
 * @file altlink.h
 * The supplementary ("alt") file a debug file names: dwz moves the DIEs and strings that several
 * debug files share into one file (Debian's /usr/lib/debug/.dwz/<triplet>/<package>.debug, Fedora's
 * /usr/lib/debug/.dwz/<nvr>), and the debug file reaches them through DW_FORM_GNU_strp_alt and
 * DW_FORM_GNU_ref_alt (DWARF 5: DW_FORM_strp_sup, DW_FORM_ref_sup4/8). The debug file names the
 * shared file and its build-id in `.gnu_debugaltlink` (GNU: the path, NUL, the build-id bytes) or in
 * `.debug_sup` (DWARF 5 section 7.3.6: version 5, is_supplementary, the path, a ULEB128 length and
 * the checksum, which dwz fills with the shared file's build-id). The right shared file is the one
 * whose build-id is that one: any other file's `.debug_str` answers every alt offset with a wrong
 * name.
 */
#ifndef CT_MODULES_ALTLINK_H
#define CT_MODULES_ALTLINK_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Longest path of a shared file taken from a debug file (PATH_MAX). */
#define CT_ALTLINK_MAX_NAME 4096
/** Longest build-id of a shared file (modules.h CT_MAX_BUILD_ID). */
#define CT_ALTLINK_MAX_ID 64

/** Where a debug file's shared entries live. */
struct ct_altlink {
	char name[CT_ALTLINK_MAX_NAME]; /**< the path as the debug file spells it (absolute or relative) */
	uint8_t id[CT_ALTLINK_MAX_ID]; /**< the shared file's build-id */
	size_t id_len;
	bool dwarf5; /**< from .debug_sup (libdw 0.188 does not read it: the caller must dwarf_setalt) */
};

/**
 * Reads @p elf's `.gnu_debugaltlink`, else its `.debug_sup` (only a referring one:
 * is_supplementary 0), into *@p ret. False when there is none, or it is malformed (no NUL in the
 * section, an empty name or build-id, a build-id longer than CT_ALTLINK_MAX_ID).
 */
bool ct_altlink_read(Elf *elf, struct ct_altlink *ret);

/**
 * The checksum a DWARF 5 supplementary file carries in its own `.debug_sup` (is_supplementary 1):
 * what the referring file's `.debug_sup` names it by (`dwz -5` writes no build-id note into it).
 * Into @p id (CT_ALTLINK_MAX_ID bytes) and *@p len; false when @p elf has none.
 */
bool ct_altlink_sup_checksum(Elf *elf, uint8_t *id, size_t *len);

/**
 * Same for the file at @p path: 1 read into *@p ret; 0 the file has a `.gnu_debugaltlink` section
 * that does not parse (libdwfl may still ask for its file: nothing must be guessed for it); -1 none,
 * or the file cannot be opened as ELF.
 */
int ct_altlink_read_path(const char *path, struct ct_altlink *ret);

#endif
