// libpq on first use (lazy.h): only a PostgreSQL crash store (--db postgresql://…) needs it, and
// linked in it maps twenty libraries (OpenSSL, GnuTLS, Kerberos, LDAP, SASL…) into every run,
// about 7 ms of start-up. Each function forwards to the library's; when it is missing they fail as
// libpq does without a connection (NULL, CONNECTION_BAD, PGRES_FATAL_ERROR).
#include <libpq-fe.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_PQ, .what = "a PostgreSQL crash store needs" };

struct ct_error *ct_lazy_libpq_require(void)
{
	return ct_dynlib_require(&lib);
}

PGconn *PQconnectdb(const char *conninfo)
{
	CT_DYNLIB_RESOLVE(lib, PQconnectdb, fn, NULL);
	return fn(conninfo);
}

void PQfinish(PGconn *conn)
{
	CT_DYNLIB_RESOLVE(lib, PQfinish, fn, );
	fn(conn);
}

ConnStatusType PQstatus(const PGconn *conn)
{
	CT_DYNLIB_RESOLVE(lib, PQstatus, fn, CONNECTION_BAD);
	return fn(conn);
}

PGTransactionStatusType PQtransactionStatus(const PGconn *conn)
{
	CT_DYNLIB_RESOLVE(lib, PQtransactionStatus, fn, PQTRANS_UNKNOWN);
	return fn(conn);
}

char *PQerrorMessage(const PGconn *conn)
{
	CT_DYNLIB_RESOLVE(lib, PQerrorMessage, fn, (char *)"libpq is not loaded");
	return fn(conn);
}

PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg)
{
	CT_DYNLIB_RESOLVE(lib, PQsetNoticeProcessor, fn, NULL);
	return fn(conn, proc, arg);
}

PGresult *PQexec(PGconn *conn, const char *query)
{
	CT_DYNLIB_RESOLVE(lib, PQexec, fn, NULL);
	return fn(conn, query);
}

PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
		       const char *const *paramValues, const int *paramLengths, const int *paramFormats,
		       int resultFormat)
{
	CT_DYNLIB_RESOLVE(lib, PQexecParams, fn, NULL);
	return fn(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}

ExecStatusType PQresultStatus(const PGresult *res)
{
	CT_DYNLIB_RESOLVE(lib, PQresultStatus, fn, PGRES_FATAL_ERROR);
	return fn(res);
}

char *PQresultErrorMessage(const PGresult *res)
{
	CT_DYNLIB_RESOLVE(lib, PQresultErrorMessage, fn, (char *)"libpq is not loaded");
	return fn(res);
}

char *PQresultErrorField(const PGresult *res, int fieldcode)
{
	CT_DYNLIB_RESOLVE(lib, PQresultErrorField, fn, NULL);
	return fn(res, fieldcode);
}

int PQntuples(const PGresult *res)
{
	CT_DYNLIB_RESOLVE(lib, PQntuples, fn, 0);
	return fn(res);
}

int PQnfields(const PGresult *res)
{
	CT_DYNLIB_RESOLVE(lib, PQnfields, fn, 0);
	return fn(res);
}

char *PQgetvalue(const PGresult *res, int tup_num, int field_num)
{
	CT_DYNLIB_RESOLVE(lib, PQgetvalue, fn, NULL);
	return fn(res, tup_num, field_num);
}

int PQgetisnull(const PGresult *res, int tup_num, int field_num)
{
	CT_DYNLIB_RESOLVE(lib, PQgetisnull, fn, 1);
	return fn(res, tup_num, field_num);
}

void PQclear(PGresult *res)
{
	CT_DYNLIB_RESOLVE(lib, PQclear, fn, );
	fn(res);
}
