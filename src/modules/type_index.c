// Complete aggregate types by qualified name (type_index.h).
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "modules/die_skip.h"
#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"
#include "modules/type_index.h"
#include "util/bisect.h"
#include "util/grow.h"
#include "util/keyhash.h"

/** Nesting of namespaces and types followed while building. */
#define MAX_DEPTH 32

struct entry {
	uint64_t hash; // of the qualified name
	Dwarf_Off offset; // the defining DIE, global offset
	int tag;
};

struct ct_type_index {
	struct entry *entries;
	size_t count, cap;
	uint64_t key;
};

struct builder {
	struct ct_type_index *ix;
	const struct ct_die_skip *skip;
	size_t visited;
	char path[CT_DWARF_NAME_MAX];
};

static bool is_type_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static void add(struct builder *b, int tag, Dwarf_Off off, size_t len)
{
	struct ct_type_index *ix = b->ix;
	if (ix->count == CT_TYPE_INDEX_MAX_TYPES)
		return;
	if (!CT_GROW(ix->entries, ix->cap, ix->count + 1, 1024, 0))
		return;
	ix->entries[ix->count++] = (struct entry){ .hash = ct_hash_bytes(b->path, len, ix->key), .offset = off, .tag = tag };
}

static bool next_sibling(struct builder *b, Dwarf_Die *die)
{
	Dwarf_Die next;
	int r = b->skip ? ct_die_skip_sibling(b->skip, die, &next) : -1;
	if (r < 0)
		r = dwarf_siblingof(die, &next);
	if (r != 0)
		return false;
	*die = next;
	return true;
}

// The children of scope @p parent, whose qualified prefix is path[0..len).
static void walk(struct builder *b, Dwarf_Die *parent, size_t len, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		if (++b->visited > CT_TYPE_INDEX_MAX_DIES)
			return;
		int tag = dwarf_tag(&child);
		if (!ct_dwarf_is_scope_tag(tag))
			continue;
		// The same path ct_dwarf_qualified_name builds, so that lookups find what is added here.
		const char *name = ct_dwarf_diename(&child);
		const char *part = ct_dwarf_scope_part(&child, tag);
		size_t n = len;
		if (part) {
			size_t k = strlen(part);
			if (len + k + 2 >= sizeof(b->path))
				continue;
			memcpy(b->path + len, part, k);
			n = len + k;
		}
		if (name && is_type_tag(tag) && !dwarf_hasattr(&child, DW_AT_declaration))
			add(b, tag, dwarf_dieoffset(&child), n);
		if (tag == DW_TAG_enumeration_type)
			continue;
		if (n > len) {
			memcpy(b->path + n, "::", 2);
			n += 2;
		}
		walk(b, &child, n, depth + 1);
	} while (next_sibling(b, &child));
}

static int by_hash(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

struct ct_type_index *ct_type_index_build(Dwarf *dbg)
{
	struct ct_type_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	ix->key = ct_hash_key(ix);
	struct builder *b = malloc(sizeof(*b));
	if (!b) {
		free(ix);
		return NULL;
	}
	b->ix = ix;
	b->visited = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (b->visited <= CT_TYPE_INDEX_MAX_DIES &&
	       dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dbg, off + hsize, &cu)) {
			struct ct_die_skip *skip = ct_die_skip_create(&cu);
			b->skip = skip;
			walk(b, &cu, 0, 0);
			ct_die_skip_destroy(skip);
		}
		off = next;
	}
	free(b);
	qsort(ix->entries, ix->count, sizeof(*ix->entries), by_hash);
	return ix;
}

void ct_type_index_free(struct ct_type_index *ix)
{
	if (!ix)
		return;
	free(ix->entries);
	free(ix);
}

struct hash_key {
	const struct ct_type_index *ix;
	uint64_t h;
};

static bool hash_below(const void *ctx, size_t i)
{
	const struct hash_key *k = ctx;
	return k->ix->entries[i].hash < k->h;
}

bool ct_type_index_find(const struct ct_type_index *ix, Dwarf *dbg, Dwarf_Die *decl, Dwarf_Die *ret)
{
	char want[CT_DWARF_NAME_MAX], have[CT_DWARF_NAME_MAX];
	if (!ix || !ix->count || !ct_dwarf_qualified_name(decl, want, sizeof(want)))
		return false;
	int tag = dwarf_tag(decl);
	uint64_t h = ct_hash_bytes(want, strlen(want), ix->key);
	size_t lo = ct_bisect(ix->count, hash_below, &(struct hash_key){ ix, h });
	// Equal hashes are next to each other; the name decides (a struct and a class are one type).
	for (size_t i = lo; i < ix->count && ix->entries[i].hash == h && i < lo + 64; i++) {
		const struct entry *e = &ix->entries[i];
		bool tags_agree = e->tag == tag || (e->tag != DW_TAG_union_type && e->tag != DW_TAG_enumeration_type &&
						    tag != DW_TAG_union_type && tag != DW_TAG_enumeration_type);
		if (tags_agree && dwarf_offdie(dbg, e->offset, ret) &&
		    ct_dwarf_qualified_name(ret, have, sizeof(have)) && strcmp(want, have) == 0)
			return true;
	}
	return false;
}
