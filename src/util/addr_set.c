// The visited set of list walks (kernel task, thread and module lists).
#include "util/addr_set.h"

#include <stdlib.h>

bool ct_addr_set_init(struct ct_addr_set *set, size_t slots)
{
	set->slots = calloc(slots, sizeof(*set->slots));
	set->mask = slots - 1;
	set->count = 0;
	return set->slots != NULL;
}

void ct_addr_set_deinit(struct ct_addr_set *set)
{
	free(set->slots);
	set->slots = NULL;
	set->count = 0;
}

int ct_addr_set_add(struct ct_addr_set *set, uint64_t a)
{
	size_t i = (size_t)((a >> 3) * 0x9e3779b97f4a7c15ull >> 40) & set->mask;
	while (set->slots[i]) {
		if (set->slots[i] == a)
			return 0;
		i = (i + 1) & set->mask;
	}
	if (set->count >= (set->mask + 1) / 2)
		return -1;
	set->slots[i] = a;
	set->count++;
	return 1;
}
