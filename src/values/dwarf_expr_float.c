// Float arithmetic of the DWARF expression stack (dwarf_expr.h): DWARF 5's typed stack lets an
// expression compute with float and double values (GCC's call-site values: DW_OP_regval_type
// xmm3 <double>, DW_OP_const_type <double> 1.5, DW_OP_mul). Done on the host's IEEE 754 types,
// which are the target's on every architecture coretriage reads.
#include <dwarf.h>
#include <math.h>
#include <string.h>

#include "values/dwarf_expr.h"

static double to_double(uint64_t bits, unsigned size)
{
	if (size == 4) {
		uint32_t u = (uint32_t)bits;
		float f;
		memcpy(&f, &u, 4);
		return (double)f;
	}
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

static uint64_t from_double(double d, unsigned size)
{
	if (size == 4) {
		float f = (float)d;
		uint32_t u;
		memcpy(&u, &f, 4);
		return u;
	}
	uint64_t bits;
	memcpy(&bits, &d, 8);
	return bits;
}

bool ct_expr_float_binop(unsigned atom, unsigned size, uint64_t a, uint64_t b, uint64_t *ret, bool *is_float)
{
	if (size != 4 && size != 8)
		return false;
	double x = to_double(a, size), y = to_double(b, size), r;
	*is_float = true;
	switch (atom) {
	case DW_OP_plus: r = x + y; break;
	case DW_OP_minus: r = x - y; break;
	case DW_OP_mul: r = x * y; break;
	case DW_OP_div: r = x / y; break; // IEEE: inf or nan, not a trap
	case DW_OP_neg: r = -x; break;
	case DW_OP_abs: r = fabs(x); break;
	case DW_OP_eq: *is_float = false; *ret = x == y; return true;
	case DW_OP_ne: *is_float = false; *ret = x != y; return true;
	case DW_OP_lt: *is_float = false; *ret = x < y; return true;
	case DW_OP_le: *is_float = false; *ret = x <= y; return true;
	case DW_OP_gt: *is_float = false; *ret = x > y; return true;
	case DW_OP_ge: *is_float = false; *ret = x >= y; return true;
	default: return false;
	}
	*ret = from_double(r, size);
	return true;
}

uint64_t ct_expr_float_convert(uint64_t v, unsigned from, unsigned to)
{
	if (!from && !to)
		return v;
	if (!from)
		return from_double((double)(int64_t)v, to);
	double d = to_double(v, from);
	if (to)
		return from_double(d, to);
	// To an integer: truncation, saturating where C leaves it undefined (NaN gives 0).
	if (isnan(d))
		return 0;
	if (d >= 9223372036854775807.0)
		return (uint64_t)INT64_MAX;
	if (d <= -9223372036854775808.0)
		return (uint64_t)INT64_MIN;
	return (uint64_t)(int64_t)d;
}
