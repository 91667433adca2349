// capstone on first use (lazy.h): its tables hold 77,000 pointers, and relocating them was the
// largest part of start-up left once the other optional libraries were lazy (issue 28), paid by
// runs that decode no instruction (--version, batch listing, hangs, kernel dumps). Each function
// forwards to capstone's; when it is missing cs_open fails (CS_ERR_HANDLE) and every instruction
// stays undecoded, as when capstone does not know an encoding.
#include <capstone/capstone.h>

#include "lazy/lazy.h"
#include "util/dynlib.h"

static struct ct_dynlib lib = { .soname = CT_SONAME_CAPSTONE, .what = "decoding instructions needs" };

struct ct_error *ct_lazy_capstone_require(void)
{
	return ct_dynlib_require(&lib);
}

cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	CT_DYNLIB_RESOLVE(lib, cs_open, fn, CS_ERR_HANDLE);
	return fn(arch, mode, handle);
}

cs_err cs_close(csh *handle)
{
	CT_DYNLIB_RESOLVE(lib, cs_close, fn, CS_ERR_HANDLE);
	return fn(handle);
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	CT_DYNLIB_RESOLVE(lib, cs_option, fn, CS_ERR_HANDLE);
	return fn(handle, type, value);
}

size_t cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address, size_t count, cs_insn **insn)
{
	CT_DYNLIB_RESOLVE(lib, cs_disasm, fn, 0);
	return fn(handle, code, code_size, address, count, insn);
}

void cs_free(cs_insn *insn, size_t count)
{
	CT_DYNLIB_RESOLVE(lib, cs_free, fn, );
	fn(insn, count);
}

cs_insn *cs_malloc(csh handle)
{
	CT_DYNLIB_RESOLVE(lib, cs_malloc, fn, NULL);
	return fn(handle);
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *insn)
{
	CT_DYNLIB_RESOLVE(lib, cs_disasm_iter, fn, false);
	return fn(handle, code, size, address, insn);
}

const char *cs_reg_name(csh handle, unsigned int reg_id)
{
	CT_DYNLIB_RESOLVE(lib, cs_reg_name, fn, NULL);
	return fn(handle, reg_id);
}

bool cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
	CT_DYNLIB_RESOLVE(lib, cs_insn_group, fn, false);
	return fn(handle, insn, group_id);
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count, cs_regs regs_write,
		      uint8_t *regs_write_count)
{
	CT_DYNLIB_RESOLVE(lib, cs_regs_access, fn, CS_ERR_HANDLE);
	return fn(handle, insn, regs_read, regs_read_count, regs_write, regs_write_count);
}
