/**
 * @file known.h
 * `coretriage batch --known FILE`: the signature hashes of bugs already filed, and what to say
 * when they were computed by another signature version (docs/batch.md, docs/signature.md).
 */
#ifndef CT_CLI_KNOWN_H
#define CT_CLI_KNOWN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct ct_known {
	const char *path;
	/** hash → bug link ("" when none). */
	json_t *hashes;
	/** The hashes marked with another signature version (hash → true). */
	json_t *other;
	/** Hashes marked with the current version, with another one, and not marked at all. */
	size_t num_current, num_other, num_unmarked;
	/** Lookups that found a hash of another version. */
	size_t num_other_matched;
	/** The other version seen (the last one, when several). */
	long other_version;
};

/** Reads @p path into @p k. False (with a one-line message on stderr) when it cannot be read. */
bool ct_known_load(const char *path, struct ct_known *k);

/** The bug link of @p hash ("" when listed without one), or NULL when it is not known. */
const char *ct_known_lookup(struct ct_known *k, const char *hash);

/**
 * Says on @p err, once per run, when the file's hashes cannot match: some marked with another
 * signature version matched no bucket (they are still used: a bug whose frame names did not change
 * keeps its hash), or none of its unmarked hashes matched any of @p num_buckets buckets
 * (@p num_matched matched) — the mark of hashes taken before the recipe changed.
 */
void ct_known_warn(const struct ct_known *k, size_t num_matched, size_t num_buckets, FILE *err);

void ct_known_free(struct ct_known *k);

#endif
