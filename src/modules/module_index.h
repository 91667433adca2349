/**
 * @file module_index.h
 * Lookup of the modules found so far by path and by start address, for module discovery: linear
 * in the NT_FILE entries (a hostile note names 70,000 paths on one page; comparing each with every
 * module found before was quadratic). Keyed hashes (util/keyhash.h), so crafted paths cannot all
 * collide.
 */
#ifndef CT_MODULE_INDEX_H
#define CT_MODULE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_module_index;

/** An index for at most @p capacity modules; NULL when out of memory. */
struct ct_module_index *ct_module_index_create(size_t capacity);
void ct_module_index_destroy(struct ct_module_index *idx);

/** Records module number @p module (< capacity, increasing) with @p path (borrowed: it must live
 * as long as the index) and @p start. */
void ct_module_index_add(struct ct_module_index *idx, size_t module, const char *path, uint64_t start);

/** The last module added with @p path, or SIZE_MAX. */
size_t ct_module_index_find_path(const struct ct_module_index *idx, const char *path);

/** True when a module starting at @p start was added. */
bool ct_module_index_has_start(const struct ct_module_index *idx, uint64_t start);

#endif
