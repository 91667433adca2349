// libFuzzer target: the faulting-instruction analyzer (src/triage/insn_*.c): capstone decoding,
// operand and effective-address computation from registers, memory reads through the callback, and
// the backwards search for a frame-slot load. Input layout:
//   [0] selector (bit 0 and bits 5..6: the architecture, see arches[]; bit 1: no memory; bits 2..:
//       register validity seed)
//   [1..8] pc, [9..9+8*17) the first 17 DWARF registers, then code bytes (the first 16 "before" pc).
// The memory callback serves the code bytes as if mapped at pc - 16, and fails elsewhere.
#include <stdint.h>
#include <string.h>

#include "triage/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *bytes;
	size_t len;
	uint64_t base;
};

static bool read_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = arg;
	if (addr < m->base || addr - m->base > m->len || len > m->len - (addr - m->base))
		return false;
	memcpy(buf, m->bytes + (addr - m->base), len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { NREGS = 17, HDR = 1 + 8 + 8 * NREGS, BEFORE = 16 };
	if (size < HDR)
		return 0;
	uint8_t sel = data[0];
	uint64_t pc = 0, regs[72] = { 0 };
	bool valid[72] = { false };
	memcpy(&pc, data + 1, 8);
	for (int i = 0; i < NREGS; i++) {
		memcpy(&regs[i], data + 9 + 8 * i, 8);
		valid[i] = ((sel >> 2) + i) % 3 != 0;
	}
	const uint8_t *code = data + HDR;
	size_t len = size - HDR;
	const uint8_t *before = NULL;
	size_t before_len = 0;
	if (len > BEFORE) {
		before = code;
		before_len = BEFORE;
		code += BEFORE;
		len -= BEFORE;
	}
	struct mem m = { data + HDR, size - HDR, pc - before_len };
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = 72, .pc = pc,
				   .read = (sel & 2) ? NULL : read_cb, .arg = &m };
	// x86 first (bit 0 alone keeps the old corpus meaning), then the generic capstone decoder's.
	static const struct ct_arch_info *const arches[8] = { &ct_arch_x86_64, &ct_arch_i386,	  &ct_arch_arm,
							      &ct_arch_ppc64le, &ct_arch_s390x,	  &ct_arch_mips,
							      &ct_arch_sparc64, &ct_arch_aarch64 };
	const struct ct_arch_info *arch = arches[(sel & 1) | ((sel >> 4) & 6)];
	struct ct_insn_facts facts;
	ct_insn_decode(arch, code, len < 16 ? len : 16, before, before_len, &ctx, &facts);
	int base;
	int64_t disp;
	ct_insn_find_slot_load(arch, data + HDR, size - HDR, pc - before_len, pc, (int)(sel >> 3) % 17, &base, &disp);
	return 0;
}
