// Growing owned arrays by doubling (grow.h).
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

bool ct_grow(void **array, size_t *capacity, size_t need, size_t elem, size_t first, size_t max)
{
	if (need <= *capacity)
		return true;
	size_t n = *capacity ? *capacity : (first ? first : 1);
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return false;
		n *= 2;
	}
	if (max && n > max) {
		// The last step may stop at the cap itself when that is still enough.
		if (need > max)
			return false;
		n = max;
	}
	void *p = reallocarray(*array, n, elem);
	if (!p)
		return false;
	*array = p;
	*capacity = n;
	return true;
}
