// Names coretriage gives the PLT of every module of a real core: each 4th address of each PLT
// section (.plt, .plt.sec, .plt.got, …) through ct_symbolize, one line per address:
//   0xADDR OFFSET NAME      or      0xADDR 0 ??
// tests/oracle/check_plt_names.py asks gdb's `info symbol` for the same addresses (the oracle).
// usage: ct_pltnames EXE CORE [SYSROOT] (the libraries of a cross core). Exit 0, 2 on a setup error.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "coretriage/coretriage.h"
#include "dump/elfcore.h"
#include "modules/modules.h"
#include "modules/symbolize.h"

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ct_pltnames EXE CORE [SYSROOT]\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0) {
		perror(argv[2]);
		return 2;
	}
	long n = ftell(f);
	uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
	if (!data || fseek(f, 0, SEEK_SET) != 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", argv[2]);
		return 2;
	}
	fclose(f);
	struct ct_core *core = NULL;
	struct ct_error *err = ct_core_open_memory(data, (size_t)n, 16, &core);
	struct ct_options opts;
	ct_options_init(&opts);
	opts.executable = argv[1];
	opts.debuginfod = false;
	opts.sysroot = argc == 4 ? argv[3] : NULL;
	struct ct_report report;
	struct ct_module_set mods;
	if (err || !ct_report_init(&report) ||
	    (err = ct_modules_load(&opts, core, ct_report_sink(&report), NULL, &mods))) {
		fprintf(stderr, "setup: %s\n", err ? ct_error_message(err) : "report");
		return 2;
	}
	for (size_t i = 0; i < mods.num_modules; i++) {
		struct ct_module_state *m = &mods.modules[i];
		GElf_Addr bias = 0;
		Elf *elf = m->dwfl_module ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
		struct ct_plt_layout l;
		ct_plt_read_layout(elf, core->arch, &l);
		for (size_t k = 0; elf && k < l.num_sections; k++) {
			for (uint64_t a = l.sections[k].lo; a < l.sections[k].hi; a += 4) {
				const struct ct_sym *sym;
				size_t c = ct_symbolize(&mods, a + bias, &sym);
				const char *name = c && sym[0].function ? sym[0].function : "??";
				printf("0x%" PRIx64 " %" PRIu64 " %s\n", a + bias, c && sym[0].function ? sym[0].offset : 0, name);
			}
		}
	}
	ct_modules_unload(&mods);
	ct_core_destroy(core);
	ct_report_deinit(&report);
	free(data);
	return 0;
}
