// Modules by path and by start address (module_index.h): two open-addressing tables over the
// module numbers.
#include "modules/module_index.h"

#include <stdlib.h>
#include <string.h>

#include "util/keyhash.h"

struct ct_module_index {
	uint64_t key;
	size_t capacity, mask;
	const char **paths; /* by module number; borrowed strings */
	uint64_t *starts;
	size_t *by_path; /* slot -> module number + 1 (the last with that path), 0 empty */
	size_t *by_start; /* slot -> module number + 1, 0 empty */
};

struct ct_module_index *ct_module_index_create(size_t capacity)
{
	struct ct_module_index *idx = calloc(1, sizeof(*idx));
	if (!idx)
		return NULL;
	size_t slots = 16;
	while (slots < 2 * capacity)
		slots *= 2;
	idx->key = ct_hash_key(idx);
	idx->capacity = capacity;
	idx->mask = slots - 1;
	idx->paths = calloc(capacity ? capacity : 1, sizeof(*idx->paths));
	idx->starts = calloc(capacity ? capacity : 1, sizeof(*idx->starts));
	idx->by_path = calloc(slots, sizeof(*idx->by_path));
	idx->by_start = calloc(slots, sizeof(*idx->by_start));
	if (!idx->paths || !idx->starts || !idx->by_path || !idx->by_start) {
		ct_module_index_destroy(idx);
		return NULL;
	}
	return idx;
}

void ct_module_index_destroy(struct ct_module_index *idx)
{
	if (!idx)
		return;
	free(idx->paths);
	free(idx->starts);
	free(idx->by_path);
	free(idx->by_start);
	free(idx);
}

// The slot of @p path: the one holding it, or the empty one where it goes.
static size_t path_slot(const struct ct_module_index *idx, const char *path)
{
	size_t s = (size_t)ct_hash_bytes(path, strlen(path), idx->key) & idx->mask;
	while (idx->by_path[s] && strcmp(idx->paths[idx->by_path[s] - 1], path) != 0)
		s = (s + 1) & idx->mask;
	return s;
}

static size_t start_slot(const struct ct_module_index *idx, uint64_t start)
{
	size_t s = (size_t)ct_hash_mix(start ^ idx->key) & idx->mask;
	while (idx->by_start[s] && idx->starts[idx->by_start[s] - 1] != start)
		s = (s + 1) & idx->mask;
	return s;
}

void ct_module_index_add(struct ct_module_index *idx, size_t module, const char *path, uint64_t start)
{
	if (module >= idx->capacity)
		return;
	idx->paths[module] = path;
	idx->starts[module] = start;
	size_t s = path_slot(idx, path);
	idx->by_path[s] = module + 1;
	s = start_slot(idx, start);
	if (!idx->by_start[s])
		idx->by_start[s] = module + 1;
}

size_t ct_module_index_find_path(const struct ct_module_index *idx, const char *path)
{
	size_t s = path_slot(idx, path);
	return idx->by_path[s] ? idx->by_path[s] - 1 : SIZE_MAX;
}

bool ct_module_index_has_start(const struct ct_module_index *idx, uint64_t start)
{
	return idx->by_start[start_slot(idx, start)] != 0;
}
