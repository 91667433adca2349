// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format): one result per bucket, located at
// the blame frame's file:line, so CI code scanning (GitHub, GitLab) annotates the line that crashed.
// Schema: https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coretriage/coretriage.h"
#include "writers/json_text.h"
#include "writers/trail_writers.h"
#include "writers/writers.h"

// RFC 3986 percent-encoding of a path (keeps '/').
static char *uri_escape(const char *path, const char *prefix)
{
	size_t n = strlen(path), p = strlen(prefix);
	char *out = malloc(p + 3 * n + 1), *o = out;
	if (!out)
		return NULL;
	memcpy(o, prefix, p);
	o += p;
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    strchr("/-._~+", *s)) {
			*o++ = (char)*s;
		} else {
			static const char hexd[] = "0123456789ABCDEF";
			*o++ = '%';
			*o++ = hexd[*s >> 4];
			*o++ = hexd[*s & 15];
		}
	}
	*o = '\0';
	return out;
}

static json_t *iso_time(long long t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

// artifactLocation of a source file: relative to SRCROOT when under --source-root, a file: URI
// when absolute, else the relative path as recorded (DWARF's comp-dir-relative names).
static json_t *artifact_location(const char *file, const struct ct_sarif_options *o)
{
	json_t *loc = json_object();
	const char *root = o->source_root;
	size_t rl = root ? strlen(root) : 0;
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	char *uri;
	if (o->no_abs_paths) {
		const char *slash = strrchr(file, '/');
		uri = uri_escape(slash ? slash + 1 : file, "");
	} else if (root && rl && !strncmp(file, root, rl) && file[rl] == '/') {
		uri = uri_escape(file + rl + 1, "");
		json_object_set_new(loc, "uriBaseId", json_string("SRCROOT"));
	} else if (file[0] == '/') {
		uri = uri_escape(file, "file://");
	} else {
		uri = uri_escape(file, "");
	}
	json_object_set_new(loc, "uri", ct_json_text(uri ? uri : "unknown"));
	free(uri);
	return loc;
}

// The root cause's steps as a code flow (docs/root-cause.md): one thread flow in execution order,
// from where the value was made to the fault, which code-scanning UIs draw as a data-flow path.
static json_t *root_cause_flows(const struct ct_root_cause *rc, const struct ct_sarif_options *o)
{
	json_t *locs = json_array();
	for (size_t k = rc->num_steps; k-- > 0;) {
		const struct ct_root_step *st = &rc->steps[k];
		json_t *tfl = json_object(), *loc = json_object();
		if (st->file) {
			json_t *pl = json_object();
			json_object_set_new(pl, "artifactLocation", artifact_location(st->file, o));
			if (st->line > 0) {
				json_t *region = json_object();
				json_object_set_new(region, "startLine", json_integer(st->line));
				json_object_set_new(pl, "region", region);
			}
			json_object_set_new(loc, "physicalLocation", pl);
		}
		if (st->function) {
			json_t *ll = json_array(), *l = json_object();
			json_object_set_new(l, "fullyQualifiedName", ct_json_text(st->function));
			json_object_set_new(l, "kind", json_string("function"));
			json_array_append_new(ll, l);
			json_object_set_new(loc, "logicalLocations", ll);
		}
		char text[512];
		snprintf(text, sizeof(text), "%s%s%s%s%s", ct_root_step_kind_to_string(st->kind), st->expression ? " " : "",
			 st->expression ? st->expression : "", st->reason ? ": " : "", st->reason ? st->reason : "");
		json_t *m = json_object();
		json_object_set_new(m, "text", ct_json_text(text));
		json_object_set_new(loc, "message", m);
		json_object_set_new(tfl, "location", loc);
		json_t *kinds = json_array();
		json_array_append_new(kinds, json_string(ct_root_step_kind_to_string(st->kind)));
		json_object_set_new(tfl, "kinds", kinds);
		json_t *props = json_object();
		json_object_set_new(props, "frame", json_integer(st->frame));
		json_object_set_new(tfl, "properties", props);
		json_array_append_new(locs, tfl);
	}
	json_t *tf = json_object(), *tfs = json_array(), *flow = json_object(), *flows = json_array();
	json_object_set_new(tf, "locations", locs);
	json_array_append_new(tfs, tf);
	json_t *m = json_object();
	json_object_set_new(m, "text", ct_json_text(rc->summary ? rc->summary : "root cause"));
	json_object_set_new(flow, "message", m);
	json_object_set_new(flow, "threadFlows", tfs);
	json_array_append_new(flows, flow);
	return flows;
}

int ct_write_sarif(FILE *out, const struct ct_bucket *b, size_t n, const struct ct_sarif_options *o)
{
	json_t *log = json_object();
	json_object_set_new(log, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(log, "version", json_string("2.1.0"));
	json_t *run = json_object();
	json_t *driver = json_object();
	json_object_set_new(driver, "name", json_string("coretriage"));
	json_object_set_new(driver, "version", json_string(CT_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(CT_VERSION));
	json_t *rules = json_array();
	json_t *rule_index = json_object(); // class → index
	json_t *results = json_array();
	for (size_t i = 0; i < n; i++) {
		const char *cls = b[i].class_id ? b[i].class_id : "unknown";
		json_t *idx = json_object_get(rule_index, cls);
		if (!idx) {
			json_t *rule = json_object();
			json_object_set_new(rule, "id", ct_json_text(cls));
			json_object_set_new(rule, "name", ct_json_text(cls));
			json_t *sd = json_object();
			char text[256];
			snprintf(text, sizeof(text), "Crash of class %s found in a core dump", cls);
			json_object_set_new(sd, "text", ct_json_text(text));
			json_object_set_new(rule, "shortDescription", sd);
			json_t *cfg = json_object();
			json_object_set_new(cfg, "level", json_string("error"));
			json_object_set_new(rule, "defaultConfiguration", cfg);
			// The documentation this build was configured to point at (CT_SARIF_HELP_BASE: the
			// installed DOCDIR by default), not a site the project does not have; the text of the
			// page is in "help" for viewers offline.
			json_object_set_new(rule, "helpUri", json_string(CT_SARIF_HELP_BASE "/classes.md"));
			json_t *help = json_object();
			snprintf(text, sizeof(text), "What the class %s means and the facts it is decided from: "
				 "docs/classes.md, installed in %s", cls, CT_DOCDIR);
			json_object_set_new(help, "text", ct_json_text(text));
			json_object_set_new(rule, "help", help);
			idx = json_integer((json_int_t)json_array_size(rules));
			// The class may hold any bytes: keyed without jansson's UTF-8 check, so idx stays owned.
			json_object_set_new_nocheck(rule_index, cls, idx);
			json_array_append_new(rules, rule);
		}
		json_t *res = json_object();
		json_object_set_new(res, "ruleId", ct_json_text(cls));
		json_object_set_new(res, "ruleIndex", json_integer(json_integer_value(idx)));
		json_object_set_new(res, "level", json_string("error"));
		json_object_set_new(res, "kind", json_string("fail"));
		// Code scanning deduplicates alerts by their text too: the same bug must give the same
		// message on every run, so it names the class, the function and its file:line only — no
		// values, addresses or counts (those are in "properties").
		char *msg = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&msg, &len);
		if (m) {
			if (b[i].blame_function)
				fprintf(m, "%s in %s", cls, b[i].blame_function);
			else if (b[i].blame_module)
				fprintf(m, "%s in a function without a name in %s", cls, b[i].blame_module);
			else
				fprintf(m, "%s", cls);
			if (b[i].blame_file) {
				const char *slash = strrchr(b[i].blame_file, '/');
				fprintf(m, " at %s", slash ? slash + 1 : b[i].blame_file);
				if (b[i].blame_line > 0)
					fprintf(m, ":%d", b[i].blame_line);
			}
			fclose(m);
		}
		json_t *mj = json_object();
		json_object_set_new(mj, "text", ct_json_text(msg ? msg : cls));
		free(msg);
		json_object_set_new(res, "message", mj);
		json_t *locs = json_array();
		json_t *loc = json_object();
		bool any_loc = false;
		if (b[i].blame_file) {
			json_t *pl = json_object();
			json_object_set_new(pl, "artifactLocation", artifact_location(b[i].blame_file, o));
			if (b[i].blame_line > 0) {
				json_t *region = json_object();
				json_object_set_new(region, "startLine", json_integer(b[i].blame_line));
				json_object_set_new(pl, "region", region);
			}
			json_object_set_new(loc, "physicalLocation", pl);
			any_loc = true;
		}
		if (b[i].blame_function) {
			json_t *ll = json_array(), *l = json_object();
			json_object_set_new(l, "fullyQualifiedName", ct_json_text(b[i].blame_function));
			json_object_set_new(l, "kind", json_string("function"));
			json_array_append_new(ll, l);
			json_object_set_new(loc, "logicalLocations", ll);
			any_loc = true;
		}
		if (any_loc)
			json_array_append_new(locs, loc);
		else
			json_decref(loc);
		json_object_set_new(res, "locations", locs);
		// Code scanning keeps alerts across runs by fingerprint: the signature hash is exactly that,
		// versioned as SARIF asks (a new recipe is a new fingerprint, not a changed one).
		json_t *fp = json_object();
		char fp_key[48];
		snprintf(fp_key, sizeof(fp_key), "coretriageSignature/v%d", CT_SIGNATURE_VERSION);
		json_object_set_new(fp, fp_key, ct_json_text(b[i].hash));
		json_object_set_new(res, "partialFingerprints", fp);
		if (b[i].num_stack) {
			// The crashing stack, innermost first, as a SARIF code flow-free stack.
			json_t *stacks = json_array(), *st = json_object(), *frames = json_array();
			for (size_t k = b[i].num_stack; k-- > 0;) {
				json_t *f = json_object(), *fl = json_object(), *ll = json_array(), *l = json_object();
				const char *file = b[i].stack_file ? b[i].stack_file[k] : NULL;
				if (file) {
					json_t *pl = json_object();
					json_object_set_new(pl, "artifactLocation", artifact_location(file, o));
					if (b[i].stack_line[k] > 0) {
						json_t *region = json_object();
						json_object_set_new(region, "startLine", json_integer(b[i].stack_line[k]));
						json_object_set_new(pl, "region", region);
					}
					json_object_set_new(fl, "physicalLocation", pl);
				}
				json_object_set_new(l, "fullyQualifiedName", ct_json_text(b[i].stack[k]));
				json_array_append_new(ll, l);
				json_object_set_new(fl, "logicalLocations", ll);
				json_object_set_new(f, "location", fl);
				json_array_append_new(frames, f);
			}
			json_object_set_new(st, "frames", frames);
			json_t *sm = json_object();
			json_object_set_new(sm, "text", json_string("crashing thread of the example core"));
			json_object_set_new(st, "message", sm);
			json_array_append_new(stacks, st);
			json_object_set_new(res, "stacks", stacks);
		}
		// One core: its root cause (batch buckets carry none).
		if (o->report && n == 1 && o->report->root_cause.present && o->report->root_cause.num_steps)
			json_object_set_new(res, "codeFlows", root_cause_flows(&o->report->root_cause, o));
		json_t *props = json_object();
		json_object_set_new(props, "count", json_integer((json_int_t)b[i].count));
		json_object_set_new(props, "signature", ct_json_text(b[i].signature));
		json_object_set_new(props, "signatureHash", ct_json_text(b[i].hash));
		json_object_set_new(props, "example", ct_json_text(b[i].example));
		json_object_set_new(props, "new", json_boolean(!b[i].known_url));
		// What the message leaves out to stay stable: the example's summary and the blamed frame's
		// arguments (values, addresses).
		if (b[i].summary)
			json_object_set_new(props, "summary", ct_json_text(b[i].summary));
		if (b[i].blame_arguments)
			json_object_set_new(props, "blameArguments", ct_json_text(b[i].blame_arguments));
		if (b[i].known_url)
			json_object_set_new(props, "knownBug", ct_json_text(b[i].known_url));
		if (b[i].has_time) {
			json_object_set_new(props, "firstSeen", iso_time(b[i].first_seen));
			json_object_set_new(props, "lastSeen", iso_time(b[i].last_seen));
		}
		json_object_set_new(res, "properties", props);
		json_array_append_new(results, res);
	}
	json_decref(rule_index);
	json_object_set_new(driver, "rules", rules);
	json_t *tool = json_object();
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	if (o->source_root && !o->no_abs_paths) {
		json_t *bases = json_object(), *root = json_object();
		char *uri = uri_escape(o->source_root, o->source_root[0] == '/' ? "file://" : "");
		size_t ul = uri ? strlen(uri) : 0;
		// A base URI must end with '/' (SARIF 2.1.0 §3.14.14).
		char *with_slash = uri ? malloc(ul + 2) : NULL;
		if (with_slash) {
			snprintf(with_slash, ul + 2, "%s%s", uri, ul && uri[ul - 1] == '/' ? "" : "/");
			json_object_set_new(root, "uri", json_string(with_slash));
		}
		free(with_slash);
		free(uri);
		json_object_set_new(bases, "SRCROOT", root);
		json_object_set_new(run, "originalUriBaseIds", bases);
	}
	if (o->report) {
		json_t *inv = json_array(), *i = json_object();
		json_object_set_new(i, "executionSuccessful", json_true());
		struct ct_write_options wo;
		ct_write_options_init(&wo);
		wo.no_abs_paths = o->no_abs_paths;
		json_object_set_new(i, "properties", ct_sarif_invocation_properties(o->report, &wo));
		json_array_append_new(inv, i);
		json_object_set_new(run, "invocations", inv);
	}
	json_object_set_new(run, "results", results);
	json_object_set_new(run, "columnKind", json_string("utf16CodeUnits"));
	json_t *runs = json_array();
	json_array_append_new(runs, run);
	json_object_set_new(log, "runs", runs);
	int r = json_dumpf(log, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(log);
	fputc('\n', out);
	return r || ferror(out) ? -1 : 0;
}
