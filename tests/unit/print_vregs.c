// Prints the float/vector registers coretriage reads from a core's notes (dump/vregs.c), one line
// a register: "<tid> <dwarf number> <hex value, most significant byte first>", for
// tests/corpus/check_vregs.py to compare with eu-readelf -n.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/arch.h"
#include "dump/elfcore.h"
#include "dump/vregs.h"
#include "coretriage/error.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: print_vregs CORE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		perror(argv[1]);
		return 2;
	}
	void *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	struct ct_core *core = NULL;
	struct ct_error *err = ct_core_open_memory(data, (size_t)st.st_size, 100000, &core);
	if (err) {
		fprintf(stderr, "print_vregs: %s\n", ct_error_message(err));
		ct_error_destroy(err);
		return 1;
	}
	const struct ct_arch_info *arch = core->arch;
	for (size_t t = 0; arch && t < core->num_threads; t++) {
		for (size_t v = 0; v < arch->num_vregs; v++) {
			for (unsigned i = 0; i < arch->vregs[v].count; i++) {
				unsigned regno = (unsigned)arch->vregs[v].dwarf_first + i;
				uint8_t out[CT_VREG_MAX_BYTES];
				size_t len = 0;
				if (!ct_core_vreg(core, &core->threads[t], regno, out, &len))
					continue;
				printf("%d %u ", core->threads[t].tid, regno);
				for (size_t k = 0; k < len; k++)
					printf("%02x", out[core->big_endian ? k : len - 1 - k]);
				printf("\n");
			}
		}
	}
	ct_core_destroy(core);
	munmap(data, (size_t)st.st_size);
	close(fd);
	return 0;
}
