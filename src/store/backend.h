/**
 * @file backend.h
 * What a database backend of the store does (private to src/store/): run one statement with
 * positional parameters ($1, $2, … in the SQL text, as PostgreSQL spells them; SQLite takes the
 * same names) and hand each row to a callback as text, and the transaction verbs. All SQL is
 * written once, in store.c and the migrations; a backend only says how its dialect spells the
 * column kinds of the migrations (@ID@, @BLOB@).
 */
#ifndef CT_STORE_BACKEND_H
#define CT_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

enum ct_sql_type { CT_SQL_NULL, CT_SQL_INT, CT_SQL_TEXT, CT_SQL_BLOB };

/** One parameter; strings and blobs borrowed for the call. */
struct ct_sql_arg {
	enum ct_sql_type type;
	long long i;
	const char *s;
	const void *blob;
	size_t len;
};

/** One row: @c num columns as text, NULL for SQL NULL; valid during the callback only. */
struct ct_sql_row {
	size_t num;
	const char *const *col;
};

/** Called for each row; returning false stops (no error). */
typedef bool (*ct_sql_row_cb)(void *arg, const struct ct_sql_row *row);

/** How a transaction starts: a plain writer, or the migration (one at a time across writers). */
enum ct_tx_kind { CT_TX_WRITE, CT_TX_MIGRATE };

struct ct_store_ops {
	const char *name;
	const char *id_type; /**< @ID@: an auto-numbered primary key */
	const char *blob_type; /**< @BLOB@ */
	/** Runs @p sql (one statement); @p cb may be NULL. */
	struct ct_error *(*exec)(struct ct_store *s, const char *sql, const struct ct_sql_arg *args, size_t num_args,
				 ct_sql_row_cb cb, void *arg);
	/** Runs several statements without parameters (a migration's text). */
	struct ct_error *(*exec_script)(struct ct_store *s, const char *sql);
	struct ct_error *(*begin)(struct ct_store *s, enum ct_tx_kind kind);
	struct ct_error *(*commit)(struct ct_store *s);
	void (*rollback)(struct ct_store *s);
	/** Whether @p err is a conflict worth running the transaction again for (busy, serialization). */
	bool (*retryable)(const struct ct_error *err);
	void (*close)(struct ct_store *s);
};

/** The common head of every backend's store. */
struct ct_store {
	const struct ct_store_ops *ops;
	int schema_version;
};

/** Connects to a SQLite file (@p path) or a PostgreSQL server (@p url); no migration yet. */
struct ct_error *ct_store_sqlite_connect(const char *path, struct ct_store **ret);
struct ct_error *ct_store_pg_connect(const char *url, struct ct_store **ret);

/** The compiled-in migrations (store_migrations.c, generated from src/store/migrations/). */
struct ct_store_migration {
	int version;
	const char *name;
	const char *sql;
};
extern const struct ct_store_migration ct_store_migrations[];
extern const size_t ct_store_num_migrations;

#endif
