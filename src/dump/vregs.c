// A thread's float/vector register from its register notes (see vregs.h).
#include <elf.h>
#include <string.h>

#include "dump/vregs.h"

/** Offset of XSTATE_BV (the XSAVE header's first word) in an x86 XSAVE area. */
#define XSAVE_HEADER_BV 512

// The bytes of run @p v's register @p k into out at v->value_offset; false when not in the note.
static bool copy_part(const struct ct_core_thread *t, const struct ct_arch_vregs *v, unsigned k, uint8_t *out)
{
	const struct ct_bytes *note = v->note_type == NT_X86_XSTATE ? &t->xstate : &t->fpregset;
	if (v->xstate_bit) {
		uint64_t bv;
		if (!ct_bytes_uint(note, XSAVE_HEADER_BV, 8, &bv))
			return false;
		if (!(bv & v->xstate_bit)) {
			// The component is in its initial state: the kernel saved no bytes, the value is zero.
			memset(out + v->value_offset, 0, v->size);
			return true;
		}
	}
	size_t off = (size_t)v->offset + (size_t)k * v->stride;
	if (!note->data || off > note->size || v->size > note->size - off)
		return false;
	memcpy(out + v->value_offset, note->data + off, v->size);
	return true;
}

bool ct_core_vreg(const struct ct_core *core, const struct ct_core_thread *t, unsigned regno, uint8_t *out,
		  size_t *len)
{
	const struct ct_arch_info *arch = core ? core->arch : NULL;
	*len = 0;
	if (!arch || !t)
		return false;
	bool base = false;
	for (size_t i = 0; i < arch->num_vregs; i++) {
		const struct ct_arch_vregs *v = &arch->vregs[i];
		if ((int)regno < v->dwarf_first || (int)regno >= v->dwarf_first + v->count ||
		    (size_t)v->value_offset + v->size > CT_VREG_MAX_BYTES)
			continue;
		// The upper part (ymm's upper half) only extends a known lower part; parts come in order.
		if (v->value_offset > *len || !copy_part(t, v, regno - (unsigned)v->dwarf_first, out))
			continue;
		base = base || v->value_offset == 0;
		if ((size_t)v->value_offset + v->size > *len)
			*len = (size_t)v->value_offset + v->size;
	}
	return base && *len > 0;
}
