/**
 * @file dwarf_expr.h
 * A DWARF expression evaluator (DWARF 2–5 and the GNU extensions GCC emits), pure over decoded
 * operations (libdw's Dwarf_Op): the machine state it needs — registers, memory, the frame base,
 * the CFA, entry values, relocated addresses — comes through callbacks, so it runs on hand-built
 * operation arrays in unit tests as on a core.
 *
 * Expressions come from untrusted DWARF and are evaluated against untrusted memory: every run is
 * capped in steps and stack depth, every read is bounded by the callback that does it.
 */
#ifndef CT_DWARF_EXPR_H
#define CT_DWARF_EXPR_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_budget;

/** Operations executed per evaluation: loops through DW_OP_bra/skip end here. */
#define CT_EXPR_MAX_STEPS 4096
/** Stack entries: real expressions use fewer than 10. */
#define CT_EXPR_MAX_STACK 64
/** Pieces of one composite location (DW_OP_piece): a struct split over 16 registers is rare. */
#define CT_EXPR_MAX_PIECES 16

/**
 * Outcome of an evaluation. An enum rather than struct ct_error: this runs for every argument of
 * every frame (a million-frame recursion), and a failure here is a property of one value, shown in
 * its place, not an error that travels up.
 */
enum ct_expr_status {
	CT_EXPR_OK,
	/** A register the expression needs is not known in this frame (caller-saved, not recovered). */
	CT_EXPR_NO_REGISTER,
	/** Memory the expression reads is not in the dump: address in ct_expr_result.fault_address. */
	CT_EXPR_UNREADABLE,
	/** An operation this evaluator does not implement (TLS, implicit pointers, …). */
	CT_EXPR_UNSUPPORTED,
	/** The expression is malformed: stack underflow, bad branch target, division by zero. */
	CT_EXPR_CORRUPT,
	/** The step or stack cap was hit. */
	CT_EXPR_LIMIT,
	/** An entry value could not be resolved through the caller's call site. */
	CT_EXPR_NO_ENTRY_VALUE,
	/** The analysis' work budget of expression steps (CT_BUDGET_EXPR, util/budget.h) is spent. */
	CT_EXPR_BUDGET,
	CT_EXPR_NUM_
};
const char *ct_expr_status_to_string(enum ct_expr_status status);

enum ct_piece_kind {
	CT_PIECE_MEMORY, /**< the object is in memory at .address */
	CT_PIECE_REGISTER, /**< the object is in register .reg */
	CT_PIECE_VALUE, /**< DW_OP_stack_value: the object's value is .value */
	CT_PIECE_IMPLICIT, /**< DW_OP_implicit_value: the object's bytes are .bytes */
	CT_PIECE_OPTIMIZED, /**< an empty piece: optimized out */
};

struct ct_piece {
	enum ct_piece_kind kind;
	/** Size in bytes of this piece; 0 for the whole object (an expression without pieces). */
	uint64_t size;
	uint64_t address; /**< CT_PIECE_MEMORY */
	unsigned reg; /**< CT_PIECE_REGISTER (DWARF number) */
	uint64_t value; /**< CT_PIECE_VALUE */
	/** CT_PIECE_IMPLICIT: borrowed from the DWARF data (lives as long as the Dwarf), .size bytes. */
	const uint8_t *bytes;
	size_t num_bytes;
};

/** Where an object is (or what it is), as an expression says. */
struct ct_location {
	struct ct_piece pieces[CT_EXPR_MAX_PIECES];
	size_t num_pieces; /**< 0: the expression was empty (optimized out) */
};

/** The state an expression is evaluated against. Each callback may be NULL (then unsupported). */
struct ct_expr_ops {
	/** Value of DWARF register @p regno in the frame; false when unknown. */
	bool (*reg)(void *arg, unsigned regno, uint64_t *ret);
	/** Reads @p len (≤ 8) bytes of target memory, in target byte order; false when unreadable. */
	bool (*mem)(void *arg, uint64_t addr, void *buf, size_t len);
	/** DW_OP_fbreg: the frame base of the function (its DW_AT_frame_base, evaluated). */
	enum ct_expr_status (*frame_base)(void *arg, uint64_t *ret);
	/** DW_OP_call_frame_cfa: the frame's canonical frame address. */
	bool (*cfa)(void *arg, uint64_t *ret);
	/** DW_OP_entry_value / DW_OP_GNU_entry_value @p op: the value it stands for. */
	enum ct_expr_status (*entry_value)(void *arg, const Dwarf_Op *op, uint64_t *ret);
	/** DW_OP_addr, DW_OP_addrx, DW_OP_constx (and GNU_addr_index/const_index) relocated. */
	enum ct_expr_status (*address)(void *arg, const Dwarf_Op *op, uint64_t *ret);
	/** DW_OP_implicit_value @p op: its bytes. */
	enum ct_expr_status (*implicit)(void *arg, const Dwarf_Op *op, const uint8_t **bytes, size_t *len);
	/**
	 * The base type a typed operation names (DW_OP_regval_type, deref_type, const_type, convert,
	 * reinterpret): its DW_ATE_* encoding and byte size. False when unknown: the value is then an
	 * integer, as without a type. Optional.
	 */
	bool (*base_type)(void *arg, const Dwarf_Op *op, unsigned *encoding, unsigned *size);
};

struct ct_expr_ctx {
	const struct ct_expr_ops *ops;
	void *arg;
	/** Size of a target address in bytes (4 or 8): DW_OP_deref reads this many. */
	unsigned addr_size;
	/** Target byte order of memory read through ops->mem. */
	bool big_endian;
	/**
	 * The analysis' work budget (borrowed; NULL: none): each operation executed spends one unit
	 * of CT_BUDGET_EXPR, so that nested evaluations (entry values inside call-site values) are
	 * bounded in all, not only per expression (CT_EXPR_MAX_STEPS).
	 */
	struct ct_budget *budget;
};

struct ct_expr_result {
	enum ct_expr_status status;
	uint64_t fault_address; /**< for CT_EXPR_UNREADABLE */
	unsigned atom; /**< the operation that failed, for CT_EXPR_UNSUPPORTED */
};

/**
 * Evaluates the location expression @p ops[0 .. @p n) into *@p ret. An empty expression gives a
 * location without pieces (optimized out). *@p ret is written only on CT_EXPR_OK.
 */
struct ct_expr_result ct_dwarf_expr_location(const struct ct_expr_ctx *ctx, const Dwarf_Op *ops, size_t n,
					     struct ct_location *ret);

/**
 * Evaluates a DWARF expression that computes a value (DW_AT_frame_base, DW_AT_call_value, CFA
 * rules, DW_AT_call_target): the top of the stack, or the register's contents for a register
 * location, or the value of DW_OP_stack_value. *@p ret is written only on CT_EXPR_OK.
 */
struct ct_expr_result ct_dwarf_expr_value(const struct ct_expr_ctx *ctx, const Dwarf_Op *ops, size_t n,
					  uint64_t *ret);

/**
 * Float arithmetic of the typed stack (dwarf_expr_float.c), on the bits of floats of @p size bytes
 * (4: float, 8: double): DW_OP_plus, minus, mul, div, neg, abs (*@p is_float true, @p ret the
 * result's bits) and eq, ne, lt, le, gt, ge (*@p is_float false, @p ret 0 or 1). False for any
 * other operation. neg and abs read @p a only.
 */
bool ct_expr_float_binop(unsigned atom, unsigned size, uint64_t a, uint64_t b, uint64_t *ret, bool *is_float);
/**
 * DW_OP_convert of @p v from a float of @p from bytes (0: an integer) to a float of @p to bytes
 * (0: an integer), as a C cast: float to integer truncates toward zero (saturating), integer to
 * float reads the integer as signed.
 */
uint64_t ct_expr_float_convert(uint64_t v, unsigned from, unsigned to);

#endif
