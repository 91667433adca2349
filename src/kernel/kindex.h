/**
 * @file kindex.h
 * A kernel's kept index: what a dump of one kernel build makes coretriage read whole on every run —
 * kallsyms decoded (~1-2 MiB of token-compressed names, expanded) and the .BTF section (~5 MiB) —
 * kept in the cache directory under the kernel's build-id (VMCOREINFO BUILD-ID), so that the next
 * dump of the same kernel reads a few pages instead of ~7 MiB through libkdumpfile's decompression
 * (issue 28: 80 % of a verdict's instructions).
 *
 * `<cache dir>/kernel/<build-id>.kidx`: one header, then the kallsyms arrays in ct_kallsyms' layout
 * (mapped as they are, nothing parsed), then the raw BTF. Whether it still describes the dump is
 * checked on every use, never assumed from the name alone: the header must name the build-id and
 * kallsyms_num_syms the dump has, the dump's kallsyms_token_index must equal the kept one, and
 * eight 32-byte samples (kallsyms_names, kallsyms_offsets and the .BTF section, at fixed fractions
 * of each) must read back the same from the dump; every size and offset of the file is bounds-checked
 * and its arrays are checked as the decoder would make them (sorted addresses, names inside the
 * blob, slots inside the table). A KASLR offset that moved between the two boots is applied
 * (kallsyms_relative_base). Any mismatch and the dump is decoded as without an index, and the index
 * is written anew. Nothing is kept with --no-cache or --safe.
 */
#ifndef CT_KERNEL_KINDEX_H
#define CT_KERNEL_KINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/vmcore.h"

/** The kept indexes' size cap: about 20 kernels (a 6.1 distribution kernel's is ~9 MiB). */
#define CT_KINDEX_CACHE_SIZE (192ULL << 20)

/** A kept index, mapped. */
struct ct_kindex {
	void *map;
	size_t len;
	const void *btf; /**< the kept .BTF bytes inside the mapping; NULL when none was kept */
	size_t btf_size;
};

/**
 * Opens the index of the dump's kernel (@p build_id) in @p cache_dir and, when it matches the dump,
 * fills @p ks from it (the mapping moves into @p ks; @p ix keeps the BTF's place in it, valid while
 * @p ks is). False, with @p ks untouched, when there is none or it does not match.
 */
bool ct_kindex_load(const char *cache_dir, const char *build_id, struct ct_vmcore *vm, struct ct_kallsyms *ks,
		    struct ct_kindex *ix);

/**
 * The kallsyms view of a kept index's bytes (@p len at @p map, 8-aligned) when its header names
 * @p build_id and the file's own checks pass (header, arrays inside the file, sorted addresses,
 * names inside their blob, slots naming symbols); its BTF bytes into @p btf (NULL when none). No
 * check against a dump, no ownership: what ct_kindex_load() starts from, and the fuzz target's.
 */
bool ct_kindex_view(const void *map, size_t len, const char *build_id, struct ct_kallsyms *ks, const void **btf,
		    size_t *btf_size);

/** Checks @p ix's BTF against the dump's .BTF section (bounds from @p ks, samples): false to read it anew. */
bool ct_kindex_btf_matches(const struct ct_kindex *ix, struct ct_vmcore *vm, const struct ct_kallsyms *ks);

/**
 * Writes the index of @p ks (decoded from @p vm) and @p btf (@p btf_size raw bytes; NULL when the
 * dump has none) for @p build_id into @p cache_dir, replacing any (a temporary file renamed), then
 * trims the kept indexes to CT_KINDEX_CACHE_SIZE. Failures are ignored: the index only saves time.
 */
void ct_kindex_save(const char *cache_dir, const char *build_id, struct ct_vmcore *vm, const struct ct_kallsyms *ks,
		    const void *btf, size_t btf_size);

#endif
