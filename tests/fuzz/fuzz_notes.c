// libFuzzer target: the note parser. The input is the body of one PT_NOTE segment, wrapped in a
// minimal ELF core whose class, byte order and machine come from the first input byte, so every
// note layout (PRSTATUS of each architecture, PRPSINFO, SIGINFO, AUXV, FILE) is reached quickly.
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump/elfcore.h"
#include "util/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void store(uint8_t *p, uint64_t v, unsigned width, bool be)
{
	for (unsigned i = 0; i < width; i++)
		p[be ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	static const uint16_t machines[] = { EM_X86_64, EM_386, EM_AARCH64, EM_RISCV, EM_ARM, EM_S390, EM_PPC64, 0 };
	uint8_t sel = data[0];
	data++, size--;
	bool is64 = !(sel & 1), be = sel & 2;
	uint16_t machine = machines[(sel >> 2) & 7];
	size_t ehsize = is64 ? 64 : 52, phent = is64 ? 56 : 32, hdr = ehsize + 2 * phent;
	uint8_t *img = calloc(1, hdr + size);
	if (!img)
		return 0;
	memcpy(img, ELFMAG, SELFMAG);
	img[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	img[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	img[EI_VERSION] = EV_CURRENT;
	store(img + 16, ET_CORE, 2, be);
	store(img + 18, machine, 2, be);
	store(img + 20, EV_CURRENT, 4, be);
	store(img + (is64 ? 32 : 28), ehsize, is64 ? 8 : 4, be); // e_phoff
	store(img + (is64 ? 52 : 40), ehsize, 2, be);		 // e_ehsize
	store(img + (is64 ? 54 : 42), phent, 2, be);
	store(img + (is64 ? 56 : 44), 2, 2, be);
	// PT_NOTE over the input, then a PT_LOAD mapping the same bytes at 0x10000 so that register
	// values and NT_FILE starts that point into the notes read something.
	for (int i = 0; i < 2; i++) {
		uint8_t *p = img + ehsize + i * phent;
		store(p, i == 0 ? PT_NOTE : PT_LOAD, 4, be);
		if (is64) {
			store(p + 4, PF_R | PF_W, 4, be);
			store(p + 8, hdr, 8, be);
			store(p + 16, i ? 0x10000 : 0, 8, be);
			store(p + 32, size, 8, be);
			store(p + 40, i ? size : 0, 8, be);
		} else {
			store(p + 4, hdr, 4, be);
			store(p + 8, i ? 0x10000 : 0, 4, be);
			store(p + 16, size, 4, be);
			store(p + 20, i ? size : 0, 4, be);
			store(p + 24, PF_R | PF_W, 4, be);
		}
	}
	memcpy(img + hdr, data, size);
	struct ct_core *core;
	struct ct_error *err = ct_core_open_memory(img, hdr + size, 16, &core);
	if (!err) {
		uint64_t v;
		char *s;
		if (ct_core_auxv(core, AT_EXECFN, &v)) {
			err = ct_core_read_string(core, v, 4096, &s);
			if (!err)
				free(s);
			ct_error_destroy(err);
			err = NULL;
		}
		for (size_t i = 0; i < core->num_threads; i++)
			ct_core_read_word(core, core->threads[i].sp, &v);
		ct_core_destroy(core);
	}
	ct_error_destroy(err);
	free(img);
	return 0;
}
