// libFuzzer target: the DWARF expression stack machine (src/values/dwarf_expr.c,
// dwarf_expr_float.c), which runs the location expressions of an untrusted core's debug info.
// Input layout:
//   [0] flags: bit 0 4-byte addresses, bit 1 big-endian, bit 2 registers unknown, bit 3 memory
//       unreadable, bit 4 no frame base, bit 5 entry values unknown, bit 6 no base types
//   then records of 17 bytes: atom, number (8, little-endian), number2 (8): one operation each,
//   placed 3 bytes apart so that DW_OP_skip/bra offsets land on operations or between them.
// DW_OP_const_type's block pointer (number2) is replaced by a block of the harness: libdw hands
// the evaluator a pointer into the DWARF data, never a number from the file.
#include <dwarf.h>
#include <stdint.h>
#include <string.h>

#include "values/dwarf_expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 512
#define REC 17

struct env {
	uint8_t flags;
	uint8_t mem[256];
	uint8_t block[9];
};

static bool reg_cb(void *arg, unsigned regno, uint64_t *ret)
{
	const struct env *e = arg;
	if (e->flags & 4 || regno > 200)
		return false;
	*ret = 0x1000u * regno + 0x7ffc0000u;
	return true;
}

static bool mem_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct env *e = arg;
	if (e->flags & 8 || len > 8 || addr < 0x7000 || addr - 0x7000 > sizeof(e->mem) - len)
		return false;
	memcpy(buf, e->mem + (addr - 0x7000), len);
	return true;
}

static enum ct_expr_status fb_cb(void *arg, uint64_t *ret)
{
	const struct env *e = arg;
	*ret = 0x7040;
	return e->flags & 16 ? CT_EXPR_NO_REGISTER : CT_EXPR_OK;
}

static bool cfa_cb(void *arg, uint64_t *ret)
{
	(void)arg;
	*ret = 0x7080;
	return true;
}

static enum ct_expr_status entry_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	const struct env *e = arg;
	*ret = op->number ^ 0x55;
	return e->flags & 32 ? CT_EXPR_NO_ENTRY_VALUE : CT_EXPR_OK;
}

static enum ct_expr_status addr_cb(void *arg, const Dwarf_Op *op, uint64_t *ret)
{
	(void)arg;
	*ret = op->number + 0x1000;
	return CT_EXPR_OK;
}

static enum ct_expr_status implicit_cb(void *arg, const Dwarf_Op *op, const uint8_t **bytes, size_t *len)
{
	const struct env *e = arg;
	*bytes = e->mem;
	*len = (size_t)(op->number % sizeof(e->mem));
	return CT_EXPR_OK;
}

static bool base_type_cb(void *arg, const Dwarf_Op *op, unsigned *encoding, unsigned *size)
{
	const struct env *e = arg;
	if (e->flags & 64)
		return false;
	uint64_t t = op->number2 ^ op->number;
	static const unsigned encodings[] = { DW_ATE_float, DW_ATE_signed, DW_ATE_unsigned, DW_ATE_boolean };
	static const unsigned sizes[] = { 4, 8, 1, 2, 16, 10, 0, 3 };
	*encoding = encodings[t & 3];
	*size = sizes[(t >> 2) & 7];
	return true;
}

static const struct ct_expr_ops ops = {
	.reg = reg_cb, .mem = mem_cb, .frame_base = fb_cb, .cfa = cfa_cb, .entry_value = entry_cb,
	.address = addr_cb, .implicit = implicit_cb, .base_type = base_type_cb,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct env e = { .flags = data[0] };
	for (size_t i = 0; i < sizeof(e.mem); i++)
		e.mem[i] = (uint8_t)(i * 37 + 11);
	size_t n = (size - 1) / REC;
	if (n > MAX_OPS)
		n = MAX_OPS;
	static Dwarf_Op o[MAX_OPS];
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = data + 1 + i * REC;
		memset(&o[i], 0, sizeof(o[i]));
		o[i].atom = r[0];
		memcpy(&o[i].number, r + 1, 8);
		memcpy(&o[i].number2, r + 9, 8);
		o[i].offset = i * 3;
		if (o[i].atom == DW_OP_const_type || o[i].atom == DW_OP_GNU_const_type) {
			e.block[0] = (uint8_t)(o[i].number2 % 10); // 0..9 bytes: 0 and 9 are refused
			memcpy(e.block + 1, r + 1, 8);
			o[i].number2 = (Dwarf_Word)(uintptr_t)e.block;
		}
	}
	struct ct_expr_ctx ctx = { .ops = &ops, .arg = &e, .addr_size = e.flags & 1 ? 4 : 8,
				   .big_endian = e.flags & 2 };
	struct ct_location loc;
	struct ct_expr_result r = ct_dwarf_expr_location(&ctx, o, n, &loc);
	if (r.status == CT_EXPR_OK && loc.num_pieces > CT_EXPR_MAX_PIECES)
		__builtin_trap();
	uint64_t v;
	(void)ct_dwarf_expr_value(&ctx, o, n, &v);
	(void)ct_expr_status_to_string(r.status);
	return 0;
}
