// `coretriage buckets --db URL [top|new|regressions|show KEY|mark KEY]`: the crash store's history
// (src/store/) as a text table, JSON for bots (docs/json-report.md, "store queries") or Markdown.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/batch.h"
#include "cli/history.h"
#include "writers/json_text.h"
#include "store/store.h"
#include "trail/logtime.h"

/** Rows shown by default: a terminal's worth; --limit=0 shows all. */
#define HISTORY_DEFAULT_LIMIT 50
/** Reports listed under `show KEY` by default. */
#define HISTORY_SHOW_REPORTS 20

static const char history_help[] =
	"Usage: coretriage buckets --db=URL [QUERY] [OPTIONS]\n"
	"Queries the crash store that batch --db and collect fill (docs/fleet.md).\n"
	"QUERY is one of\n"
	"  top                 buckets by their reports since --since (default: all time)\n"
	"  new                 buckets first seen since --since, or first seen in --version or --build-id\n"
	"  regressions         buckets marked fixed and seen again in that version or later\n"
	"  show KEY            one bucket and its newest reports\n"
	"  mark KEY            set --fixed-in and/or --bug of a bucket\n"
	"Options:\n"
	"      --db=URL               the store: PATH, sqlite:PATH or postgresql://USER@HOST/DB\n"
	"      --since=TIME           YYYY-MM-DD, an RFC 3339 time, @EPOCH or an age (30m, 24h, 7d)\n"
	"      --version=V            new: buckets whose first report was of version V\n"
	"      --build-id=ID          new: buckets whose first report was of build-id ID\n"
	"      --limit=N              at most N buckets or reports (default 50; 0: all)\n"
	"      --fixed-in=V           mark: the bucket is fixed in version V\n"
	"      --bug=URL              mark: the bucket's bug\n"
	"  -f, --format=FORMAT        text (default), json, markdown\n"
	"  -h, --help                 show this help and exit\n";

enum history_format { HISTORY_TEXT, HISTORY_JSON, HISTORY_MARKDOWN };

struct history {
	const char *db, *since_arg, *fixed_in, *bug;
	struct ct_store_query q;
	bool mark;
	bool limit_given;
	enum history_format format;
};


// --since: a date, an RFC 3339 time, @EPOCH, or an age before now.
static bool parse_since(const char *s, long long *ret)
{
	char *end;
	if (s[0] == '@') {
		long long v = strtoll(s + 1, &end, 10);
		if (end == s + 1 || *end || v < 0)
			return false;
		*ret = v;
		return true;
	}
	long long n = strtoll(s, &end, 10);
	if (end != s && n >= 0 && end[0] && !end[1] && strchr("smhdw", end[0])) {
		static const long long unit[] = { ['s'] = 1, ['m'] = 60, ['h'] = 3600, ['d'] = 86400, ['w'] = 604800 };
		long long u = unit[(unsigned char)end[0]];
		if (n > (long long)1e12 / u)
			return false;
		*ret = (long long)time(NULL) - n * u;
		return true;
	}
	unsigned y, m, d;
	int used = 0;
	if (sscanf(s, "%4u-%2u-%2u%n", &y, &m, &d, &used) == 3 && used == 10 && !s[10] && m >= 1 && m <= 12 &&
	    d >= 1 && d <= 31) {
		*ret = (long long)ct_days_from_civil(y, m, d) * 86400;
		return true;
	}
	struct ct_logtime_context ctx = { .reference_usec = (int64_t)time(NULL) * 1000000 };
	enum ct_logtime_format f;
	int64_t usec;
	if (ct_logtime_parse(s, strlen(s), &ctx, CT_LOGTIME_RFC3339, &f, &usec) && f == CT_LOGTIME_RFC3339) {
		*ret = usec / 1000000;
		return true;
	}
	return false;
}

static int parse_args(int argc, char **argv, struct history *h)
{
	enum { O_DB = 256, O_SINCE, O_VERSION, O_BUILD_ID, O_LIMIT, O_FIXED_IN, O_BUG };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },	   { "since", required_argument, NULL, O_SINCE },
		{ "version", required_argument, NULL, O_VERSION }, { "build-id", required_argument, NULL, O_BUILD_ID },
		{ "limit", required_argument, NULL, O_LIMIT },	   { "fixed-in", required_argument, NULL, O_FIXED_IN },
		{ "bug", required_argument, NULL, O_BUG },	   { "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },		   { NULL, 0, NULL, 0 },
	};
	h->q.kind = CT_STORE_QUERY_TOP;
	h->q.limit = HISTORY_DEFAULT_LIMIT;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":f:h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case O_DB: h->db = optarg; break;
		case O_SINCE:
			if (!parse_since(optarg, &h->q.since))
				return ct_cli_command_usage("buckets", "--since: '%s' is not YYYY-MM-DD, an RFC 3339 time, @EPOCH or an "
						     "age (30m, 24h, 7d)", optarg);
			h->since_arg = optarg;
			break;
		case O_VERSION: h->q.version = optarg; break;
		case O_BUILD_ID: h->q.build_id = optarg; break;
		case O_LIMIT:
			h->q.limit = strtoul(optarg, &end, 10);
			if (!*optarg || *end || *optarg == '-' || h->q.limit > 1000000)
				return ct_cli_command_usage("buckets", "--limit: '%s' is not a number from 0 to 1000000", optarg);
			h->limit_given = true;
			break;
		case O_FIXED_IN: h->fixed_in = optarg; break;
		case O_BUG: h->bug = optarg; break;
		case 'f':
			if (!strcmp(optarg, "text"))
				h->format = HISTORY_TEXT;
			else if (!strcmp(optarg, "json"))
				h->format = HISTORY_JSON;
			else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md"))
				h->format = HISTORY_MARKDOWN;
			else
				return ct_cli_command_usage("buckets", "--format: '%s' is not text, json or markdown", optarg);
			break;
		case 'h': fputs(history_help, stdout); return 0;
		case ':': return ct_cli_command_usage("buckets", "%s needs a value", argv[optind - 1]);
		default: return ct_cli_command_usage("buckets", "unknown option '%s'", argv[optind - 1]);
		}
	}
	char **pos = argv + optind;
	int npos = argc - optind;
	if (npos > 0) {
		const char *verb = pos[0];
		int want = 1;
		if (!strcmp(verb, "top")) {
			h->q.kind = CT_STORE_QUERY_TOP;
		} else if (!strcmp(verb, "new")) {
			h->q.kind = CT_STORE_QUERY_NEW;
		} else if (!strcmp(verb, "regressions")) {
			h->q.kind = CT_STORE_QUERY_REGRESSIONS;
		} else if (!strcmp(verb, "show") || !strcmp(verb, "mark")) {
			if (npos < 2)
				return ct_cli_command_usage("buckets", "%s: which bucket? (its KEY, the signature hash)", verb);
			h->q.kind = CT_STORE_QUERY_SHOW;
			h->q.key = pos[1];
			h->mark = !strcmp(verb, "mark");
			want = 2;
		} else {
			return ct_cli_command_usage("buckets", "'%s' is not top, new, regressions, show or mark", verb);
		}
		if (npos > want)
			return ct_cli_command_usage("buckets", "too many arguments: '%s'", pos[want]);
	}
	if (!h->db)
		return ct_cli_command_usage("buckets", "%s", "--db=URL is needed (the store batch --db filled)");
	if (h->mark && !h->fixed_in && !h->bug)
		return ct_cli_command_usage("buckets", "%s", "mark: give --fixed-in=V, --bug=URL or both");
	if (!h->mark && (h->fixed_in || h->bug))
		return ct_cli_command_usage("buckets", "%s", "--fixed-in and --bug go with mark KEY");
	if ((h->q.version || h->q.build_id) && h->q.kind != CT_STORE_QUERY_NEW)
		return ct_cli_command_usage("buckets", "%s", "--version and --build-id go with new");
	return -1;
}

static void iso_time(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "-");
}

static json_t *str_or_null(const char *s)
{
	return s ? ct_json_text(s) : json_null();
}

static json_t *bucket_json(const struct ct_store_bucket *b, enum ct_store_query_kind kind)
{
	json_t *o = json_object();
	char t[32];
	json_object_set_new(o, "key", ct_json_text(b->key));
	json_object_set_new(o, "signature_version", json_integer(b->signature_version));
	json_object_set_new(o, "signature", str_or_null(b->signature));
	json_object_set_new(o, "class", str_or_null(b->class_id));
	json_object_set_new(o, "blame", str_or_null(b->blame));
	iso_time(b->first_seen, t, sizeof(t));
	json_object_set_new(o, "first_seen", json_string(t));
	iso_time(b->last_seen, t, sizeof(t));
	json_object_set_new(o, "last_seen", json_string(t));
	json_object_set_new(o, "count", json_integer(b->count));
	if (kind == CT_STORE_QUERY_TOP || kind == CT_STORE_QUERY_REGRESSIONS)
		json_object_set_new(o, kind == CT_STORE_QUERY_TOP ? "count_since" : "count_after_fix",
				    json_integer(b->matched));
	json_object_set_new(o, "first_version", str_or_null(b->first_version));
	json_object_set_new(o, "last_version", str_or_null(b->last_version));
	json_object_set_new(o, "first_build_id", str_or_null(b->first_build_id));
	json_object_set_new(o, "last_build_id", str_or_null(b->last_build_id));
	json_object_set_new(o, "status", json_string(ct_bucket_status_to_string(b->status)));
	json_object_set_new(o, "fixed_in", str_or_null(b->fixed_in));
	json_object_set_new(o, "bug", str_or_null(b->bug_url));
	if (kind == CT_STORE_QUERY_REGRESSIONS)
		json_object_set_new(o, "regressed_in", str_or_null(b->regressed_version));
	return o;
}

static json_t *row_json(const struct ct_store_row *r)
{
	json_t *o = json_object();
	char t[32];
	iso_time(r->time, t, sizeof(t));
	json_object_set_new(o, "time", json_string(t));
	json_object_set_new(o, "host", str_or_null(r->host));
	json_object_set_new(o, "executable", str_or_null(r->executable));
	json_object_set_new(o, "build_id", str_or_null(r->build_id));
	json_object_set_new(o, "package", str_or_null(r->package));
	json_object_set_new(o, "version", str_or_null(r->version));
	json_object_set_new(o, "core", str_or_null(r->core));
	return o;
}

static const char *const query_names[CT_STORE_QUERY_NUM_] = {
	[CT_STORE_QUERY_TOP] = "top",
	[CT_STORE_QUERY_NEW] = "new",
	[CT_STORE_QUERY_REGRESSIONS] = "regressions",
	[CT_STORE_QUERY_SHOW] = "show",
};

static int write_json(FILE *out, const struct history *h, const struct ct_store *s, const struct ct_store_buckets *bs,
		      const struct ct_store_rows *rows)
{
	json_t *o = json_object(), *tool = json_object(), *store = json_object(), *arr = json_array();
	char t[32];
	json_object_set_new(o, "schema_version", json_integer(CT_SCHEMA_VERSION));
	json_object_set_new(tool, "name", json_string("coretriage"));
	json_object_set_new(tool, "version", json_string(CT_VERSION));
	json_object_set_new(o, "tool", tool);
	json_object_set_new(o, "query", json_string(query_names[h->q.kind]));
	iso_time(h->q.since, t, sizeof(t));
	json_object_set_new(o, "since", h->since_arg ? json_string(t) : json_null());
	json_object_set_new(o, "version", str_or_null(h->q.version));
	json_object_set_new(o, "build_id", str_or_null(h->q.build_id));
	json_object_set_new(store, "backend", json_string(ct_store_backend(s)));
	json_object_set_new(store, "schema_version", json_integer(ct_store_schema_version(s)));
	json_object_set_new(o, "store", store);
	for (size_t i = 0; i < bs->num; i++)
		json_array_append_new(arr, bucket_json(&bs->v[i], h->q.kind));
	json_object_set_new(o, "buckets", arr);
	if (rows) {
		json_t *ra = json_array();
		for (size_t i = 0; i < rows->num; i++)
			json_array_append_new(ra, row_json(&rows->v[i]));
		json_object_set_new(o, "reports", ra);
	}
	int r = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(o);
	return r;
}

// Untrusted text (names from cores) in a Markdown table cell: no pipe, no newline, no markup.
static void md_cell(FILE *out, const char *s)
{
	fputc(' ', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			fputc(' ', out);
		else if (strchr("|\\`*_[]<>", ch))
			fprintf(out, "\\%c", ch);
		else
			fputc(ch, out);
	}
	fputs(" |", out);
}

static int write_markdown(FILE *out, const struct history *h, const struct ct_store_buckets *bs,
			  const struct ct_store_rows *rows)
{
	fprintf(out, "## Crash buckets: %s\n\n", query_names[h->q.kind]);
	if (!bs->num) {
		fputs("No bucket.\n", out);
		return 0;
	}
	fputs("| bucket | class | blame | count | first seen | last seen | versions | status | bug |\n", out);
	fputs("|---|---|---|---:|---|---|---|---|---|\n", out);
	for (size_t i = 0; i < bs->num; i++) {
		const struct ct_store_bucket *b = &bs->v[i];
		char f[32], l[32], n[64], v[256];
		iso_time(b->first_seen, f, sizeof(f));
		iso_time(b->last_seen, l, sizeof(l));
		snprintf(n, sizeof(n), "%lld", b->matched);
		snprintf(v, sizeof(v), "%s … %s", b->first_version ? b->first_version : "?",
			 b->last_version ? b->last_version : "?");
		fputc('|', out);
		md_cell(out, b->key);
		md_cell(out, b->class_id);
		md_cell(out, b->blame);
		md_cell(out, n);
		md_cell(out, f);
		md_cell(out, l);
		md_cell(out, v);
		md_cell(out, ct_bucket_status_to_string(b->status));
		md_cell(out, b->bug_url ? b->bug_url : "");
		fputc('\n', out);
	}
	if (rows && rows->num) {
		fputs("\n| time | host | version | build-id | core |\n|---|---|---|---|---|\n", out);
		for (size_t i = 0; i < rows->num; i++) {
			char t[32];
			iso_time(rows->v[i].time, t, sizeof(t));
			fputc('|', out);
			md_cell(out, t);
			md_cell(out, rows->v[i].host);
			md_cell(out, rows->v[i].version);
			md_cell(out, rows->v[i].build_id);
			md_cell(out, rows->v[i].core);
			fputc('\n', out);
		}
	}
	return 0;
}

static void text_time(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, size, "-");
}

static int write_text(FILE *out, const struct history *h, const struct ct_store_buckets *bs,
		      const struct ct_store_rows *rows)
{
	const char *what = h->q.kind == CT_STORE_QUERY_TOP ? "SINCE" : h->q.kind == CT_STORE_QUERY_REGRESSIONS ? "AGAIN"
													      : "COUNT";
	fprintf(out, "%zu bucket%s (%s)\n", bs->num, bs->num == 1 ? "" : "s", query_names[h->q.kind]);
	if (!bs->num)
		return 0;
	fprintf(out, "\n%-16s %6s %-20s %-32s %-16s %-16s %-12s %-12s %s\n", "BUCKET", what, "CLASS", "BLAME",
		"FIRST SEEN (UTC)", "LAST SEEN (UTC)", "FIRST VER", "LAST VER", "STATUS / BUG");
	for (size_t i = 0; i < bs->num; i++) {
		const struct ct_store_bucket *b = &bs->v[i];
		char f[32], l[32];
		text_time(b->first_seen, f, sizeof(f));
		text_time(b->last_seen, l, sizeof(l));
		ct_cli_cell(out, b->key, 16, true);
		fprintf(out, " %6lld ", b->matched);
		ct_cli_cell(out, b->class_id ? b->class_id : "unknown", 20, true);
		fputc(' ', out);
		ct_cli_cell(out, b->blame ? b->blame : "??", 32, true);
		fprintf(out, " %-16s %-16s ", f, l);
		ct_cli_cell(out, b->first_version ? b->first_version : "-", 12, true);
		fputc(' ', out);
		ct_cli_cell(out, b->last_version ? b->last_version : "-", 12, true);
		fputc(' ', out);
		ct_cli_cell(out, ct_bucket_status_to_string(b->status), 6, false);
		if (b->status == CT_BUCKET_STATUS_FIXED && b->fixed_in) {
			fputs(" in ", out);
			ct_cli_cell(out, b->fixed_in, 24, false);
		}
		if (h->q.kind == CT_STORE_QUERY_REGRESSIONS) {
			fputs(", seen again in ", out);
			ct_cli_cell(out, b->regressed_version ? b->regressed_version : "an unknown version", 24, false);
		}
		if (b->bug_url) {
			fputc(' ', out);
			ct_cli_cell(out, b->bug_url, 200, false);
		}
		fputc('\n', out);
	}
	if (rows && rows->num) {
		fprintf(out, "\n%-16s %-20s %-12s %-40s %s\n", "TIME (UTC)", "HOST", "VERSION", "BUILD-ID", "CORE");
		for (size_t i = 0; i < rows->num; i++) {
			const struct ct_store_row *r = &rows->v[i];
			char t[32];
			text_time(r->time, t, sizeof(t));
			fprintf(out, "%-16s ", t);
			ct_cli_cell(out, r->host ? r->host : "-", 20, true);
			fputc(' ', out);
			ct_cli_cell(out, r->version ? r->version : "-", 12, true);
			fputc(' ', out);
			ct_cli_cell(out, r->build_id ? r->build_id : "-", 40, true);
			fputc(' ', out);
			ct_cli_cell(out, r->core ? r->core : "-", 400, false);
			fputc('\n', out);
		}
	}
	return 0;
}

int ct_cli_history(int argc, char **argv)
{
	struct history h = { 0 };
	int rc = parse_args(argc, argv, &h);
	if (rc >= 0)
		return rc;
	struct ct_store *s = NULL;
	struct ct_error *err = ct_store_open(h.db, &s);
	struct ct_store_buckets bs = { 0 };
	struct ct_store_rows rows = { 0 };
	bool show = h.q.kind == CT_STORE_QUERY_SHOW;
	if (!err && h.mark)
		err = ct_store_mark(s, h.q.key, h.fixed_in, h.bug);
	if (!err)
		err = ct_store_query_buckets(s, &h.q, &bs);
	if (!err && show && !bs.num)
		err = ct_error_create(CT_ERROR_NOT_FOUND, "no bucket %s in the store", h.q.key);
	if (!err && show)
		err = ct_store_bucket_reports(s, h.q.key, h.limit_given ? h.q.limit : HISTORY_SHOW_REPORTS, &rows);
	if (err) {
		ct_cli_error("buckets: %s", ct_error_message(err));
		rc = ct_error_catch(&err, CT_ERROR_NOT_FOUND) ? CT_EXIT_USAGE : CT_EXIT_FATAL;
		ct_error_destroy(err);
	} else {
		int wr = h.format == HISTORY_JSON ? write_json(stdout, &h, s, &bs, show ? &rows : NULL)
			 : h.format == HISTORY_MARKDOWN ? write_markdown(stdout, &h, &bs, show ? &rows : NULL)
							: write_text(stdout, &h, &bs, show ? &rows : NULL);
		rc = wr != 0 || fflush(stdout) != 0 ? CT_EXIT_FATAL : CT_EXIT_OK;
	}
	ct_store_rows_free(&rows);
	ct_store_buckets_free(&bs);
	ct_store_close(s);
	return rc;
}
