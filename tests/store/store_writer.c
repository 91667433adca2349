// A writer of the crash store for the concurrency test and the benchmark (tests/store/,
// scripts/bench-store): records N reports into K buckets through the store's own interface
// (src/store/store.h), as one batch process or one machine of a fleet would, and prints the
// reports per second it achieved.
//
// Usage: store_writer URL N K WRITER_ID [JSON_FILE]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// A real report as the payload (a batch records one per core), read whole.
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			char *nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: store_writer URL N K WRITER_ID [JSON_FILE]\n");
		return 64;
	}
	long n = atol(argv[2]), k = atol(argv[3]), id = atol(argv[4]);
	size_t json_len = 0;
	char *json = argc > 5 ? read_all(argv[5], &json_len) : NULL;
	struct ct_store *s;
	struct ct_error *e = ct_store_open(argv[1], &s);
	if (e) {
		fprintf(stderr, "store_writer: %s\n", ct_error_message(e));
		return 2;
	}
	double t0 = now();
	for (long i = 0; i < n; i++) {
		char key[32], version[32], host[32], build[48];
		// Every writer hits every bucket: the upserts contend on the same rows.
		snprintf(key, sizeof(key), "%016lx", (unsigned long)(i % k) + 0xabc0000000000000UL);
		snprintf(version, sizeof(version), "1.%ld", i % 3);
		snprintf(host, sizeof(host), "host-%ld", id);
		snprintf(build, sizeof(build), "build-%ld", i % 3);
		struct ct_store_report r = {
			.time = 1700000000 + i * 60 + id,
			.host = host,
			.executable = "/usr/bin/prog",
			.build_id = build,
			.version = version,
			.class_id = "null-deref",
			.signature_version = 2,
			.signature = key,
			.bucket = key,
			.blame = "parse_record",
			.core = "core",
			.json = json,
			.json_len = json_len,
		};
		if ((e = ct_store_record(s, &r, NULL))) {
			fprintf(stderr, "store_writer %ld: report %ld: %s\n", id, i, ct_error_message(e));
			return 1;
		}
	}
	double dt = now() - t0;
	printf("%ld %.3f %.1f\n", n, dt, dt > 0 ? (double)n / dt : 0.0);
	ct_store_close(s);
	free(json);
	return 0;
}
