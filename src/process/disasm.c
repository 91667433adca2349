// Disassembly around the faulting pc for the report (capstone). Decoding x86 backwards is
// ambiguous, so decoding starts at the function's start when it is near, else at pc.
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "modules/symbolize.h"
#include "process/process.h"
#include "util/budget.h"

/** Bytes decoded before pc at most (from the function start). */
#define BEFORE_MAX 512
#define AFTER_BYTES 48
#define LINES_BEFORE 6
#define LINES_AFTER 4
/** Memory that must be free before capstone is called (it allocates its instruction array). */
#define CT_DISASM_HEADROOM (1u << 20)

void ct_process_disassemble(struct ct_module_set *mods, uint64_t pc, struct ct_report *r)
{
	const struct ct_arch_info *arch = mods->core->arch;
	if (!arch || arch->cs_arch < 0 || pc == 0)
		return;
	const struct ct_sym *sym;
	ct_symbolize(mods, pc, &sym);
	uint64_t start = pc;
	size_t n;
	for (n = 1; n < 32 && sym[n - 1].inlined; n++)
		;
	const struct ct_sym *outer = &sym[n - 1];
	if (outer->function && outer->offset <= BEFORE_MAX)
		start = pc - outer->offset;
	uint8_t buf[BEFORE_MAX + AFTER_BYTES];
	size_t len = (size_t)(pc - start) + AFTER_BYTES;
	// Shrink from the end until the bytes are readable (the function may end near a page end).
	while (len > (size_t)(pc - start) && !ct_modules_read_code(mods, start, buf, len))
		len -= 8;
	if (len <= (size_t)(pc - start))
		return;
	// capstone does not check its allocations: call it only with room to spare.
	if (!ct_memory_headroom(CT_DISASM_HEADROOM)) {
		ct_report_diag(r, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_MEMORY,
			       "out of memory: the disassembly around the pc is left out");
		return;
	}
	csh handle;
	if (cs_open((cs_arch)arch->cs_arch, (cs_mode)arch->cs_mode, &handle) != CS_ERR_OK)
		return;
	cs_insn *insn = NULL;
	size_t count = cs_disasm(handle, buf, len, start, 0, &insn);
	size_t pc_index = count;
	for (size_t i = 0; i < count; i++) {
		if (insn[i].address == pc)
			pc_index = i;
	}
	if (pc_index == count && start != pc) {
		// Decoding from the function start did not land on pc (data in code?): decode from pc.
		cs_free(insn, count);
		count = cs_disasm(handle, buf + (pc - start), len - (size_t)(pc - start), pc, 0, &insn);
		pc_index = count ? 0 : count;
	}
	if (count == 0 || pc_index == count) {
		if (count)
			cs_free(insn, count);
		cs_close(&handle);
		return;
	}
	size_t first = pc_index > LINES_BEFORE ? pc_index - LINES_BEFORE : 0;
	size_t last = pc_index + LINES_AFTER < count ? pc_index + LINES_AFTER : count - 1;
	r->disasm = calloc(last - first + 1, sizeof(*r->disasm));
	if (r->disasm) {
		for (size_t i = first; i <= last; i++) {
			struct ct_disasm_line *l = &r->disasm[r->num_disasm++];
			char bytes[3 * 16 + 1] = "";
			for (size_t b = 0; b < insn[i].size && b < 16; b++)
				snprintf(bytes + 3 * b, 4, "%02x ", insn[i].bytes[b]);
			if (*bytes)
				bytes[strlen(bytes) - 1] = '\0';
			l->address = insn[i].address;
			l->bytes = ct_report_strdup(r, bytes);
			l->text = *insn[i].op_str ? ct_report_printf(r, "%s %s", insn[i].mnemonic, insn[i].op_str)
						  : ct_report_strdup(r, insn[i].mnemonic);
			l->is_pc = i == pc_index;
		}
	}
	cs_free(insn, count);
	cs_close(&handle);
}
