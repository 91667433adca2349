// Crash programs for the batch tests: one bug per argv[1], the same bug reached with different data
// per argv[2] (heap layout, values, recursion depth), so cores of one bug differ in pid, addresses
// (ASLR) and contents but must land in one bucket; different bugs must never share one.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record { int id; char *name; struct record *next; };

__attribute__((noinline)) static int parse_record(struct record *r) { return r->next->id; }
__attribute__((noinline)) static int load_file(int n)
{
	struct record *r = calloc((size_t)n + 1, sizeof(*r));
	for (int i = 0; i < n; i++) {
		r[i].id = i;
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
	}
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += parse_record(&r[i]);
	return sum;
}

__attribute__((noinline)) static void store_name(struct record *r, const char *s) { r->name[0] = s[0]; }
__attribute__((noinline)) static void rename_all(int n)
{
	struct record *r = calloc(1, sizeof(*r));
	char *buf = malloc((size_t)n * 16);
	(void)buf;
	store_name(r, "x");
}

__attribute__((noinline)) static int check_invariant(int v) { assert(v < 0 && "value must be negative"); return v; }
__attribute__((noinline)) static int validate(int n) { return check_invariant(n); }

__attribute__((noinline)) static int compute_ratio(int a, int b) { return a / b; }
__attribute__((noinline)) static int report_stats(int n) { volatile int zero = n - n; return compute_ratio(n, zero); }

__attribute__((noinline)) static void release_buffer(char *p) { free(p); }
__attribute__((noinline)) static void cleanup_twice(int n)
{
	char *p = malloc((size_t)n * 8 + 8);
	release_buffer(p);
	release_buffer(p);
}

__attribute__((noinline)) static int expand_macro(int depth)
{
	volatile char frame[256];
	frame[depth & 255] = (char)depth;
	return expand_macro(depth + 1) + frame[0];
}

typedef int (*handler_fn)(int);
struct dispatcher { handler_fn on_event; };
__attribute__((noinline)) static int dispatch_event(struct dispatcher *d, int ev) { return d->on_event(ev); }
__attribute__((noinline)) static int run_loop(int n)
{
	struct dispatcher *d = calloc((size_t)n, sizeof(*d));
	return dispatch_event(d, n);
}

__attribute__((noinline)) static void shutdown_on_error(int code)
{
	fprintf(stderr, "fatal error %d\n", code);
	abort();
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 1;
	// Different heap layouts per run.
	void *pad = malloc((size_t)n * 4096);
	memset(pad, n, (size_t)n * 4096);
	if (!strcmp(bug, "null-read"))
		return load_file(n);
	if (!strcmp(bug, "null-write"))
		rename_all(n);
	if (!strcmp(bug, "assert"))
		return validate(n);
	if (!strcmp(bug, "div"))
		return report_stats(n);
	if (!strcmp(bug, "double-free"))
		cleanup_twice(n);
	if (!strcmp(bug, "overflow"))
		return expand_macro(n);
	if (!strcmp(bug, "null-call"))
		return run_loop(n);
	if (!strcmp(bug, "abort"))
		shutdown_on_error(n);
	return 0;
}
