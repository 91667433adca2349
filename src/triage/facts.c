// Pure fact helpers: placing an address among the mappings, parsing glibc's abort message,
// normalizing library names, the blamed frame, recursion cycles. No session, no libdw.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "triage/facts.h"
#include "util/bisect.h"

static const char *const abort_kind_names[CT_ABORT_NUM_] = {
	[CT_ABORT_NONE] = "none",	  [CT_ABORT_ASSERTION] = "assertion", [CT_ABORT_STACK_SMASHING] = "stack-smashing",
	[CT_ABORT_FORTIFY] = "fortify", [CT_ABORT_MALLOC] = "malloc",	      [CT_ABORT_OTHER] = "other",
};

// One table: the subclass' id and the summary's words for it.
static const struct {
	const char *id, *summary;
} heap_subclasses[CT_HEAP_NUM_] = {
	[CT_HEAP_NONE] = { NULL, "heap corruption" },
	[CT_HEAP_DOUBLE_FREE] = { "double-free", "double free" },
	[CT_HEAP_INVALID_FREE] = { "invalid-free", "free of an invalid pointer" },
	[CT_HEAP_CORRUPTED_METADATA] = { "corrupted-metadata", "corrupted heap metadata" },
	[CT_HEAP_OVERFLOW] = { "heap-overflow", "heap overflow: a chunk was written past its end" },
	[CT_HEAP_TCACHE_POISONING] = { "tcache-poisoning", "tcache poisoning: a tcache entry is not a chunk" },
};

const char *ct_heap_subclass_to_string(enum ct_heap_subclass sub)
{
	return sub < CT_HEAP_NUM_ ? heap_subclasses[sub].id : NULL;
}

const char *ct_heap_subclass_summary(enum ct_heap_subclass sub)
{
	return heap_subclasses[sub < CT_HEAP_NUM_ ? sub : CT_HEAP_NONE].summary;
}

const char *ct_abort_kind_to_string(enum ct_abort_kind kind)
{
	return kind < CT_ABORT_NUM_ ? abort_kind_names[kind] : "other";
}

/* ---- addresses ---- */

static bool is_guard_mapping(const struct ct_mapping_fact *m)
{
	return !(m->flags & (CT_PF_R | CT_PF_W | CT_PF_X));
}

struct mapping_key {
	const struct ct_mapping_fact *maps;
	uint64_t addr;
};

static bool mapping_at_or_below(const void *ctx, size_t i)
{
	const struct mapping_key *k = ctx;
	return k->maps[i].start <= k->addr;
}

size_t ct_mapping_upper(const struct ct_mapping_fact *maps, size_t n, uint64_t addr)
{
	return ct_bisect(n, mapping_at_or_below, &(struct mapping_key){ maps, addr });
}

void ct_place_address(uint64_t addr, const struct ct_mapping_fact *maps, size_t n, uint64_t limit,
		      const struct ct_mapping_fact *thread_stack, struct ct_address_facts *ret)
{
	struct ct_address_facts a = { .valid = true, .address = addr };
	a.near_null = addr < CT_NEAR_NULL_LIMIT;
	a.non_canonical = limit && addr >= limit;
	size_t lo = ct_mapping_upper(maps, n, addr);
	const struct ct_mapping_fact *below = lo ? &maps[lo - 1] : NULL;
	const struct ct_mapping_fact *above = lo < n ? &maps[lo] : NULL;
	if (below && addr < below->end) {
		a.mapping = *below;
		// A no-access mapping right below a stack: the pthread guard page.
		if (is_guard_mapping(below) && above && above->is_stack && above->start - below->end < 4096)
			a.in_stack_guard = true;
	} else if (!a.non_canonical) {
		uint64_t d_below = below ? addr - below->end + 1 : UINT64_MAX;
		uint64_t d_above = above ? above->start - addr : UINT64_MAX;
		if (below || above) {
			a.nearest = d_below <= d_above ? *below : *above;
			a.distance = d_below <= d_above ? d_below : d_above;
		}
		// The gap below a stack (growing-down main stack): stack_guard_gap, 1 MiB by default.
		if (above && above->is_stack && d_above <= CT_STACK_GUARD_GAP + 4096 && !a.near_null)
			a.in_stack_guard = true;
		// Or below the guard page of a thread stack.
		if (above && is_guard_mapping(above) && d_above <= 4096 && lo + 1 < n && maps[lo + 1].is_stack)
			a.in_stack_guard = true;
	}
	if (thread_stack && thread_stack->present && addr >= thread_stack->start && addr < thread_stack->end)
		a.in_thread_stack = true;
	*ret = a;
}

/* ---- glibc abort message ---- */

static const char *pool_len(struct ct_strpool *strings, const char *s, size_t len)
{
	return ct_strpool_intern_len(strings, s, len);
}

static void parse_assertion(struct ct_strpool *strings, const char *text, const char *marker, struct ct_abort_facts *a)
{
	// glibc assert/assert.c: "%s%s%s:%u: %s%sAssertion `%s' failed.\n" (progname, ": ", file, line,
	// function, ": ", expression); assert-perr.c: "…%s%sUnexpected error: %s.\n".
	size_t prefix_len = (size_t)(marker - text);
	bool perror = strncmp(marker, "Unexpected error: ", 18) == 0;
	const char *expr = marker + (perror ? 18 : 11);
	const char *end = perror ? strrchr(expr, '.') : strstr(expr, "' failed");
	if (!end || end < expr)
		end = expr + strlen(expr);
	a->expression = pool_len(strings, expr, (size_t)(end - expr));
	// Find ":<line>: " in the prefix; the file is before it (after "prog: "), the function after it.
	for (size_t i = 0; i < prefix_len; i++) {
		if (text[i] != ':' || !isdigit((unsigned char)text[i + 1]))
			continue;
		size_t j = i + 1;
		while (j < prefix_len && isdigit((unsigned char)text[j]))
			j++;
		if (j + 1 >= prefix_len + 1 || text[j] != ':' || text[j + 1] != ' ')
			continue;
		a->line = atoi(text + i + 1);
		const char *file = text;
		const char *sep = strstr(text, ": ");
		if (sep && sep < text + i)
			file = sep + 2;
		a->file = pool_len(strings, file, (size_t)(text + i - file));
		const char *fn = text + j + 2;
		size_t fn_len = (size_t)(marker - fn);
		if (fn_len >= 2 && fn[fn_len - 2] == ':' && fn[fn_len - 1] == ' ')
			fn_len -= 2;
		if (fn_len)
			a->function = pool_len(strings, fn, fn_len);
		break;
	}
}

// glibc 2.36 malloc/malloc.c malloc_printerr() strings, by what they mean.
static const char *const double_free_msgs[] = { "double free", NULL };
static const char *const invalid_free_msgs[] = { "free(): invalid pointer", "munmap_chunk(): invalid pointer",
						 "realloc(): invalid pointer", "free(): invalid size",
						 "free(): unaligned chunk detected", NULL };
static const char *const malloc_msgs[] = {
	"malloc(", "free(", "realloc(", "calloc(", "munmap_chunk(", "malloc_consolidate(", "corrupted size",
	"corrupted double-linked list", "tcache", "aligned_alloc(", "memalign(", "break adjusted to free malloc space",
	"malloc_check", "unaligned fastbin chunk", "double free or corruption", NULL,
};

static bool contains_any(const char *text, const char *const *list)
{
	for (; *list; list++) {
		if (strstr(text, *list))
			return true;
	}
	return false;
}

void ct_abort_parse(struct ct_strpool *strings, const char *text, struct ct_abort_facts *ret)
{
	struct ct_abort_facts a = { 0 };
	if (!text || !*text) {
		*ret = a;
		return;
	}
	size_t len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	a.present = true;
	a.text = pool_len(strings, text, len);
	const char *t = a.text;
	const char *marker = strstr(t, "Assertion `");
	if (!marker)
		marker = strstr(t, "Unexpected error: ");
	if (marker) {
		a.kind = CT_ABORT_ASSERTION;
		parse_assertion(strings, t, marker, &a);
	} else if (strstr(t, "stack smashing detected")) {
		a.kind = CT_ABORT_STACK_SMASHING;
	} else if (contains_any(t, double_free_msgs)) {
		a.kind = CT_ABORT_MALLOC;
		a.heap_subclass = CT_HEAP_DOUBLE_FREE;
	} else if (contains_any(t, invalid_free_msgs)) {
		a.kind = CT_ABORT_MALLOC;
		a.heap_subclass = CT_HEAP_INVALID_FREE;
	} else if (contains_any(t, malloc_msgs)) {
		a.kind = CT_ABORT_MALLOC;
		a.heap_subclass = CT_HEAP_CORRUPTED_METADATA;
	} else if (strncmp(t, "*** ", 4) == 0 && strstr(t, " ***")) {
		// __fortify_fail: "*** buffer overflow detected ***: terminated", "*** invalid fd … ***", …
		a.kind = CT_ABORT_FORTIFY;
	} else {
		a.kind = CT_ABORT_OTHER;
	}
	*ret = a;
}

/* ---- names, modules, frames ---- */

const char *ct_normalize_function(struct ct_strpool *strings, const char *name)
{
	if (!name)
		return NULL;
	const char *s = name;
	// glibc's internal aliases: __GI_raise, __GI___libc_free, __libc_free → the public name.
	if (strncmp(s, "__GI_", 5) == 0)
		s += 5;
	static const struct {
		const char *from, *to;
	} aliases[] = {
		{ "__libc_malloc", "malloc" }, { "__libc_free", "free" },	{ "__libc_realloc", "realloc" },
		{ "__libc_calloc", "calloc" }, { "__GI_abort", "abort" },	{ "__pthread_kill", "pthread_kill" },
	};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strcmp(s, aliases[i].from) == 0)
			return ct_strpool_intern(strings, aliases[i].to);
	}
	// Rust's legacy mangling ends in a hash of the crate build ("::h0123456789abcdef"): not part of
	// the name for rules and signatures.
	size_t nlen = strlen(s);
	if (nlen > 19 && strncmp(s + nlen - 19, "::h", 3) == 0 && strspn(s + nlen - 16, "0123456789abcdef") == 16)
		return pool_len(strings, s, nlen - 19);
	// Compiler clones: foo.constprop.0, foo.isra.0, foo.part.0, foo.cold, foo.lto_priv.0.
	const char *dot = strchr(s, '.');
	if (dot && dot != s &&
	    (strncmp(dot, ".constprop", 10) == 0 || strncmp(dot, ".isra", 5) == 0 || strncmp(dot, ".part", 5) == 0 ||
	     strncmp(dot, ".cold", 5) == 0 || strncmp(dot, ".lto_priv", 9) == 0 || strncmp(dot, ".localalias", 11) == 0))
		return pool_len(strings, s, (size_t)(dot - s));
	return s == name ? name : ct_strpool_intern(strings, s);
}

bool ct_path_is_system(const char *path)
{
	if (!path)
		return false;
	static const char *const prefixes[] = { "/lib/",   "/lib64/",     "/lib32/",	 "/libx32/", "/usr/lib/",
						"/usr/lib64/", "/usr/lib32/", "/usr/libx32/", "/usr/libexec/",
						"/usr/include/", "/usr/share/", "/usr/src/rustc-", "/rustc/", "/nix/store/", "/gnu/store/",
						"/system/lib", "/apex/" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	}
	return false;
}

long ct_find_blame(const struct ct_frame_fact *frames, size_t n)
{
	long first_own = -1;
	for (size_t i = 0; i < n; i++) {
		if (frames[i].own && frames[i].program)
			return (long)i;
		if (frames[i].own && first_own < 0)
			first_own = (long)i;
	}
	return first_own;
}

static bool same_frame(const struct ct_frame_fact *a, const struct ct_frame_fact *b)
{
	if (a->pc != b->pc)
		return false;
	if (a->function == b->function)
		return true;
	return a->function && b->function && strcmp(a->function, b->function) == 0;
}

/** Longest cycle looked for: mutual recursion through up to 16 functions. */
#define MAX_CYCLE 16

void ct_find_recursion(const struct ct_frame_fact *frames, size_t n, struct ct_stack_facts *st)
{
	size_t best_reps = 0, best_len = 0, best_start = 0;
	for (size_t len = 1; len <= MAX_CYCLE && 2 * len <= n; len++) {
		// A cycle of len frames repeats at most n / len times: once that cannot beat the best,
		// neither can any longer cycle (a 262,000-frame overflow: one pass instead of 16).
		if (n / len <= best_reps)
			break;
		size_t run = 0, run_start = 0;
		for (size_t i = 0; i + len < n; i++) {
			if (same_frame(&frames[i], &frames[i + len])) {
				if (run == 0)
					run_start = i;
				run++;
			} else {
				run = 0;
			}
			size_t reps = run / len + 1;
			if (run && reps > best_reps) {
				best_reps = reps;
				best_len = len;
				best_start = run_start;
			}
		}
	}
	if (best_reps >= 2) {
		st->recursion_depth = best_reps;
		st->cycle_length = best_len;
		st->cycle_start = best_start;
	}
}
