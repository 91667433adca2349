// libFuzzer target: a kernel's kept index file (src/kernel/kindex.h) as ct_kindex_view() checks it
// before ct_kindex_load() compares it with a dump: a file in the user's cache directory is input too
// (a torn write, another version, a hand-edited file). Every view it accepts is then read as the
// kernel stages read kallsyms: lookups by name through the hash, by address, the section bounds.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// struct header (kindex.c): the build-id field follows magic (8), byte order (4), header size (4).
#define BUILD_ID_AT 16
#define BUILD_ID_LEN 80

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// The build-id asked for is the one the file names, so inputs get past that compare.
	char id[BUILD_ID_LEN + 1] = "";
	if (size >= BUILD_ID_AT + BUILD_ID_LEN) {
		memcpy(id, data + BUILD_ID_AT, BUILD_ID_LEN);
		id[BUILD_ID_LEN] = '\0';
	}
	// The index is mapped in real use: an aligned copy keeps the arrays as aligned as there.
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct ct_kallsyms ks;
	const void *btf;
	size_t btf_size;
	if (ct_kindex_view(copy, size, id, &ks, &btf, &btf_size)) {
		static const char *const names[] = { "_stext", "_etext", "__start_BTF", "init_task", "" };
		uint64_t a;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			(void)ct_kallsyms_find(&ks, names[i], &a);
		ct_kallsyms_find_sections(&ks);
		struct ct_ksym s;
		for (size_t i = 0; i < ks.num_syms && i < 64; i++) {
			if (ct_kallsyms_lookup(&ks, ks.addrs[i], &s) && strlen(s.name) > ks.names_size)
				abort();
			(void)ct_kallsyms_find(&ks, ks.names + ks.name_offs[i], &a);
		}
		// The BTF bytes the view hands out lie inside the file (ASan sees a read past it).
		if (btf_size) {
			volatile uint8_t last = ((const uint8_t *)btf)[btf_size - 1];
			(void)last;
		}
	}
	free(copy);
	return 0;
}
