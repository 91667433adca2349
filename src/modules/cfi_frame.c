// The CFI rules of a pc (cfi_frame.h).
#include "modules/cfi_frame.h"

Dwarf_Frame *ct_cfi_frame_at(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	for (int i = 0; mod && i < 2; i++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = i == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
		Dwarf_Frame *frame = NULL;
		if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
			return frame;
	}
	return NULL;
}
