/**
 * @file store.h
 * The crash history (docs/fleet.md): reports and the buckets they fall into, kept across runs
 * and machines. One interface, two backends chosen by the URL: SQLite (a path, `sqlite:PATH`;
 * embedded, the default) and PostgreSQL (`postgresql://…`, `postgres://…`, through libpq). Both
 * run the same versioned migrations (src/store/migrations/, compiled in), applied on open in one
 * transaction; a migration only adds. Every write is one transaction and buckets are upserted, so
 * concurrent writers (batch workers, machines) lose no count.
 *
 * Nothing here prints: errors are struct ct_error, results are the types below.
 */
#ifndef CT_STORE_STORE_H
#define CT_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"

/** The newest schema version this build knows (the number of src/store/migrations/ files). */
#define CT_STORE_SCHEMA_VERSION 2

struct ct_store;

/** Opens (creating a SQLite file when needed) and migrates the store at @p url. Errors:
 * INVALID_ARGUMENT (URL), UNSUPPORTED (backend not built, or the store is of a newer schema),
 * LIBRARY (the database said no). */
struct ct_error *ct_store_open(const char *url, struct ct_store **ret);
/** Closes; NULL is fine. */
void ct_store_close(struct ct_store *s);
/** "sqlite" or "postgresql". */
const char *ct_store_backend(const struct ct_store *s);
/** The schema version of the open store. */
int ct_store_schema_version(const struct ct_store *s);

/** One report to record. Strings borrowed for the call; NULL when unknown. */
struct ct_store_report {
	long long time; /**< crash time, seconds since the epoch; 0: the time of recording */
	const char *host, *executable, *build_id, *package, *version;
	const char *class_id; /**< crash class, NULL: "unknown" */
	int signature_version;
	const char *signature; /**< signature text */
	const char *bucket; /**< the bucket key (signature hash); required */
	const char *blame; /**< the blamed frame as people read it */
	const char *core; /**< where the core was */
	const void *json; /**< the JSON report (compressed when stored), may be NULL */
	size_t json_len;
};

/** Records @p r and upserts its bucket in one transaction. @p count_ret (may be NULL): the
 * bucket's count after it, 1 for a bucket the store had not seen. */
struct ct_error *ct_store_record(struct ct_store *s, const struct ct_store_report *r, long long *count_ret);

enum ct_bucket_status {
	CT_BUCKET_STATUS_NEW, /**< nobody looked at it yet */
	CT_BUCKET_STATUS_KNOWN, /**< has a bug */
	CT_BUCKET_STATUS_FIXED, /**< fixed in a version */
	CT_BUCKET_STATUS_NUM_
};
const char *ct_bucket_status_to_string(enum ct_bucket_status s);
/** false when @p s names no status. */
bool ct_bucket_status_from_string(const char *s, enum ct_bucket_status *ret);

/** A bucket as the store has it. Strings owned by the result (ct_store_buckets_free). */
struct ct_store_bucket {
	int signature_version;
	char *key, *signature, *class_id, *blame;
	long long first_seen, last_seen, count;
	char *first_version, *last_version, *first_build_id, *last_build_id;
	enum ct_bucket_status status;
	char *fixed_in, *bug_url;
	/** The query's own number: reports in the window (top), after the fix (regressions). */
	long long matched;
	/** regressions: the newest version seen after the fix (NULL when none was known). */
	char *regressed_version;
};

struct ct_store_buckets {
	struct ct_store_bucket *v;
	size_t num, cap;
};
void ct_store_buckets_free(struct ct_store_buckets *b);

enum ct_store_query_kind {
	CT_STORE_QUERY_TOP, /**< by reports since @c since, most first */
	CT_STORE_QUERY_NEW, /**< first seen since @c since, or first in @c version / @c build_id */
	CT_STORE_QUERY_REGRESSIONS, /**< fixed, and seen again in the fixed version or later */
	CT_STORE_QUERY_SHOW, /**< the bucket @c key */
	CT_STORE_QUERY_NUM_
};

struct ct_store_query {
	enum ct_store_query_kind kind;
	long long since; /**< seconds since the epoch; 0: all time */
	const char *version, *build_id, *key; /**< borrowed; NULL when not given */
	size_t limit; /**< 0: no limit */
};

/** Buckets answering @p q into @p ret (appended; the caller frees it, also after an error). */
struct ct_error *ct_store_query_buckets(struct ct_store *s, const struct ct_store_query *q,
					struct ct_store_buckets *ret);

/** One recorded report, without its JSON. Strings owned (ct_store_reports_free). */
struct ct_store_row {
	long long id, time, recorded_at;
	char *host, *executable, *build_id, *package, *version, *core;
};
struct ct_store_rows {
	struct ct_store_row *v;
	size_t num, cap;
};
void ct_store_rows_free(struct ct_store_rows *r);

/** The newest reports of bucket @p key (any signature version), at most @p limit (0: all). */
struct ct_error *ct_store_bucket_reports(struct ct_store *s, const char *key, size_t limit,
					 struct ct_store_rows *ret);

/** Marks bucket @p key: @p fixed_in (a version; status fixed), @p bug_url (status known unless
 * fixed); NULL leaves a field as it is. NOT_FOUND when no bucket has that key. */
struct ct_error *ct_store_mark(struct ct_store *s, const char *key, const char *fixed_in, const char *bug_url);

/** The id of the newest report of build @p build_id (NOT_FOUND when none): buckets with a
 * report at or before it were known when that build was triaged (batch --since-build). */
struct ct_error *ct_store_last_report_of_build(struct ct_store *s, const char *build_id, long long *ret);

/** Whether bucket @p key of @p signature_version had a report with an id <= @p id. */
struct ct_error *ct_store_bucket_known_at(struct ct_store *s, int signature_version, const char *key,
					  long long id, bool *ret);

/** Totals, for tests and the benchmark: reports, buckets and the sum of the buckets' counts. */
struct ct_error *ct_store_totals(struct ct_store *s, long long *reports, long long *buckets, long long *counted);

#endif
