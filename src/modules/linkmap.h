/**
 * @file linkmap.h
 * The loaded objects of a dynamically linked program, from the dynamic linker's link_map in the
 * dump, for cores without NT_FILE (qemu-user's): each one a file mapping as NT_FILE would list it.
 */
#ifndef CT_MODULES_LINKMAP_H
#define CT_MODULES_LINKMAP_H

#include <stddef.h>

#include "dump/elfcore.h"

/**
 * Walks the link_map of @p core (at most @p max objects; every read bounded and checked) and returns
 * the objects with an absolute l_name whose headers are in the dump or in their file (opened inside
 * @p sysroot when not NULL), as mappings from their first to their last loaded byte, file offset 0;
 * first the program itself, named @p main_path (its headers also read from that file), when that is
 * not NULL. *@p ret is malloc'd (the caller frees each path and the array) or NULL when the count
 * is 0: no dynamic section, no r_debug, no library in the list, out of memory.
 */
size_t ct_linkmap_files(const struct ct_core *core, const char *main_path, const char *sysroot, size_t max,
			struct ct_file_mapping **ret);

#endif
