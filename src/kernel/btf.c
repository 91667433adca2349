// The dumped kernel's own type information: the .BTF section (CONFIG_DEBUG_INFO_BTF) lies in kernel memory
// between __start_BTF and __stop_BTF (kallsyms); libbpf parses it. This is the only file that talks to
// libbpf: the rest of src/kernel/ asks for member offsets and type sizes by name.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"
#include "util/budget.h"
#include "util/keyhash.h"

#if CT_HAVE_LIBBPF
#include <bpf/btf.h>

// vmlinux BTF of a distribution kernel is 4-6 MiB; 64 MiB bounds a corrupt __stop_BTF.
#define MAX_BTF_SIZE (64u << 20)
// Anonymous struct/union nesting followed when looking a member up (task_struct has 2-3 levels).
#define MAX_NESTING 8

struct ct_kbtf {
	struct btf *btf;
	void *raw;
	size_t raw_size;
	struct ct_budget *budget; /**< borrowed from the analysis; may be NULL */
	/**
	 * The lookup each composite type was last searched in (by type id): a type searched once in a
	 * lookup is not searched again. Anonymous members whose type is an outer struct (libbpf accepts
	 * that) otherwise make the search exponential in the nesting (issue 22).
	 */
	uint32_t *searched;
	/** Struct and union ids by name (open addressing, the lowest id of a name and kind first; 0 empty):
	 * libbpf's btf__find_by_name_kind reads every type for each of a report's ~40 lookups. */
	uint32_t *composites;
	size_t composites_mask;
	uint64_t hash_key;
	uint32_t num_types;
	uint32_t lookup;
	/** The first lookup the budget stopped ("task_struct.pid"); "" while none did. */
	char stopped[96];
};

/* A name's first slot in k->composites, keyed (util/keyhash.h) so that a BTF cannot make its names
 * collide and turn the index's build into a quadratic one. */
static size_t first_slot(const struct ct_kbtf *k, const char *name)
{
	return (size_t)ct_hash_bytes(name, strlen(name), k->hash_key) & k->composites_mask;
}

/* Fills k->composites in one pass over the types (room for every type: no growth); without memory
 * for it, lookups go through libbpf's linear search. */
static void index_composites(struct ct_kbtf *k)
{
	size_t slots = 64;
	while (slots <= k->num_types)
		slots *= 2;
	k->composites = calloc(slots, sizeof(*k->composites));
	if (!k->composites)
		return;
	k->composites_mask = slots - 1;
	k->hash_key = ct_hash_key(k);
	for (uint32_t id = 1; id < k->num_types; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		const char *name = t && btf_is_composite(t) && t->name_off ? btf__name_by_offset(k->btf, t->name_off) : NULL;
		if (!name || !*name)
			continue;
		size_t at = first_slot(k, name);
		for (;; at = (at + 1) & k->composites_mask) {
			uint32_t other = k->composites[at];
			if (!other) {
				k->composites[at] = id;
				break;
			}
			// An earlier type of the same name and kind stays the answer, as in libbpf's search.
			const struct btf_type *o = btf__type_by_id(k->btf, other);
			if (btf_kind(o) == btf_kind(t) && strcmp(btf__name_by_offset(k->btf, o->name_off), name) == 0)
				break;
		}
	}
}

/* Parses @p raw (owned: kept by the handle, freed on failure) into *ret. */
static struct ct_error *parse(void *raw, size_t size, struct ct_budget *budget, struct ct_kbtf **ret)
{
	struct btf *btf = btf__new(raw, (uint32_t)size);
	if (!btf) {
		int e = errno;
		free(raw);
		return ct_error_create(CT_ERROR_CORRUPT, ".BTF (%zu bytes) does not parse: %s", size, strerror(e));
	}
	struct ct_kbtf *k = calloc(1, sizeof(*k));
	uint32_t num_types = btf__type_cnt(btf);
	uint32_t *searched = calloc(num_types ? num_types : 1, sizeof(*searched));
	if (!k || !searched) {
		free(k);
		free(searched);
		btf__free(btf);
		free(raw);
		return ct_error_create(CT_ERROR_NO_MEMORY, "BTF handle");
	}
	k->btf = btf;
	k->raw = raw;
	k->raw_size = size;
	k->budget = budget;
	k->searched = searched;
	k->num_types = num_types;
	index_composites(k);
	*ret = k;
	return NULL;
}

struct ct_error *ct_kbtf_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_budget *budget,
			      struct ct_kbtf **ret)
{
	*ret = NULL;
	uint64_t start, stop;
	if (!ct_kallsyms_find(ks, "__start_BTF", &start) || !ct_kallsyms_find(ks, "__stop_BTF", &stop))
		return ct_error_create(CT_ERROR_NOT_FOUND, "no __start_BTF/__stop_BTF in kallsyms (kernel built without "
				       "CONFIG_DEBUG_INFO_BTF, or without CONFIG_KALLSYMS_ALL as Debian's arm64 one?)");
	if (stop <= start || stop - start > MAX_BTF_SIZE)
		return ct_error_create(CT_ERROR_CORRUPT, "implausible .BTF bounds 0x%llx..0x%llx", (unsigned long long)start,
				       (unsigned long long)stop);
	size_t size = (size_t)(stop - start);
	void *raw = malloc(size);
	if (!raw)
		return ct_error_create(CT_ERROR_NO_MEMORY, "%zu bytes for .BTF", size);
	struct ct_error *err = ct_vmcore_read(vm, start, raw, size);
	if (err) {
		free(raw);
		return ct_error_wrap(err, ".BTF at 0x%llx", (unsigned long long)start);
	}
	return parse(raw, size, budget, ret);
}

struct ct_error *ct_kbtf_from_bytes(const void *data, size_t size, struct ct_budget *budget, struct ct_kbtf **ret)
{
	*ret = NULL;
	if (size > MAX_BTF_SIZE)
		return ct_error_create(CT_ERROR_CORRUPT, "%zu bytes of BTF is implausible", size);
	void *raw = malloc(size ? size : 1);
	if (!raw)
		return ct_error_create(CT_ERROR_NO_MEMORY, "%zu bytes for BTF", size);
	memcpy(raw, data, size);
	return parse(raw, size, budget, ret);
}

const void *ct_kbtf_raw(const struct ct_kbtf *k, size_t *size)
{
	*size = k ? k->raw_size : 0;
	return k ? k->raw : NULL;
}

void ct_kbtf_free(struct ct_kbtf *k)
{
	if (!k)
		return;
	btf__free(k->btf);
	free(k->raw);
	free(k->searched);
	free(k->composites);
	free(k);
}

static int32_t find_kind(const struct ct_kbtf *k, const char *name, int kind)
{
	if (!k->composites)
		return btf__find_by_name_kind(k->btf, name, kind);
	for (size_t at = first_slot(k, name), probes = 0; k->composites[at] && probes <= k->composites_mask;
	     at = (at + 1) & k->composites_mask, probes++) {
		const struct btf_type *t = btf__type_by_id(k->btf, k->composites[at]);
		if ((int)btf_kind(t) == kind && strcmp(btf__name_by_offset(k->btf, t->name_off), name) == 0)
			return (int32_t)k->composites[at];
	}
	return -1;
}

static int32_t find_composite(const struct ct_kbtf *k, const char *name)
{
	int32_t id = find_kind(k, name, BTF_KIND_STRUCT);
	return id > 0 ? id : find_kind(k, name, BTF_KIND_UNION);
}

/* Follows typedefs and qualifiers to the real type. */
static const struct btf_type *resolve(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	for (int i = 0; t && i < 16 && (btf_is_typedef(t) || btf_is_mod(t)); i++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/** One member lookup: the name looked for, and whether the budget stopped it. */
struct search {
	struct ct_kbtf *k;
	const char *name;
	size_t name_len;
	bool out_of_budget;
};

/* Member s->name of composite @p id, looking into anonymous members; offset in bits. Each member
 * looked at costs one node of the budget; a composite already searched in this lookup is skipped (it
 * did not have the member then and does not now). */
static bool find_member(struct search *s, uint32_t id, int depth, uint64_t *bit_off, uint32_t *member_type)
{
	const struct btf *btf = s->k->btf;
	const struct btf_type *t = resolve(btf, &id);
	if (!t || !btf_is_composite(t) || depth > MAX_NESTING || id >= s->k->num_types)
		return false;
	if (s->k->searched[id] == s->k->lookup)
		return false;
	s->k->searched[id] = s->k->lookup;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		if (!ct_budget_take(s->k->budget, CT_BUDGET_NODES, 1)) {
			s->out_of_budget = true;
			return false;
		}
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint64_t off = btf_member_bit_offset(t, i);
		if (mn && *mn) {
			if (strlen(mn) == s->name_len && memcmp(mn, s->name, s->name_len) == 0) {
				*bit_off = off;
				*member_type = m->type;
				return true;
			}
			continue;
		}
		uint64_t inner;
		if (find_member(s, m->type, depth + 1, &inner, member_type)) {
			*bit_off = off + inner;
			return true;
		}
		if (s->out_of_budget)
			return false;
	}
	return false;
}

bool ct_kbtf_member(struct ct_kbtf *k, const char *type, const char *path, uint64_t *offset, uint64_t *size)
{
	if (!k)
		return false;
	int32_t id = find_composite(k, type);
	if (id <= 0)
		return false;
	uint64_t total = 0;
	uint32_t cur = (uint32_t)id;
	for (const char *p = path; *p;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		uint64_t bits;
		uint32_t mt;
		// A new lookup stamp for each path component; on wrap-around, forget every stamp.
		if (++k->lookup == 0) {
			memset(k->searched, 0, (size_t)k->num_types * sizeof(*k->searched));
			k->lookup = 1;
		}
		struct search s = { .k = k, .name = p, .name_len = n };
		bool found = find_member(&s, cur, 0, &bits, &mt);
		if (s.out_of_budget && !k->stopped[0])
			snprintf(k->stopped, sizeof(k->stopped), "%s.%s", type, path);
		if (!found || bits % 8 != 0)
			return false;
		total += bits / 8;
		cur = mt;
		p = dot ? dot + 1 : p + n;
	}
	if (size) {
		int64_t s = btf__resolve_size(k->btf, cur);
		if (s < 0)
			return false;
		*size = (uint64_t)s;
	}
	*offset = total;
	return true;
}

const char *ct_kbtf_budget_stop(const struct ct_kbtf *k, uint32_t *num_types)
{
	if (!k || !k->stopped[0])
		return NULL;
	*num_types = k->num_types;
	return k->stopped;
}

bool ct_kbtf_size(struct ct_kbtf *k, const char *type, uint64_t *size)
{
	if (!k)
		return false;
	int32_t id = find_composite(k, type);
	if (id <= 0)
		return false;
	int64_t s = btf__resolve_size(k->btf, (uint32_t)id);
	if (s <= 0)
		return false;
	*size = (uint64_t)s;
	return true;
}

bool ct_kbtf_enum_value(struct ct_kbtf *k, const char *name, int64_t *ret)
{
	if (!k)
		return false;
	uint32_t n = btf__type_cnt(k->btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		if (!t || !btf_is_enum(t))
			continue;
		const struct btf_enum *e = btf_enum(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, e++) {
			const char *en = btf__name_by_offset(k->btf, e->name_off);
			if (en && strcmp(en, name) == 0) {
				*ret = e->val;
				return true;
			}
		}
	}
	return false;
}
#else
// Built without libbpf: every dump is a dump without BTF (the report says so with a diagnostic).
struct ct_error *ct_kbtf_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_budget *budget,
			      struct ct_kbtf **ret)
{
	(void)vm;
	(void)ks;
	(void)budget;
	*ret = NULL;
	return ct_error_create(CT_ERROR_UNSUPPORTED, "built without libbpf: the dump's BTF is not read");
}

void ct_kbtf_free(struct ct_kbtf *btf)
{
	(void)btf;
}

const void *ct_kbtf_raw(const struct ct_kbtf *btf, size_t *size)
{
	(void)btf;
	*size = 0;
	return NULL;
}

bool ct_kbtf_member(struct ct_kbtf *btf, const char *type, const char *path, uint64_t *offset, uint64_t *size)
{
	(void)btf, (void)type, (void)path, (void)offset, (void)size;
	return false;
}

bool ct_kbtf_size(struct ct_kbtf *btf, const char *type, uint64_t *size)
{
	(void)btf, (void)type, (void)size;
	return false;
}

bool ct_kbtf_enum_value(struct ct_kbtf *btf, const char *name, int64_t *ret)
{
	(void)btf, (void)name, (void)ret;
	return false;
}

const char *ct_kbtf_budget_stop(const struct ct_kbtf *btf, uint32_t *num_types)
{
	(void)btf, (void)num_types;
	return NULL;
}

struct ct_error *ct_kbtf_from_bytes(const void *data, size_t size, struct ct_budget *budget, struct ct_kbtf **ret)
{
	(void)data, (void)size, (void)budget;
	*ret = NULL;
	return ct_error_create(CT_ERROR_UNSUPPORTED, "built without libbpf: BTF is not read");
}
#endif
