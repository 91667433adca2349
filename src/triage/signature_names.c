// The bucket key from a list of function names, for dumps whose frames are not process frames (kernel
// dumps: the culprit and its callers on the panic CPU). Same recipe as signature.c (docs/signature.md):
// class[/subclass], at most 3 normalized functions without repeats, FNV-1a 64.
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"

#define SIGNATURE_FRAMES 3

void ct_signature_from_functions(struct ct_signature *sig, struct ct_strpool *strings, const char *class_id,
				 const char *subclass, const char *const *functions, size_t n)
{
	char text[1024];
	size_t used = (size_t)snprintf(text, sizeof(text), "%s%s%s", class_id ? class_id : "unknown", subclass ? "/" : "",
				       subclass ? subclass : "");
	const char *taken[SIGNATURE_FRAMES];
	size_t ntaken = 0;
	for (size_t i = 0; i < n && ntaken < SIGNATURE_FRAMES && used < sizeof(text); i++) {
		const char *fn = functions[i] ? ct_normalize_function(strings, functions[i]) : NULL;
		if (!fn)
			continue;
		bool dup = false;
		for (size_t j = 0; j < ntaken; j++)
			dup = dup || strcmp(taken[j], fn) == 0;
		if (dup)
			continue;
		taken[ntaken++] = fn;
		used += (size_t)snprintf(text + used, sizeof(text) - used, "|%s", fn);
	}
	ct_signature_set_text(sig, strings, text);
}
