// SQLite on first use (lazy.h): only the crash store (--db, buckets, collect with a store) needs
// it, yet linked in it was the one optional library every run still mapped and relocated. Each
// function forwards to the library's; when it is missing they fail as SQLite does without a
// database (SQLITE_ERROR, NULL), and ct_store_sqlite_connect says why first.
#include <sqlite3.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_SQLITE3, .what = "the SQLite crash store needs" };

struct ct_error *ct_lazy_sqlite_require(void)
{
	return ct_dynlib_require(&lib);
}

int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs)
{
	*db = NULL;
	CT_DYNLIB_RESOLVE(lib, sqlite3_open_v2, fn, SQLITE_ERROR);
	return fn(filename, db, flags, vfs);
}

int sqlite3_close_v2(sqlite3 *db)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_close_v2, fn, SQLITE_OK);
	return fn(db);
}

int sqlite3_busy_timeout(sqlite3 *db, int ms)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_busy_timeout, fn, SQLITE_ERROR);
	return fn(db, ms);
}

int sqlite3_extended_result_codes(sqlite3 *db, int onoff)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_extended_result_codes, fn, SQLITE_ERROR);
	return fn(db, onoff);
}

int sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *arg,
		 char **errmsg)
{
	if (errmsg)
		*errmsg = NULL;
	CT_DYNLIB_RESOLVE(lib, sqlite3_exec, fn, SQLITE_ERROR);
	return fn(db, sql, callback, arg, errmsg);
}

int sqlite3_sleep(int ms)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_sleep, fn, 0);
	return fn(ms);
}

void sqlite3_free(void *p)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_free, fn, );
	fn(p);
}

int sqlite3_get_autocommit(sqlite3 *db)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_get_autocommit, fn, 1);
	return fn(db);
}

const char *sqlite3_errmsg(sqlite3 *db)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_errmsg, fn, "libsqlite3 is not loaded");
	return fn(db);
}

int sqlite3_extended_errcode(sqlite3 *db)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_extended_errcode, fn, SQLITE_ERROR);
	return fn(db);
}

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int nbyte, sqlite3_stmt **stmt, const char **tail)
{
	*stmt = NULL;
	CT_DYNLIB_RESOLVE(lib, sqlite3_prepare_v2, fn, SQLITE_ERROR);
	return fn(db, sql, nbyte, stmt, tail);
}

int sqlite3_step(sqlite3_stmt *stmt)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_step, fn, SQLITE_ERROR);
	return fn(stmt);
}

int sqlite3_finalize(sqlite3_stmt *stmt)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_finalize, fn, SQLITE_OK);
	return fn(stmt);
}

int sqlite3_column_count(sqlite3_stmt *stmt)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_column_count, fn, 0);
	return fn(stmt);
}

const unsigned char *sqlite3_column_text(sqlite3_stmt *stmt, int col)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_column_text, fn, NULL);
	return fn(stmt, col);
}

int sqlite3_bind_parameter_index(sqlite3_stmt *stmt, const char *name)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_bind_parameter_index, fn, 0);
	return fn(stmt, name);
}

int sqlite3_bind_int64(sqlite3_stmt *stmt, int i, sqlite3_int64 v)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_bind_int64, fn, SQLITE_ERROR);
	return fn(stmt, i, v);
}

int sqlite3_bind_null(sqlite3_stmt *stmt, int i)
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_bind_null, fn, SQLITE_ERROR);
	return fn(stmt, i);
}

int sqlite3_bind_text(sqlite3_stmt *stmt, int i, const char *s, int n, void (*destructor)(void *))
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_bind_text, fn, SQLITE_ERROR);
	return fn(stmt, i, s, n, destructor);
}

int sqlite3_bind_blob64(sqlite3_stmt *stmt, int i, const void *p, sqlite3_uint64 n, void (*destructor)(void *))
{
	CT_DYNLIB_RESOLVE(lib, sqlite3_bind_blob64, fn, SQLITE_ERROR);
	return fn(stmt, i, p, n, destructor);
}
