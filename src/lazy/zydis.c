// Zydis on first use (lazy.h): it decodes only the x86 instructions capstone 4 cannot (AVX-512,
// AMX), so most runs never need it. Each function forwards to the library's; when it is missing they
// fail (ZYAN_STATUS_FAILED) and the instruction stays undecoded, as in a build without Zydis.
#include <Zydis/Zydis.h>

#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_ZYDIS, .what = "AVX-512 decoding needs" };

ZyanStatus ZydisDecoderInit(ZydisDecoder *decoder, ZydisMachineMode machine_mode, ZydisStackWidth stack_width)
{
	CT_DYNLIB_RESOLVE(lib, ZydisDecoderInit, fn, ZYAN_STATUS_FAILED);
	return fn(decoder, machine_mode, stack_width);
}

ZyanStatus ZydisDecoderDecodeFull(const ZydisDecoder *decoder, const void *buffer, ZyanUSize length,
				  ZydisDecodedInstruction *instruction,
				  ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT])
{
	CT_DYNLIB_RESOLVE(lib, ZydisDecoderDecodeFull, fn, ZYAN_STATUS_FAILED);
	return fn(decoder, buffer, length, instruction, operands);
}

ZyanStatus ZydisFormatterInit(ZydisFormatter *formatter, ZydisFormatterStyle style)
{
	CT_DYNLIB_RESOLVE(lib, ZydisFormatterInit, fn, ZYAN_STATUS_FAILED);
	return fn(formatter, style);
}

ZyanStatus ZydisFormatterFormatInstruction(const ZydisFormatter *formatter, const ZydisDecodedInstruction *instruction,
					   const ZydisDecodedOperand *operands, ZyanU8 operand_count, char *buffer,
					   ZyanUSize length, ZyanU64 runtime_address, void *user_data)
{
	CT_DYNLIB_RESOLVE(lib, ZydisFormatterFormatInstruction, fn, ZYAN_STATUS_FAILED);
	return fn(formatter, instruction, operands, operand_count, buffer, length, runtime_address, user_data);
}

const char *ZydisMnemonicGetString(ZydisMnemonic mnemonic)
{
	CT_DYNLIB_RESOLVE(lib, ZydisMnemonicGetString, fn, NULL);
	return fn(mnemonic);
}

const char *ZydisRegisterGetString(ZydisRegister reg)
{
	CT_DYNLIB_RESOLVE(lib, ZydisRegisterGetString, fn, NULL);
	return fn(reg);
}

ZydisRegisterWidth ZydisRegisterGetWidth(ZydisMachineMode mode, ZydisRegister reg)
{
	CT_DYNLIB_RESOLVE(lib, ZydisRegisterGetWidth, fn, 0);
	return fn(mode, reg);
}

ZydisRegister ZydisRegisterGetLargestEnclosing(ZydisMachineMode mode, ZydisRegister reg)
{
	CT_DYNLIB_RESOLVE(lib, ZydisRegisterGetLargestEnclosing, fn, ZYDIS_REGISTER_NONE);
	return fn(mode, reg);
}
