// libFuzzer target: the values stage (src/values/) on hostile DWARF (issue 22). A real core and its
// executable built with -g (CT_FUZZ_VALUES_CORE, CT_FUZZ_VALUES_EXE; made by scripts/make-cores,
// values-tail: tail calls, call sites, entry values) are the base: each input overwrites the start
// of one debug section of a copy of the executable, so types, locations, call sites and the
// expressions they hold are whatever the fuzzer wrote, while the core (registers, memory) stays
// real. The first byte picks the section (.debug_info, .debug_abbrev, .debug_loclists or
// .debug_loc, .debug_str, .debug_rnglists), the rest replaces its bytes (up to its size). Every
// input must end fast, in bounded memory (the work budget: elements, expr), with a report.
// Without the environment variables the target does nothing.
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coretriage/coretriage.h"
#include "fuzz_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const section_names[] = { ".debug_info", ".debug_abbrev", ".debug_loclists", ".debug_loc",
					     ".debug_str", ".debug_rnglists" };
#define NUM_SECTIONS (sizeof(section_names) / sizeof(section_names[0]))

// The base, loaded once (fuzz-target state; the library itself keeps none).
static uint8_t *core, *exe;
static size_t core_size, exe_size;
static struct {
	uint64_t offset, size;
} sections[NUM_SECTIONS];
static size_t num_sections;
static char copy_path[64];
static int copy_fd = -1;

// The file ranges of the debug sections of the executable, in section_names order (absent ones left out).
static void find_sections(void)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)exe, exe_size);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		elf_end(elf);
		return;
	}
	for (size_t k = 0; k < NUM_SECTIONS; k++) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			if (name && strcmp(name, section_names[k]) == 0 && sh.sh_type == SHT_PROGBITS &&
			    sh.sh_offset <= exe_size && sh.sh_size <= exe_size - sh.sh_offset && sh.sh_size) {
				sections[num_sections].offset = sh.sh_offset;
				sections[num_sections].size = sh.sh_size;
				num_sections++;
				break;
			}
		}
	}
	elf_end(elf);
}

static void remove_copy(void)
{
	if (copy_fd >= 0)
		unlink(copy_path);
}

static bool load_base(void)
{
	core = ct_fuzz_slurp(getenv("CT_FUZZ_VALUES_CORE"), &core_size);
	exe = ct_fuzz_slurp(getenv("CT_FUZZ_VALUES_EXE"), &exe_size);
	if (!core || !exe)
		return false;
	find_sections();
	const char *dir = getenv("TMPDIR");
	snprintf(copy_path, sizeof(copy_path), "%s/ct-fuzz-values-XXXXXX", dir && strlen(dir) < 32 ? dir : "/tmp");
	copy_fd = mkstemp(copy_path);
	if (copy_fd >= 0)
		atexit(remove_copy);
	if (copy_fd < 0 || pwrite(copy_fd, exe, exe_size, 0) != (ssize_t)exe_size)
		return false;
	return num_sections > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!core && !load_base())
		return 0;
	if (size < 1 || copy_fd < 0)
		return 0;
	size_t k = data[0] % num_sections;
	size_t n = size - 1 < sections[k].size ? size - 1 : (size_t)sections[k].size;
	if (pwrite(copy_fd, data + 1, n, (off_t)sections[k].offset) != (ssize_t)n)
		return 0;
	struct ct_options opts;
	ct_fuzz_options(&opts, copy_path);
	ct_fuzz_analyze_and_write(&opts, core, core_size);
	// The next input starts from the real section again.
	if (pwrite(copy_fd, exe + sections[k].offset, n, (off_t)sections[k].offset) != (ssize_t)n)
		abort();
	return 0;
}
