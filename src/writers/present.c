// The presentation layer (present.h): address width, thread groups, recursion collapsing, paths.
#include "writers/present.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writers/writers.h"
#include "util/keyhash.h"

/** Longest recursion cycle looked for (mutual recursion of up to 8 functions). */
#define MAX_PERIOD 8

int ct_present_hex_width(const struct ct_report *r)
{
	unsigned ps = r->input.pointer_size;
	return ps >= 1 && ps <= 8 ? 2 * (int)ps : 16;
}

const char *ct_display_path(const char *path, const struct ct_write_options *o)
{
	if (!path || !o->no_abs_paths)
		return path;
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ---- Thread groups ---- */

static uint64_t stack_hash(const struct ct_thread *t, uint64_t key)
{
	uint64_t h = ct_hash_mix(key ^ t->num_frames ^ ((uint64_t)t->truncated << 63));
	for (size_t i = 0; i < t->num_frames; i++)
		h = ct_hash_mix(h ^ t->frames[i].pc) + key;
	return h;
}

static bool same_stack(const struct ct_thread *a, const struct ct_thread *b)
{
	if (a->num_frames != b->num_frames || a->truncated != b->truncated)
		return false;
	for (size_t i = 0; i < a->num_frames; i++) {
		if (a->frames[i].pc != b->frames[i].pc)
			return false;
	}
	return true;
}

// A thread's Python stack (docs/runtimes.md) is part of what makes stacks the same: twenty threads
// asleep in time.sleep share the native stack, not the Python one. Names are interned: pointers
// compare as the strings do.
static uint64_t runtime_hash(const struct ct_runtime_thread *p, uint64_t h, uint64_t key)
{
	for (size_t i = 0; p && i < p->num_frames; i++)
		h = ct_hash_mix(h ^ (uintptr_t)p->frames[i].function ^ (uintptr_t)p->frames[i].file ^
				(uint64_t)p->frames[i].line << 40) + key;
	return h;
}

static bool same_runtime(const struct ct_runtime_thread *a, const struct ct_runtime_thread *b)
{
	size_t na = a ? a->num_frames : 0, nb = b ? b->num_frames : 0;
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		const struct ct_runtime_frame *x = &a->frames[i], *y = &b->frames[i];
		if (x->function != y->function || x->file != y->file || x->line != y->line)
			return false;
	}
	return true;
}

static const struct ct_thread *report_thread(const void *ctx, size_t i)
{
	return &((const struct ct_report *)ctx)->threads[i];
}

static const struct ct_thread *task_stack(const void *ctx, size_t i)
{
	return &((const struct ct_report *)ctx)->kernel.tasks[i].stack;
}

bool ct_group_items(size_t n, const struct ct_group_ops *ops, struct ct_thread_group **groups_ret, size_t *num_groups,
		    size_t **members_ret)
{
	size_t slots = 16;
	while (slots < 2 * n)
		slots *= 2;
	// Per item: its group; per group: its first item, hash and size; per slot: a group + 1.
	size_t *group_of = malloc((n ? n : 1) * sizeof(*group_of));
	size_t *first = malloc((n ? n : 1) * sizeof(*first));
	uint64_t *hashes = malloc((n ? n : 1) * sizeof(*hashes));
	size_t *table = calloc(slots, sizeof(*table));
	struct ct_thread_group *groups = calloc(n ? n : 1, sizeof(*groups));
	size_t *members = malloc((n ? n : 1) * sizeof(*members));
	bool ok = group_of && first && hashes && table && groups && members;
	if (!ok)
		goto out;
	uint64_t key = ct_hash_key(table);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		enum ct_group_role role = ops->role(ops->ctx, i);
		group_of[i] = SIZE_MAX;
		if (role == CT_GROUP_SKIP)
			continue;
		if (role == CT_GROUP_ALONE) {
			first[ng] = i;
			hashes[ng] = 0;
			group_of[i] = ng++;
			groups[group_of[i]].count++;
			continue;
		}
		uint64_t h = ops->hash(ops->ctx, i, key);
		size_t s = (size_t)h & (slots - 1);
		for (; table[s]; s = (s + 1) & (slots - 1)) {
			size_t gi = table[s] - 1;
			if (hashes[gi] == h && ops->same(ops->ctx, first[gi], i))
				break;
		}
		if (!table[s]) {
			table[s] = ng + 1;
			hashes[ng] = h;
			first[ng] = i;
			ng++;
		}
		group_of[i] = table[s] - 1;
		groups[group_of[i]].count++;
	}
	// Counting sort of the items by group: members of a group stay in item order.
	size_t at = 0;
	for (size_t gi = 0; gi < ng; gi++) {
		groups[gi].start = at;
		at += groups[gi].count;
		groups[gi].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (group_of[i] == SIZE_MAX)
			continue;
		struct ct_thread_group *gr = &groups[group_of[i]];
		members[gr->start + gr->count++] = i;
	}
	*groups_ret = groups;
	*members_ret = members;
	*num_groups = ng;
	groups = NULL;
	members = NULL;
out:
	free(group_of);
	free(first);
	free(hashes);
	free(table);
	free(groups);
	free(members);
	return ok;
}

struct stack_items {
	const struct ct_report *r;
	const struct ct_thread *(*at)(const void *ctx, size_t i);
};

// The crashing thread is shown on its own, before the groups.
static enum ct_group_role stack_role(const void *ctx, size_t i)
{
	const struct stack_items *s = ctx;
	return s->at(s->r, i)->crashed ? CT_GROUP_SKIP : CT_GROUP_KEYED;
}

static const struct ct_runtime_thread *python_of(const struct stack_items *s, const struct ct_thread *t)
{
	return s->at == report_thread && s->r->runtime.num_threads ? ct_runtime_find_thread(&s->r->runtime, t->tid) : NULL;
}

static uint64_t stack_item_hash(const void *ctx, size_t i, uint64_t key)
{
	const struct stack_items *s = ctx;
	const struct ct_thread *t = s->at(s->r, i);
	return runtime_hash(python_of(s, t), stack_hash(t, key), key);
}

static bool same_stack_item(const void *ctx, size_t a, size_t b)
{
	const struct stack_items *s = ctx;
	const struct ct_thread *x = s->at(s->r, a), *y = s->at(s->r, b);
	const struct ct_runtime_thread *py = python_of(s, y);
	return same_stack(x, y) && (!py || same_runtime(python_of(s, x), py));
}

static void group_stacks(struct ct_thread_groups *g, const struct ct_report *r, size_t n,
			 const struct ct_thread *(*stack_at)(const void *ctx, size_t i))
{
	memset(g, 0, sizeof(*g));
	g->report = r;
	g->at = stack_at;
	g->num_groups = n; // ungrouped until the grouping succeeds
	if (!n)
		return;
	const struct stack_items items = { r, stack_at };
	const struct ct_group_ops ops = { &items, stack_role, stack_item_hash, same_stack_item };
	struct ct_thread_group *groups;
	size_t *members, ng;
	if (ct_group_items(n, &ops, &groups, &ng, &members)) {
		g->groups = groups;
		g->members = members;
		g->num_groups = ng;
	}
}

void ct_thread_groups_init(struct ct_thread_groups *g, const struct ct_report *r)
{
	group_stacks(g, r, r->num_threads, report_thread);
}

void ct_task_groups_init(struct ct_thread_groups *g, const struct ct_report *r)
{
	group_stacks(g, r, r->kernel.num_tasks, task_stack);
}

void ct_thread_groups_deinit(struct ct_thread_groups *g)
{
	free(g->groups);
	free(g->members);
	g->groups = NULL;
	g->members = NULL;
	g->num_groups = 0;
}

size_t ct_thread_group_member(const struct ct_thread_groups *g, size_t gi, size_t k)
{
	return g->members ? g->members[g->groups[gi].start + k] : gi;
}

size_t ct_thread_group_size(const struct ct_thread_groups *g, size_t gi)
{
	return g->groups ? g->groups[gi].count : !g->at(g->report, gi)->crashed;
}

/* ---- Recursion ---- */

static bool same_frame(const struct ct_frame *a, const struct ct_frame *b)
{
	return a->pc == b->pc && a->function == b->function && a->inlined == b->inlined;
}

bool ct_find_cycle(const struct ct_thread *t, size_t i, size_t min_frames, size_t *period, size_t *repeats)
{
	size_t best_len = 0, best_p = 0;
	for (size_t p = 1; p <= MAX_PERIOD && i + 2 * p <= t->num_frames; p++) {
		size_t j = i + p;
		while (j < t->num_frames && same_frame(&t->frames[j], &t->frames[j - p]))
			j++;
		size_t reps = (j - i) / p;
		if (reps >= 2 && reps * p > best_len) {
			best_len = reps * p;
			best_p = p;
		}
	}
	if (!best_p || best_len < min_frames)
		return false;
	*period = best_p;
	*repeats = best_len / best_p;
	return true;
}

void ct_present_frames(const struct ct_thread *t, size_t collapse_min, size_t limit,
		       const struct ct_frame_walk_ops *ops, void *ctx)
{
	size_t shown = 0;
	for (size_t i = 0; i < t->num_frames;) {
		size_t period, repeats;
		if (collapse_min && ct_find_cycle(t, i, collapse_min, &period, &repeats)) {
			for (size_t k = 0; k < period; k++)
				ops->frame(ctx, &t->frames[i + k], i + k);
			ops->repeat(ctx, i + period, i + period * repeats - 1, period, repeats - 1);
			i += period * repeats;
			shown += period + 1;
		} else {
			ops->frame(ctx, &t->frames[i], i);
			i++;
			shown++;
		}
		if (limit && shown >= limit && i < t->num_frames) {
			ops->more(ctx, t->num_frames - i);
			break;
		}
	}
}

// Past the escape sequence at @p q (ESC '[', parameters, a final byte in 0x40-0x7e).
static const char *csi_end(const char *q, const char *end)
{
	q++;
	if (q < end && *q == '[')
		q++;
	while (q < end && !(*q >= 0x40 && *q <= 0x7e))
		q++;
	return q < end ? q + 1 : end;
}

size_t ct_text_columns(const char *p, size_t len)
{
	size_t cols = 0;
	const char *end = p + len;
	for (const char *q = p; q < end;) {
		if (*q == '\033') {
			q = csi_end(q, end);
			continue;
		}
		cols += ((unsigned char)*q++ & 0xc0) != 0x80;
	}
	return cols;
}

// One line, without its newline, cut to @p width columns.
static void fit_line(FILE *out, const char *p, const char *end, size_t width)
{
	size_t cols = ct_text_columns(p, (size_t)(end - p));
	if (!width || cols <= width) {
		fwrite(p, 1, (size_t)(end - p), out);
		return;
	}
	// Keep width - 1 columns, then the ellipsis.
	size_t kept = 0;
	bool escaped = false;
	const char *q = p;
	while (q < end) {
		if (*q == '\033') {
			const char *s = q;
			q = csi_end(q, end);
			fwrite(s, 1, (size_t)(q - s), out);
			escaped = true;
			continue;
		}
		if (((unsigned char)*q & 0xc0) != 0x80 && kept == width - 1)
			break;
		kept += ((unsigned char)*q & 0xc0) != 0x80;
		fputc(*q++, out);
	}
	fputs("…", out);
	if (escaped)
		fputs("\033[0m", out);
}

void ct_text_fit(FILE *out, const char *text, size_t len, size_t width)
{
	const char *end = text + len;
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		fit_line(out, p, e, width);
		if (nl)
			fputc('\n', out);
		p = nl ? nl + 1 : end;
	}
}

void ct_text_fold(FILE *out, const char *text, size_t len, size_t width, size_t first_col, size_t indent)
{
	const char *end = text + len;
	size_t col = first_col;
	const char *p = text;
	while (p < end) {
		size_t room = width > col ? width - col : 1;
		size_t rest = ct_text_columns(p, (size_t)(end - p));
		if (rest <= room) {
			fwrite(p, 1, (size_t)(end - p), out);
			return;
		}
		// The last space within the room ends this line.
		const char *cut = NULL;
		size_t cols = 0;
		for (const char *q = p; q < end && cols <= room; q++) {
			if (*q == ' ')
				cut = q;
			cols += ((unsigned char)*q & 0xc0) != 0x80;
		}
		if (!cut || cut == p) {
			// One word wider than the line: cut it there.
			const char *sp = memchr(p, ' ', (size_t)(end - p));
			const char *we = sp ? sp : end;
			fit_line(out, p, we, room);
			if (!sp)
				return;
			cut = sp;
		} else {
			fwrite(p, 1, (size_t)(cut - p), out);
		}
		fprintf(out, "\n%*s", (int)indent, "");
		col = indent;
		p = cut + 1;
	}
}

const struct ct_module *ct_present_main_module(const struct ct_report *r)
{
	const char *exe = r->process.executable_path;
	if (!exe || !*exe)
		return NULL;
	for (size_t i = 0; i < r->num_modules; i++)
		if (r->modules[i].path && !strcmp(r->modules[i].path, exe))
			return &r->modules[i];
	if (exe[0] == '/')
		return NULL;
	// Started by a relative path: AT_EXECFN is "./prog" while the kernel recorded the absolute path.
	while (exe[0] == '.' && exe[1] == '/')
		exe += 2;
	size_t n = strlen(exe);
	const char *slash = strrchr(exe, '/'), *base = slash ? slash + 1 : exe;
	const struct ct_module *by_name = NULL;
	for (size_t i = 0; i < r->num_modules; i++) {
		const char *p = r->modules[i].path;
		size_t pl = p ? strlen(p) : 0;
		if (!p || pl <= n)
			continue;
		if (!strcmp(p + pl - n, exe) && p[pl - n - 1] == '/')
			return &r->modules[i];
		const char *ps = strrchr(p, '/');
		if (!by_name && !strcmp(ps ? ps + 1 : p, base))
			by_name = &r->modules[i];
	}
	return by_name;
}
