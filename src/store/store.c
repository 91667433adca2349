// The store's logic over either backend (store.h, backend.h): the URL, the migrations, the one
// SQL text of each write and query. Written once here so that SQLite and PostgreSQL answer alike.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if CT_HAVE_ZSTD
#include <zstd.h>
#endif

#include "store/backend.h"
#include "util/grow.h"

/** A transaction that lost a conflict (PostgreSQL serialization, SQLite busy past its timeout)
 * is run again this many times before the error is the caller's. */
#define STORE_RETRIES 5
/** zstd level of the stored JSON reports: fast, and ~8x smaller than the text. */
#define STORE_ZSTD_LEVEL 3
/** Longest migration text after the dialect words are put in. */
#define STORE_MAX_MIGRATION (64u << 10)

static const char *const status_names[CT_BUCKET_STATUS_NUM_] = {
	[CT_BUCKET_STATUS_NEW] = "new",
	[CT_BUCKET_STATUS_KNOWN] = "known",
	[CT_BUCKET_STATUS_FIXED] = "fixed",
};

const char *ct_bucket_status_to_string(enum ct_bucket_status s)
{
	return (unsigned)s < CT_BUCKET_STATUS_NUM_ ? status_names[s] : "unknown";
}

bool ct_bucket_status_from_string(const char *s, enum ct_bucket_status *ret)
{
	for (int i = 0; s && i < CT_BUCKET_STATUS_NUM_; i++) {
		if (!strcmp(s, status_names[i])) {
			*ret = (enum ct_bucket_status)i;
			return true;
		}
	}
	return false;
}

const char *ct_store_backend(const struct ct_store *s)
{
	return s->ops->name;
}

int ct_store_schema_version(const struct ct_store *s)
{
	return s->schema_version;
}

void ct_store_close(struct ct_store *s)
{
	if (s)
		s->ops->close(s);
}

static struct ct_sql_arg arg_int(long long v)
{
	return (struct ct_sql_arg){ .type = CT_SQL_INT, .i = v };
}

static struct ct_sql_arg arg_text(const char *s)
{
	return (struct ct_sql_arg){ .type = s ? CT_SQL_TEXT : CT_SQL_NULL, .s = s };
}

static bool read_ll(void *arg, const struct ct_sql_row *row)
{
	long long *v = arg;
	*v = row->num && row->col[0] ? strtoll(row->col[0], NULL, 10) : 0;
	return false;
}

/* ---- Migrations ---- */

// The migration's text with the dialect's words for @ID@ and @BLOB@.
static char *dialect(const struct ct_store_ops *ops, const char *sql)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (const char *p = sql; *p;) {
		if (!strncmp(p, "@ID@", 4)) {
			fputs(ops->id_type, f);
			p += 4;
		} else if (!strncmp(p, "@BLOB@", 6)) {
			fputs(ops->blob_type, f);
			p += 6;
		} else {
			fputc(*p++, f);
		}
	}
	if (fclose(f) != 0 || len > STORE_MAX_MIGRATION) {
		free(out);
		return NULL;
	}
	return out;
}

static struct ct_error *migrate_locked(struct ct_store *s)
{
	const struct ct_store_ops *ops = s->ops;
	struct ct_error *e = ops->exec_script(s, "CREATE TABLE IF NOT EXISTS ct_schema_migrations ("
						 "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)");
	long long have = 0;
	if (!e)
		e = ops->exec(s, "SELECT coalesce(max(version), 0) FROM ct_schema_migrations", NULL, 0, read_ll, &have);
	if (e)
		return e;
	if (have > (long long)ct_store_num_migrations) {
		return ct_error_create(CT_ERROR_UNSUPPORTED,
				       "the store is of schema version %lld, newer than this coretriage knows (%zu)", have,
				       ct_store_num_migrations);
	}
	for (size_t i = (size_t)have; i < ct_store_num_migrations; i++) {
		const struct ct_store_migration *m = &ct_store_migrations[i];
		char *sql = dialect(ops, m->sql);
		if (!sql)
			return &ct_enomem;
		e = ops->exec_script(s, sql);
		free(sql);
		struct ct_sql_arg a[] = { arg_int(m->version), arg_text(m->name), arg_int((long long)time(NULL)) };
		if (!e)
			e = ops->exec(s, "INSERT INTO ct_schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				      a, 3, NULL, NULL);
		if (e)
			return ct_error_wrap(e, "migration %s", m->name);
	}
	s->schema_version = (int)ct_store_num_migrations;
	return NULL;
}

// All migrations in one transaction, one opener at a time: a store is at a version, never half.
static struct ct_error *migrate(struct ct_store *s)
{
	struct ct_error *e = NULL;
	for (int attempt = 0; attempt < STORE_RETRIES; attempt++) {
		ct_error_destroy(e);
		e = s->ops->begin(s, CT_TX_MIGRATE);
		if (!e)
			e = migrate_locked(s);
		if (!e)
			e = s->ops->commit(s);
		if (!e)
			return NULL;
		s->ops->rollback(s);
		if (!s->ops->retryable(e))
			break;
	}
	return e;
}

struct ct_error *ct_store_open(const char *url, struct ct_store **ret)
{
	if (!url || !*url)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "--db: empty URL");
	struct ct_store *s = NULL;
	struct ct_error *e;
	if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
#if CT_HAVE_LIBPQ
		e = ct_store_pg_connect(url, &s);
#else
		return ct_error_create(CT_ERROR_UNSUPPORTED, "--db: this coretriage was built without PostgreSQL (libpq)");
#endif
	} else {
		const char *path = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
		if (strstr(url, "://") && strncmp(url, "sqlite:", 7)) {
			return ct_error_create(CT_ERROR_INVALID_ARGUMENT,
					       "--db %s: not a store URL (a path, sqlite:PATH or postgresql://…)", url);
		}
		e = ct_store_sqlite_connect(path, &s);
	}
	if (!e)
		e = migrate(s);
	if (e) {
		ct_store_close(s);
		return e;
	}
	*ret = s;
	return NULL;
}

/* ---- Writes ---- */

// The JSON report as stored: zstd when built with it, else the text.
static void *pack_json(const void *json, size_t len, size_t *out_len, const char **encoding)
{
#if CT_HAVE_ZSTD
	size_t cap = ZSTD_compressBound(len);
	void *buf = malloc(cap ? cap : 1);
	if (!buf)
		return NULL;
	size_t n = ZSTD_compress(buf, cap, json, len, STORE_ZSTD_LEVEL);
	if (!ZSTD_isError(n)) {
		*out_len = n;
		*encoding = "zstd";
		return buf;
	}
	free(buf);
#endif
	void *copy = malloc(len ? len : 1);
	if (copy && len)
		memcpy(copy, json, len);
	*out_len = len;
	*encoding = "json";
	return copy;
}

static const char bucket_upsert[] =
	"INSERT INTO buckets (signature_version, key, signature, class, blame, first_seen, last_seen, count,"
	" first_version, last_version, first_build_id, last_build_id, status)"
	" VALUES ($1, $2, $3, $4, $5, $6, $6, 1, $7, $7, $8, $8, 'new')"
	" ON CONFLICT (signature_version, key) DO UPDATE SET count = buckets.count + 1,"
	// The first/last version and build follow the crash times, not the order of recording: a
	// fleet's reports arrive late and out of order.
	" first_version = CASE WHEN excluded.first_seen < buckets.first_seen OR buckets.first_version IS NULL"
	"  THEN coalesce(excluded.first_version, buckets.first_version) ELSE buckets.first_version END,"
	" first_build_id = CASE WHEN excluded.first_seen < buckets.first_seen OR buckets.first_build_id IS NULL"
	"  THEN coalesce(excluded.first_build_id, buckets.first_build_id) ELSE buckets.first_build_id END,"
	" last_version = CASE WHEN excluded.last_seen >= buckets.last_seen OR buckets.last_version IS NULL"
	"  THEN coalesce(excluded.last_version, buckets.last_version) ELSE buckets.last_version END,"
	" last_build_id = CASE WHEN excluded.last_seen >= buckets.last_seen OR buckets.last_build_id IS NULL"
	"  THEN coalesce(excluded.last_build_id, buckets.last_build_id) ELSE buckets.last_build_id END,"
	" first_seen = CASE WHEN excluded.first_seen < buckets.first_seen THEN excluded.first_seen"
	"  ELSE buckets.first_seen END,"
	" last_seen = CASE WHEN excluded.last_seen > buckets.last_seen THEN excluded.last_seen"
	"  ELSE buckets.last_seen END,"
	" signature = coalesce(buckets.signature, excluded.signature),"
	" class = coalesce(buckets.class, excluded.class), blame = coalesce(buckets.blame, excluded.blame)"
	" RETURNING count";

// A bucket recorded under an older signature version whose hash is this report's is the same
// bucket: the hash is of the key text alone, and a version changes the recipe of some keys only
// (docs/signature.md), so equal hashes are equal keys. The newest such bucket, with its reports,
// its count, status and bug URL, moves to this version before the upsert counts the report, so a
// store filled by an older release does not see every core as new after an upgrade. Version 0
// (the fallback key) is a different recipe and never moves.
#define OLDER_BUCKET                                                                                \
	"(SELECT max(o.signature_version) FROM buckets o WHERE o.key = $2 AND o.signature_version > 0" \
	" AND o.signature_version < $1)"
#define NO_CURRENT_BUCKET " AND NOT EXISTS (SELECT 1 FROM buckets c WHERE c.key = $2 AND c.signature_version = $1)"
static const char adopt_reports[] = "UPDATE reports SET signature_version = $1 WHERE bucket = $2"
				    " AND signature_version = " OLDER_BUCKET NO_CURRENT_BUCKET;
static const char adopt_bucket[] = "UPDATE buckets SET signature_version = $1 WHERE key = $2"
				   " AND signature_version = " OLDER_BUCKET NO_CURRENT_BUCKET;

static const char report_insert[] =
	"INSERT INTO reports (recorded_at, time, host, executable, build_id, package, version, class,"
	" signature_version, signature, bucket, core, report_encoding, report)"
	" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)";

static struct ct_error *record_once(struct ct_store *s, const struct ct_store_report *r, const struct ct_sql_arg *blob,
				    const char *encoding, long long *count)
{
	long long now = (long long)time(NULL), t = r->time ? r->time : now;
	const char *cls = r->class_id ? r->class_id : "unknown";
	struct ct_sql_arg b[] = { arg_int(r->signature_version), arg_text(r->bucket), arg_text(r->signature),
				  arg_text(cls), arg_text(r->blame), arg_int(t), arg_text(r->version),
				  arg_text(r->build_id) };
	struct ct_sql_arg a[] = { arg_int(now), arg_int(t), arg_text(r->host), arg_text(r->executable),
				  arg_text(r->build_id), arg_text(r->package), arg_text(r->version), arg_text(cls),
				  arg_int(r->signature_version), arg_text(r->signature), arg_text(r->bucket),
				  arg_text(r->core), arg_text(blob->type == CT_SQL_NULL ? NULL : encoding), *blob };
	struct ct_error *e = s->ops->begin(s, CT_TX_WRITE);
	// The reports first: their condition reads the bucket's old version.
	if (!e && r->signature_version > 1)
		e = s->ops->exec(s, adopt_reports, b, 2, NULL, NULL);
	if (!e && r->signature_version > 1)
		e = s->ops->exec(s, adopt_bucket, b, 2, NULL, NULL);
	if (!e)
		e = s->ops->exec(s, bucket_upsert, b, sizeof(b) / sizeof(b[0]), read_ll, count);
	if (!e)
		e = s->ops->exec(s, report_insert, a, sizeof(a) / sizeof(a[0]), NULL, NULL);
	if (!e)
		e = s->ops->commit(s);
	if (e)
		s->ops->rollback(s);
	return e;
}

struct ct_error *ct_store_record(struct ct_store *s, const struct ct_store_report *r, long long *count_ret)
{
	if (!r->bucket)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "store: a report without a bucket");
	struct ct_sql_arg blob = { .type = CT_SQL_NULL };
	const char *encoding = NULL;
	void *packed = NULL;
	if (r->json) {
		size_t len = 0;
		packed = pack_json(r->json, r->json_len, &len, &encoding);
		if (!packed)
			return &ct_enomem;
		blob = (struct ct_sql_arg){ .type = CT_SQL_BLOB, .blob = packed, .len = len };
	}
	struct ct_error *e = NULL;
	long long count = 0;
	for (int attempt = 0; attempt < STORE_RETRIES; attempt++) {
		ct_error_destroy(e);
		e = record_once(s, r, &blob, encoding, &count);
		if (!e || !s->ops->retryable(e))
			break;
	}
	free(packed);
	if (e)
		return ct_error_wrap(e, "recording the report of %s", r->core ? r->core : "a core");
	if (count_ret)
		*count_ret = count;
	return NULL;
}

struct ct_error *ct_store_mark(struct ct_store *s, const char *key, const char *fixed_in, const char *bug_url)
{
	// The last report now is what a regression is counted after (store.h, regressions).
	struct ct_sql_arg a[] = { arg_text(key), arg_text(fixed_in), arg_text(bug_url) };
	long long found = 0;
	struct ct_error *e = s->ops->begin(s, CT_TX_WRITE);
	if (!e)
		e = s->ops->exec(s, "SELECT count(*) FROM buckets WHERE key = $1", a, 1, read_ll, &found);
	if (!e && found) {
		e = s->ops->exec(s,
				 "UPDATE buckets SET"
				 " fixed_in = coalesce($2, fixed_in),"
				 " fixed_after = CASE WHEN $2 IS NULL THEN fixed_after"
				 "  ELSE (SELECT coalesce(max(id), 0) FROM reports) END,"
				 " bug_url = coalesce($3, bug_url),"
				 " status = CASE WHEN $2 IS NOT NULL OR status = 'fixed' THEN 'fixed' ELSE 'known' END"
				 " WHERE key = $1",
				 a, 3, NULL, NULL);
	}
	if (!e)
		e = s->ops->commit(s);
	if (e) {
		s->ops->rollback(s);
		return ct_error_wrap(e, "marking bucket %s", key);
	}
	if (!found)
		return ct_error_create(CT_ERROR_NOT_FOUND, "no bucket %s in the store", key);
	return NULL;
}

/* ---- Queries ---- */

static char *dup_col(const struct ct_sql_row *row, size_t i)
{
	return i < row->num && row->col[i] ? strdup(row->col[i]) : NULL;
}

static long long ll_col(const struct ct_sql_row *row, size_t i)
{
	return i < row->num && row->col[i] ? strtoll(row->col[i], NULL, 10) : 0;
}

// The columns every bucket query selects, in the order read_bucket reads them; the query's own
// number comes after them.
#define BUCKET_COLUMNS                                                                                              \
	"b.signature_version, b.key, b.signature, b.class, b.blame, b.first_seen, b.last_seen, b.count,"         \
	" b.first_version, b.last_version, b.first_build_id, b.last_build_id, b.status, b.fixed_in, b.bug_url"
#define BUCKET_NUM_COLUMNS 15

struct bucket_reader {
	struct ct_store_buckets *out;
	bool failed;
};

static bool read_bucket(void *arg, const struct ct_sql_row *row)
{
	struct bucket_reader *br = arg;
	struct ct_store_buckets *o = br->out;
	if (!CT_GROW(o->v, o->cap, o->num + 1, 16, 0)) {
		br->failed = true;
		return false;
	}
	struct ct_store_bucket *b = &o->v[o->num++];
	memset(b, 0, sizeof(*b));
	b->signature_version = (int)ll_col(row, 0);
	b->key = dup_col(row, 1);
	b->signature = dup_col(row, 2);
	b->class_id = dup_col(row, 3);
	b->blame = dup_col(row, 4);
	b->first_seen = ll_col(row, 5);
	b->last_seen = ll_col(row, 6);
	b->count = ll_col(row, 7);
	b->first_version = dup_col(row, 8);
	b->last_version = dup_col(row, 9);
	b->first_build_id = dup_col(row, 10);
	b->last_build_id = dup_col(row, 11);
	if (!ct_bucket_status_from_string(row->num > 12 ? row->col[12] : NULL, &b->status))
		b->status = CT_BUCKET_STATUS_NEW;
	b->fixed_in = dup_col(row, 13);
	b->bug_url = dup_col(row, 14);
	b->matched = row->num > BUCKET_NUM_COLUMNS ? ll_col(row, BUCKET_NUM_COLUMNS) : b->count;
	if (!b->key)
		br->failed = true;
	return true;
}

static void bucket_deinit(struct ct_store_bucket *b)
{
	free(b->key);
	free(b->signature);
	free(b->class_id);
	free(b->blame);
	free(b->first_version);
	free(b->last_version);
	free(b->first_build_id);
	free(b->last_build_id);
	free(b->fixed_in);
	free(b->bug_url);
	free(b->regressed_version);
}

void ct_store_buckets_free(struct ct_store_buckets *b)
{
	for (size_t i = 0; i < b->num; i++)
		bucket_deinit(&b->v[i]);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

// A version as people number them: "1.10" after "1.9" (glibc's strverscmp, as dpkg and sort -V
// roughly agree on for release numbers).
static int version_cmp(const char *a, const char *b)
{
	return strverscmp(a, b);
}

struct regression_scan {
	const char *fixed_in;
	long long seen;
	char *newest;
	bool failed;
};

static bool read_regression(void *arg, const struct ct_sql_row *row)
{
	struct regression_scan *rs = arg;
	const char *v = row->num ? row->col[0] : NULL;
	// A report of an older version than the fix is the old bug still running there, not a
	// regression; one without a version after the fix counts (it cannot be told apart).
	if (v && rs->fixed_in && version_cmp(v, rs->fixed_in) < 0)
		return true;
	rs->seen++;
	if (v && (!rs->newest || version_cmp(v, rs->newest) > 0)) {
		free(rs->newest);
		if (!(rs->newest = strdup(v)))
			rs->failed = true;
	}
	return true;
}

// Keeps the fixed buckets seen again since they were fixed (in @p all) and moves them to @p ret.
static struct ct_error *regressions(struct ct_store *s, struct ct_store_buckets *all, struct ct_store_buckets *ret)
{
	struct ct_error *e = NULL;
	for (size_t i = 0; i < all->num && !e; i++) {
		struct ct_store_bucket *b = &all->v[i];
		struct regression_scan rs = { .fixed_in = b->fixed_in };
		long long after = b->matched; // fixed_after, selected as the query's number
		struct ct_sql_arg a[] = { arg_int(b->signature_version), arg_text(b->key), arg_int(after) };
		e = s->ops->exec(s,
				 "SELECT version FROM reports WHERE signature_version = $1 AND bucket = $2 AND id > $3",
				 a, 3, read_regression, &rs);
		if (!e && rs.failed)
			e = &ct_enomem;
		if (!e && rs.seen) {
			if (!CT_GROW(ret->v, ret->cap, ret->num + 1, 16, 0)) {
				free(rs.newest);
				return &ct_enomem;
			}
			b->matched = rs.seen;
			b->regressed_version = rs.newest; // now the bucket's
			ret->v[ret->num++] = *b;
			memset(b, 0, sizeof(*b)); // moved
		} else {
			free(rs.newest);
		}
	}
	return e;
}

struct ct_error *ct_store_query_buckets(struct ct_store *s, const struct ct_store_query *q,
					struct ct_store_buckets *ret)
{
	char sql[2048];
	char limit[32] = "";
	if (q->limit)
		snprintf(limit, sizeof(limit), " LIMIT %zu", q->limit);
	struct ct_sql_arg a[2];
	size_t n = 0;
	switch (q->kind) {
	case CT_STORE_QUERY_TOP:
		a[n++] = arg_int(q->since);
		snprintf(sql, sizeof(sql),
			 "SELECT " BUCKET_COLUMNS ", count(r.id) AS n FROM buckets b JOIN reports r"
			 " ON r.signature_version = b.signature_version AND r.bucket = b.key WHERE r.time >= $1"
			 " GROUP BY " BUCKET_COLUMNS " ORDER BY n DESC, b.first_seen, b.key%s",
			 limit);
		break;
	case CT_STORE_QUERY_NEW:
		if (q->version) {
			a[n++] = arg_text(q->version);
			snprintf(sql, sizeof(sql),
				 "SELECT " BUCKET_COLUMNS " FROM buckets b WHERE b.first_version = $1"
				 " ORDER BY b.first_seen, b.key%s",
				 limit);
		} else if (q->build_id) {
			a[n++] = arg_text(q->build_id);
			snprintf(sql, sizeof(sql),
				 "SELECT " BUCKET_COLUMNS " FROM buckets b WHERE b.first_build_id = $1"
				 " ORDER BY b.first_seen, b.key%s",
				 limit);
		} else {
			a[n++] = arg_int(q->since);
			snprintf(sql, sizeof(sql),
				 "SELECT " BUCKET_COLUMNS " FROM buckets b WHERE b.first_seen >= $1"
				 " ORDER BY b.first_seen, b.key%s",
				 limit);
		}
		break;
	case CT_STORE_QUERY_SHOW:
		a[n++] = arg_text(q->key);
		snprintf(sql, sizeof(sql), "SELECT " BUCKET_COLUMNS " FROM buckets b WHERE b.key = $1"
					   " ORDER BY b.signature_version DESC");
		break;
	case CT_STORE_QUERY_REGRESSIONS: {
		struct ct_store_buckets fixed = { 0 };
		struct bucket_reader br = { .out = &fixed };
		struct ct_error *e = s->ops->exec(s,
						  "SELECT " BUCKET_COLUMNS ", coalesce(b.fixed_after, 0) FROM buckets b"
						  " WHERE b.status = 'fixed' ORDER BY b.last_seen DESC, b.key",
						  NULL, 0, read_bucket, &br);
		if (!e && br.failed)
			e = &ct_enomem;
		if (!e)
			e = regressions(s, &fixed, ret);
		ct_store_buckets_free(&fixed);
		return e;
	}
	default: return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "store: unknown query");
	}
	struct bucket_reader br = { .out = ret };
	struct ct_error *e = s->ops->exec(s, sql, a, n, read_bucket, &br);
	if (!e && br.failed)
		e = &ct_enomem;
	return e;
}

struct rows_reader {
	struct ct_store_rows *out;
	bool failed;
};

static bool read_row(void *arg, const struct ct_sql_row *row)
{
	struct rows_reader *rr = arg;
	struct ct_store_rows *o = rr->out;
	if (!CT_GROW(o->v, o->cap, o->num + 1, 16, 0)) {
		rr->failed = true;
		return false;
	}
	struct ct_store_row *r = &o->v[o->num++];
	r->id = ll_col(row, 0);
	r->time = ll_col(row, 1);
	r->recorded_at = ll_col(row, 2);
	r->host = dup_col(row, 3);
	r->executable = dup_col(row, 4);
	r->build_id = dup_col(row, 5);
	r->package = dup_col(row, 6);
	r->version = dup_col(row, 7);
	r->core = dup_col(row, 8);
	return true;
}

void ct_store_rows_free(struct ct_store_rows *r)
{
	for (size_t i = 0; i < r->num; i++) {
		free(r->v[i].host);
		free(r->v[i].executable);
		free(r->v[i].build_id);
		free(r->v[i].package);
		free(r->v[i].version);
		free(r->v[i].core);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

struct ct_error *ct_store_bucket_reports(struct ct_store *s, const char *key, size_t limit, struct ct_store_rows *ret)
{
	char sql[512];
	char lim[32] = "";
	if (limit)
		snprintf(lim, sizeof(lim), " LIMIT %zu", limit);
	snprintf(sql, sizeof(sql),
		 "SELECT id, time, recorded_at, host, executable, build_id, package, version, core FROM reports"
		 " WHERE bucket = $1 ORDER BY time DESC, id DESC%s",
		 lim);
	struct ct_sql_arg a[] = { arg_text(key) };
	struct rows_reader rr = { .out = ret };
	struct ct_error *e = s->ops->exec(s, sql, a, 1, read_row, &rr);
	return !e && rr.failed ? &ct_enomem : e;
}

struct ct_error *ct_store_last_report_of_build(struct ct_store *s, const char *build_id, long long *ret)
{
	long long id = 0;
	struct ct_sql_arg a[] = { arg_text(build_id) };
	struct ct_error *e = s->ops->exec(s, "SELECT coalesce(max(id), 0) FROM reports WHERE build_id = $1", a, 1,
					  read_ll, &id);
	if (e)
		return e;
	if (!id)
		return ct_error_create(CT_ERROR_NOT_FOUND, "the store has no report of build %s", build_id);
	*ret = id;
	return NULL;
}

struct ct_error *ct_store_bucket_known_at(struct ct_store *s, int signature_version, const char *key, long long id,
					  bool *ret)
{
	long long n = 0;
	struct ct_sql_arg a[] = { arg_int(signature_version), arg_text(key), arg_int(id) };
	struct ct_error *e = s->ops->exec(s,
					  "SELECT count(*) FROM (SELECT 1 FROM reports WHERE signature_version = $1"
					  " AND bucket = $2 AND id <= $3 LIMIT 1) k",
					  a, 3, read_ll, &n);
	if (!e)
		*ret = n > 0;
	return e;
}

struct ct_error *ct_store_totals(struct ct_store *s, long long *reports, long long *buckets, long long *counted)
{
	struct ct_error *e = s->ops->exec(s, "SELECT count(*) FROM reports", NULL, 0, read_ll, reports);
	if (!e)
		e = s->ops->exec(s, "SELECT count(*) FROM buckets", NULL, 0, read_ll, buckets);
	if (!e)
		e = s->ops->exec(s, "SELECT coalesce(sum(count), 0) FROM buckets", NULL, 0, read_ll, counted);
	return e;
}
