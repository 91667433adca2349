// x86 PLT stubs decoded by hand (see x86_plt.h). Encodings of BFD's elfxx-x86 PLT templates and
// lld's: .plt (lazy): jmp [slot]; push n; jmp .plt0. .plt.sec (IBT): endbr64; bnd jmp [slot].
// .plt.got: jmp [slot]; nop (IBT: endbr64 first). i386 PIC: jmp [ebx + X], ebx = the GOT pointer.
#include "arch/x86_plt.h"
#include "util/bytes.h"

// Offset of the jmp's opcode byte (0xff) past an endbr64/endbr32 and up to two prefixes that do
// not change the operand (f2 bnd, 3e notrack); -1 when the bytes end first.
static long jmp_at(const uint8_t *code, size_t len)
{
	size_t at = 0;
	if (len >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb))
		at = 4;
	for (int i = 0; i < 2 && at < len && (code[at] == 0xf2 || code[at] == 0x3e); i++)
		at++;
	return at + 2 <= len && code[at] == 0xff ? (long)at : -1;
}

bool ct_x86_64_plt_slot(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot)
{
	(void)got_base;
	long at = code ? jmp_at(code, len) : -1;
	// ff /4 with modrm 0x25: jmp [rip + disp32], relative to the end of the instruction.
	if (at < 0 || code[at + 1] != 0x25 || (size_t)at + 6 > len)
		return false;
	*slot = stub + (uint64_t)at + 6 + (uint64_t)(int64_t)(int32_t)ct_load32(code + at + 2, false);
	return true;
}

bool ct_i386_plt_slot(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot)
{
	(void)stub;
	long at = code ? jmp_at(code, len) : -1;
	if (at < 0)
		return false;
	uint8_t modrm = code[at + 1];
	if (modrm == 0x25 && (size_t)at + 6 <= len) { // jmp [disp32]
		*slot = (uint64_t)ct_load32(code + at + 2, false);
		return true;
	}
	if (!got_base)
		return false;
	if (modrm == 0xa3 && (size_t)at + 6 <= len) { // jmp [ebx + disp32]
		*slot = (got_base + (uint64_t)(int64_t)(int32_t)ct_load32(code + at + 2, false)) & 0xffffffffULL;
		return true;
	}
	if (modrm == 0x63 && (size_t)at + 3 <= len) { // jmp [ebx + disp8]
		*slot = (got_base + (uint64_t)(int64_t)(int8_t)code[at + 2]) & 0xffffffffULL;
		return true;
	}
	return false;
}
