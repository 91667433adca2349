// Memory for what is copied while the process is stopped (internal.h, struct ct_live_pool): mapped
// and faulted in before the stop, because a page fault of coretriage's own costs the stop more than
// the copy into the page (1,000 threads' registers and stacks: ~3,000 faults, half the stop on a
// loaded machine). After the resume what was copied into it moves to buffers of its own, which the
// snapshot frees one by one.
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "live/internal.h"

void ct_live_pool_init(struct ct_live_pool *p, size_t size)
{
	memset(p, 0, sizeof(*p));
	size = (size + 4095) & ~(size_t)4095;
	void *base = size ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
			  : MAP_FAILED;
	if (base == MAP_FAILED)
		return; // every take is a malloc then: slower, not wrong
	p->base = base;
	p->size = size;
}

static bool in_pool(const struct ct_live_pool *p, const void *at)
{
	return p->base && (const uint8_t *)at >= p->base && (const uint8_t *)at < p->base + p->size;
}

void *ct_live_pool_take(struct ct_live_pool *p, size_t len)
{
	size_t need = (len + 15) & ~(size_t)15;
	if (p->base && need >= len && need <= p->size - p->used) {
		void *at = p->base + p->used;
		p->used += need;
		return at;
	}
	return malloc(len ? len : 1);
}

void ct_live_pool_give(struct ct_live_pool *p, void *at)
{
	if (!in_pool(p, at))
		free(at);
}

// *@p at, when in the pool, moved into a buffer of its own; false when that is out of memory (then
// *@p at is NULL).
static bool settle(const struct ct_live_pool *p, uint8_t **at, size_t len)
{
	if (!*at || !in_pool(p, *at))
		return true;
	uint8_t *own = malloc(len ? len : 1);
	if (own)
		memcpy(own, *at, len);
	*at = own;
	return own != NULL;
}

bool ct_live_pool_release(struct ct_live_pool *p, struct ct_live_snapshot *snap)
{
	bool ok = true;
	for (size_t i = 0; i < snap->num_threads; i++) {
		struct ct_live_thread *t = &snap->threads[i];
		for (size_t k = 0; k < t->num_regsets; k++) {
			if (!settle(p, &t->regsets[k].bytes, t->regsets[k].size)) {
				// Without its general registers a thread cannot be kept: the capture fails.
				for (size_t j = k + 1; j < t->num_regsets; j++)
					if (in_pool(p, t->regsets[j].bytes))
						t->regsets[j].bytes = NULL;
				t->num_regsets = k;
				ok = false;
				break;
			}
		}
	}
	for (size_t i = 0; i < snap->num_mappings; i++) {
		struct ct_live_mapping *m = &snap->mappings[i];
		if (!settle(p, &m->bytes, m->copied)) {
			m->copied = m->stack_rest = 0;
			ok = false;
		}
	}
	if (p->base)
		munmap(p->base, p->size);
	memset(p, 0, sizeof(*p));
	return ok;
}
