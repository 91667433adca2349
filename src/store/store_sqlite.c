// The SQLite backend of the store (backend.h): one file, WAL so readers never wait for the
// writer, a busy timeout so concurrent writers queue instead of failing, and BEGIN IMMEDIATE so
// a writer takes the write lock before it reads what it will update (no lost count, no deadlock
// between two readers that both want to write).
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lazy/lazy.h"
#include "store/backend.h"

/** How long a writer waits for another one (ms): 8 batch workers on a slow disk queue well
 * below this; a lock held longer is a stuck process. */
#define SQLITE_BUSY_MS 60000

struct sqlite_store {
	struct ct_store base;
	sqlite3 *db;
};

static sqlite3 *db_of(struct ct_store *s)
{
	return ((struct sqlite_store *)s)->db;
}

static struct ct_error *sqlite_error(sqlite3 *db, const char *what)
{
	struct ct_error *e = ct_error_create(CT_ERROR_LIBRARY, "sqlite: %s: %s", what, sqlite3_errmsg(db));
	if (e && e != &ct_enomem)
		e->errnum = sqlite3_extended_errcode(db);
	return e;
}

static struct ct_error *bind_args(sqlite3 *db, sqlite3_stmt *st, const struct ct_sql_arg *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char name[24];
		snprintf(name, sizeof(name), "$%zu", i + 1);
		int k = sqlite3_bind_parameter_index(st, name);
		if (!k)
			continue; // a statement need not use every parameter
		int r;
		switch (args[i].type) {
		case CT_SQL_INT: r = sqlite3_bind_int64(st, k, args[i].i); break;
		case CT_SQL_TEXT:
			r = args[i].s ? sqlite3_bind_text(st, k, args[i].s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, k);
			break;
		case CT_SQL_BLOB:
			r = args[i].blob ? sqlite3_bind_blob64(st, k, args[i].blob, args[i].len, SQLITE_STATIC)
					 : sqlite3_bind_null(st, k);
			break;
		default: r = sqlite3_bind_null(st, k); break;
		}
		if (r != SQLITE_OK)
			return sqlite_error(db, "bind");
	}
	return NULL;
}

/** Columns of one row at most (the widest query reads 18). */
#define SQLITE_MAX_COLS 32

static struct ct_error *sqlite_exec(struct ct_store *s, const char *sql, const struct ct_sql_arg *args, size_t n,
				    ct_sql_row_cb cb, void *arg)
{
	sqlite3 *db = db_of(s);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlite_error(db, "prepare");
	struct ct_error *err = bind_args(db, st, args, n);
	for (int r; !err && (r = sqlite3_step(st)) != SQLITE_DONE;) {
		if (r != SQLITE_ROW) {
			err = sqlite_error(db, "step");
			break;
		}
		if (!cb)
			continue;
		const char *col[SQLITE_MAX_COLS];
		int nc = sqlite3_column_count(st);
		if (nc > SQLITE_MAX_COLS)
			nc = SQLITE_MAX_COLS;
		for (int c = 0; c < nc; c++)
			col[c] = (const char *)sqlite3_column_text(st, c);
		struct ct_sql_row row = { .num = (size_t)nc, .col = col };
		if (!cb(arg, &row)) {
			cb = NULL; // the caller has what it wanted; the statement still runs to its end
			break;
		}
	}
	sqlite3_finalize(st);
	return err;
}

static struct ct_error *sqlite_script(struct ct_store *s, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db_of(s), sql, NULL, NULL, &msg) == SQLITE_OK)
		return NULL;
	struct ct_error *e = ct_error_create(CT_ERROR_LIBRARY, "sqlite: %s", msg ? msg : "error");
	sqlite3_free(msg);
	return e;
}

static struct ct_error *sqlite_begin(struct ct_store *s, enum ct_tx_kind kind)
{
	// IMMEDIATE for both: the migration and a record both write.
	(void)kind;
	return sqlite_script(s, "BEGIN IMMEDIATE");
}

static struct ct_error *sqlite_commit(struct ct_store *s)
{
	return sqlite_script(s, "COMMIT");
}

static void sqlite_rollback(struct ct_store *s)
{
	if (!sqlite3_get_autocommit(db_of(s)))
		sqlite3_exec(db_of(s), "ROLLBACK", NULL, NULL, NULL);
}

static bool sqlite_retryable(const struct ct_error *e)
{
	// The busy timeout already waited; SQLITE_BUSY past it is reported, not retried forever.
	return e && (e->errnum & 0xff) == SQLITE_BUSY;
}

static void sqlite_close(struct ct_store *s)
{
	sqlite3_close_v2(db_of(s));
	free(s);
}

static const struct ct_store_ops sqlite_ops = {
	.name = "sqlite",
	.id_type = "INTEGER PRIMARY KEY AUTOINCREMENT",
	.blob_type = "BLOB",
	.exec = sqlite_exec,
	.exec_script = sqlite_script,
	.begin = sqlite_begin,
	.commit = sqlite_commit,
	.rollback = sqlite_rollback,
	.retryable = sqlite_retryable,
	.close = sqlite_close,
};

struct ct_error *ct_store_sqlite_connect(const char *path, struct ct_store **ret)
{
	struct ct_error *lib_err = ct_lazy_sqlite_require();
	if (lib_err)
		return lib_err;
	struct sqlite_store *s = calloc(1, sizeof(*s));
	if (!s)
		return &ct_enomem;
	s->base.ops = &sqlite_ops;
	int r = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (r != SQLITE_OK) {
		struct ct_error *e = s->db ? sqlite_error(s->db, path) : &ct_enomem;
		sqlite3_close_v2(s->db);
		free(s);
		return e;
	}
	sqlite3_busy_timeout(s->db, SQLITE_BUSY_MS);
	sqlite3_extended_result_codes(s->db, 1);
	// WAL: readers (buckets queries) do not block the writers; NORMAL sync is durable across a
	// crash of the process, which is what a triage tool needs.
	// Switching a new file to WAL takes an exclusive lock and answers SQLITE_BUSY at once, without the
	// busy handler, while another opener holds the file (8 writers opening one new store): retried
	// for as long as the busy timeout would wait.
	int rc = SQLITE_BUSY;
	for (int waited = 0; waited < SQLITE_BUSY_MS; waited += 10) {
		rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		sqlite3_sleep(10);
	}
	struct ct_error *e = rc == SQLITE_OK ? NULL : sqlite_error(s->db, "journal_mode=WAL");
	if (!e)
		e = sqlite_script(&s->base, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON");
	if (e) {
		sqlite_close(&s->base);
		return ct_error_wrap(e, "%s", path);
	}
	*ret = &s->base;
	return NULL;
}
