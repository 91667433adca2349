// --known FILE: "HASH URL" per line, with signature versions marked (see known.h, docs/batch.md).
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/known.h"
#include "coretriage/report.h"
#include "writers/json_text.h"

/** A version mark: "# signature-version: N" (or "# signature-version N") on its own line. */
static bool version_mark(const char *line, long *ret)
{
	const char *p = line;
	while (*p == '#' || *p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "signature-version", 17) != 0)
		return false;
	p += 17;
	while (*p == ':' || *p == ' ' || *p == '\t' || *p == '=')
		p++;
	char *end;
	long v = strtol(p, &end, 10);
	if (end == p || v <= 0)
		return false;
	*ret = v;
	return true;
}

bool ct_known_load(const char *path, struct ct_known *k)
{
	*k = (struct ct_known){ .path = path };
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "coretriage: --known: %s: %s\n", path, strerror(errno));
		return false;
	}
	k->hashes = json_object();
	k->other = json_object();
	char *line = NULL;
	size_t cap = 0;
	long marked = 0; // version set by the last "# signature-version" line; 0: none yet
	while (k->hashes && k->other && getline(&line, &cap, f) > 0) {
		char *save, *hash = strtok_r(line, " \t\r\n", &save);
		if (!hash)
			continue;
		if (hash[0] == '#') {
			// The rest of the line was cut by strtok_r: look at it whole again.
			char *rest = strtok_r(NULL, "\r\n", &save);
			char mark[128];
			snprintf(mark, sizeof(mark), "%s %s", hash, rest ? rest : "");
			long v;
			if (version_mark(mark, &v))
				marked = v;
			continue;
		}
		long version = marked;
		// "2:551a4469edb0c62a": the version of this hash alone (as `jq '"\(.version):\(.hash)"'` makes).
		char *colon = strchr(hash, ':');
		if (colon && colon != hash) {
			char *end;
			long v = strtol(hash, &end, 10);
			if (end == colon && v > 0) {
				version = v;
				hash = colon + 1;
			}
		}
		char *url = strtok_r(NULL, " \t\r\n", &save);
		// Another version's hash still matches when the frame names did not change between the
		// versions (plain C without clones): it is used, and its matches counted for the warning.
		bool other = version != 0 && version != CT_SIGNATURE_VERSION;
		if (other) {
			k->num_other++;
			k->other_version = version;
			json_object_set_new(k->other, hash, json_true());
		} else if (version) {
			k->num_current++;
		} else {
			k->num_unmarked++;
		}
		json_object_set_new(k->hashes, hash, url && url[0] != '#' ? ct_json_text(url) : json_string(""));
	}
	free(line);
	fclose(f);
	if (!k->hashes || !k->other) {
		fprintf(stderr, "coretriage: --known: %s: out of memory\n", path);
		ct_known_free(k);
		return false;
	}
	return true;
}

const char *ct_known_lookup(struct ct_known *k, const char *hash)
{
	json_t *url = k->hashes ? json_object_get(k->hashes, hash) : NULL;
	if (url && json_object_get(k->other, hash))
		k->num_other_matched++;
	return url ? json_string_value(url) : NULL;
}

void ct_known_warn(const struct ct_known *k, size_t num_matched, size_t num_buckets, FILE *err)
{
	if (k->num_other > k->num_other_matched)
		fprintf(err,
			"coretriage: --known %s: %zu hash%s of signature version %ld and matched no bucket: this "
			"coretriage computes version %d (docs/signature.md says what each version changed), so "
			"hashes of bugs whose keys changed cannot match; take them again from this run's "
			"summary\n",
			k->path, k->num_other - k->num_other_matched,
			k->num_other - k->num_other_matched == 1 ? " is" : "es are", k->other_version, CT_SIGNATURE_VERSION);
	else if (k->num_unmarked && num_matched == 0 && num_buckets > 0)
		fprintf(err,
			"coretriage: --known %s: none of its %zu hash%s matched; hashes taken from a coretriage "
			"before signature version %d (docs/signature.md) cannot match: take them again and "
			"mark the file with a line '# signature-version: %d'\n",
			k->path, k->num_unmarked, k->num_unmarked == 1 ? "" : "es", CT_SIGNATURE_VERSION,
			CT_SIGNATURE_VERSION);
}

void ct_known_free(struct ct_known *k)
{
	json_decref(k->hashes);
	json_decref(k->other);
	k->hashes = k->other = NULL;
}
