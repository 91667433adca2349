/**
 * @file internal.h
 * Shared between the files of src/values/: the DWARF scope of a pc, a frame's evaluation context
 * (its registers, CFA and frame base for the expression evaluator), call sites, rendering.
 */
#ifndef CT_VALUES_INTERNAL_H
#define CT_VALUES_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "modules/modules.h"
#include "unwind/unwind.h"
#include "values/dwarf_expr.h"
#include "values/limits.h"
#include "values/values.h"

/** DIEs of one scope chain: inline levels and lexical blocks (deeper chains are cut). */
#define CT_SCOPE_MAX_DIES 48

/** The DWARF scopes holding an address, innermost first, as the DIEs' real parents nest them. */
struct ct_scope {
	uint64_t addr; /**< absolute lookup address (pc, or pc - 1 for a caller) */
	Dwfl_Module *mod; /**< borrowed from the session's Dwfl */
	Dwarf_Addr bias; /**< DWARF address + bias = address in the process */
	/** Lexical blocks, inlined subroutines, the subprogram (last ones: namespaces, the CU). */
	Dwarf_Die dies[CT_SCOPE_MAX_DIES];
	int num;
	/** Index in dies of the physical function's DW_TAG_subprogram, -1 when none. */
	int subprogram;
	bool cxx; /**< the CU's language is C++ (type names without "struct ") */
	/** The variables of every inline level, described on first use (frame_values.c); owned. */
	struct ct_var_desc *vars;
	size_t num_vars, cap_vars;
	size_t num_levels;
	bool described;
	/** The physical function's DW_AT_frame_base when it is a single expression (fb_single). */
	bool fb_looked_up, fb_single;
	Dwarf_Attribute fb_attr;
	Dwarf_Op *fb_ops;
	size_t fb_num_ops;
	/** A frame base decoded here from a block form (frame_ctx.c), which fb_ops then points to. */
	Dwarf_Op fb_block_ops[4];
};

struct scope_slot;
struct site_slot;

/** Direct-mapped caches: deep recursion repeats the same pairs of pcs. */
#define CT_VALUES_CHAIN_CACHE 256
#define CT_VALUES_NAME_CACHE 256
#define CT_VALUES_CALLS_CACHE 256

/** Whether a call site (by its DIE's address) calls the function of a scope. */
struct ct_calls_result {
	const void *site;
	const void *callee;
	int calls;
};

/** A tail-call search's outcome for one (caller return address, callee lookup pc) pair. */
struct ct_chain_result {
	uint64_t caller_pc, callee_pc;
	bool used;
	size_t num_found; /**< 0 none, 1 unique, 2 ambiguous */
	uint64_t pcs[CT_TAILCALL_MAX_CHAIN];
	size_t len;
	uint64_t target;
};

/** A function symbol looked up by name in one module. */
struct ct_name_result {
	const void *mod;
	const char *name; /**< borrowed from the DWARF string table (stable while the Dwarf lives) */
	bool found;
	uint64_t address;
};

/** A rendered value of a small object whose bytes were all known (frame_values.c). */
#define CT_VALUES_MEMO_BYTES 16
struct ct_value_memo {
	const void *type; /**< the type DIE's address in the DWARF data; NULL: empty slot */
	uint8_t size;
	bool cxx;
	uint8_t data[CT_VALUES_MEMO_BYTES];
	const char *text; /**< pooled */
	size_t len;
};
#define CT_VALUES_MEMO 1024

/** A type as rendering sees it: typedefs and qualifiers stripped, a base type's size and encoding. */
struct ct_type_memo {
	const void *type; /**< the type DIE's address in the DWARF data; NULL: empty slot */
	bool ok; /**< false: void (or a broken chain) */
	Dwarf_Die stripped;
	int tag;
	uint64_t size, encoding;
	bool rust; /**< defined in a Rust unit: rendered in Rust syntax (render_rust.c) */
	uint8_t cxx_printer; /**< enum ct_cxx_printer: a libstdc++ type shown as gdb's printers do */
};
#define CT_VALUES_TYPE_MEMO 256
/** Dwarf files (modules) whose types are indexed by name; more share the last slot's fate (none). */
#define CT_VALUES_TYPE_INDEXES 16
#define CT_VALUES_QNAME_CACHE 512
struct ct_type_index;
struct ct_static_index;

/** An entry value as ct_entry_register resolved it: frame @p index of @p raw (its pc and sp
 * too: a raw stack's storage may be reused by the next thread), register, entry depth. */
struct ct_entry_memo {
	const void *raw; /**< NULL: empty slot */
	uint64_t epoch; /**< ct_values.entry_epoch when it was filled: one thread's stack */
	size_t index;
	uint64_t pc, sp;
	unsigned regno;
	int depth;
	enum ct_expr_status status;
	uint64_t value;
};
#define CT_VALUES_ENTRY_MEMO 1024

struct ct_values {
	struct scope_slot *scopes;
	size_t num_scopes, used_scopes;
	struct site_slot *sites;
	size_t num_sites, used_sites;
	/** Elements visited rendering the current value (CT_VALUE_MAX_VISITS); reset per value. */
	size_t visits;
	/** The current variable's rendering met the visits cap, an array whose counts multiply past
	 * 2^64 (reset per variable); each is reported once per analysis (frame_values.c). */
	bool visits_capped, layout_wrapped, reported_visits, reported_wrapped;
	/** The current variable's entry-value chain was cut at CT_VALUES_MAX_ENTRY_DEPTH callers
	 * (reset per variable, reported once per analysis; the expression budget has its own warning). */
	bool entry_cut, reported_entry_cut;
	/** Entry values resolved, by caller frame and register (ct_entry_register): chained
	 * DW_OP_entry_value operations ask the same question thousands of times. */
	struct ct_entry_memo entries[CT_VALUES_ENTRY_MEMO];
	/** Bumped for each thread's stack (ct_values_tail_calls) and whenever its frames move. */
	uint64_t entry_epoch;
	/** Characters of value text produced so far (CT_VALUES_MAX_TEXT). */
	size_t text_total;
	bool text_capped;
	/** Scratch object for one value (8 KiB: kept off the stack, allocated once); owned. */
	struct ct_object *scratch;
	struct ct_chain_result chains[CT_VALUES_CHAIN_CACHE];
	struct ct_name_result names[CT_VALUES_NAME_CACHE];
	struct ct_calls_result calls[CT_VALUES_CALLS_CACHE];
	/** Rendered values by (type, bytes): deep stacks pass the same pointers and counters down. */
	struct ct_value_memo memo[CT_VALUES_MEMO];
	struct ct_type_memo types[CT_VALUES_TYPE_MEMO];
	/** Complete types by name, one index per Dwarf met (type_complete.c); owned. */
	struct {
		Dwarf *dbg;
		struct ct_type_index *index;
	} type_indexes[CT_VALUES_TYPE_INDEXES];
	/** Function-local statics by address, one index per Dwarf met (static_names.c); owned. */
	struct {
		Dwarf *dbg;
		struct ct_static_index *index;
	} static_indexes[CT_VALUES_TYPE_INDEXES];
	/** Qualified type names by DIE (render_rust.c): each costs a walk of the unit from its root. */
	struct {
		const void *die;
		const char *name; /**< pooled in the report */
	} qnames[CT_VALUES_QNAME_CACHE];
};

/**
 * The definition of @p type when it is a declaration of a structure, class, union or enum type
 * (DW_AT_declaration) and some unit of its module defines it, as gdb resolves opaque types;
 * false otherwise (then the declaration is all there is).
 */
bool ct_values_complete_type(struct ct_values *v, Dwarf_Die *type, Dwarf_Die *ret);

/**
 * The DWARF name of the function-local static that starts at @p addr (in the process) in module
 * @p mod: `w` for the object GCC's symbol table calls `w.0`; NULL when no DW_TAG_variable inside a
 * function has its storage there. Borrowed from the module's DWARF.
 */
const char *ct_values_static_name(const struct ct_values_input *s, Dwfl_Module *mod, uint64_t addr);
/** Frees an index of ct_values_static_name's; accepts NULL. */
void ct_static_index_free(struct ct_static_index *ix);

/** The scope chain of @p addr, cached for the session; NULL when there is no DWARF for it. */
const struct ct_scope *ct_scope_lookup(const struct ct_values_input *s, uint64_t addr);

/** The DIE at the root of @p die's DW_AT_abstract_origin / DW_AT_specification links. */
void ct_die_origin(Dwarf_Die *die, Dwarf_Die *ret);
/** Linkage name, else name, of @p die through its origins; NULL when none. Borrowed from libdw. */
const char *ct_die_function_name(Dwarf_Die *die);

/** A frame as the expression evaluator sees it. */
struct ct_frame_ctx {
	const struct ct_values_input *s;
	const struct ct_raw_stack *raw;
	size_t index; /**< in raw */
	uint64_t lookup; /**< pc for exact frames, pc - 1 for callers */
	const struct ct_scope *scope; /**< NULL without DWARF */
	/** The attribute being evaluated (DW_OP_addrx, implicit and entry values read through it). */
	Dwarf_Attribute *attr;
	/** Entry values resolved on the way to this frame (CT_VALUES_MAX_ENTRY_DEPTH). */
	int entry_depth;
	bool cfa_done, has_cfa;
	uint64_t cfa;
	bool fb_done;
	enum ct_expr_status fb_status;
	uint64_t fb;
	struct ct_expr_ctx expr;
	/** The dumped thread when this is its innermost frame (float/vector registers), else NULL. */
	const struct ct_core_thread *thread;
};

/**
 * Float/vector DWARF register @p regno of frame @p fc (its innermost frame only, vregs.c): its
 * bytes into @p out (CT_VREG_MAX_BYTES) and their number into *@p len.
 */
bool ct_frame_vreg(const struct ct_frame_ctx *fc, unsigned regno, uint8_t *out, size_t *len);

/** Sets up @p fc for raw frame @p index. */
void ct_frame_ctx_init(struct ct_frame_ctx *fc, const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index,
		       int entry_depth);
/** Reads @p len bytes of process memory (the dump, else the module file for unmodified text). */
bool ct_frame_read(const struct ct_values_input *s, uint64_t addr, void *buf, size_t len);

/**
 * The expression of location attribute @p attr that holds at the frame's pc (a location list is
 * searched; DW_FORM_exprloc is taken as is). False when none holds: optimized out there.
 */
bool ct_frame_expr(struct ct_frame_ctx *fc, Dwarf_Attribute *attr, uint64_t module_pc, Dwarf_Op **ops, size_t *n);

/** Evaluates value expression attribute @p attr (DW_AT_call_value, …) in @p fc. */
struct ct_expr_result ct_frame_eval_value(struct ct_frame_ctx *fc, Dwarf_Attribute *attr, uint64_t *ret);

/**
 * The call site in raw frame @p index's function whose return address is that frame's pc:
 * *@p ret, and its module's bias. False when DWARF has none. Cached by address.
 */
bool ct_callsite_at(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index, Dwarf_Die *ret,
		    Dwarf_Addr *bias_ret);

/**
 * Whether call site @p site (in frame @p caller of @p raw) calls the function whose scope is
 * @p callee: 1 yes, 0 no, -1 unknown (an indirect call whose target cannot be computed).
 */
int ct_callsite_calls(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t caller, Dwarf_Die *site,
		      const struct ct_scope *callee);

/** As ct_callsite_calls, by the call site's DW_AT_call_origin only (no registers needed). */
int ct_callsite_origin_calls(const struct ct_values_input *s, Dwarf_Die *site, const struct ct_scope *site_scope,
			     const struct ct_scope *callee);
/**
 * The entry address of the function call site @p site (found in @p site_scope) calls directly:
 * its definition's low pc, else the function symbol of its name in the site's module or @p also.
 */
bool ct_callsite_target_address(const struct ct_values_input *s, Dwarf_Die *site, const struct ct_scope *site_scope,
				Dwfl_Module *also, uint64_t *ret);
/** True for a call site marked DW_AT_call_tail_call (DW_AT_GNU_tail_call). */
bool ct_callsite_is_tail_call(Dwarf_Die *site);
/** True when @p die is a DW_TAG_call_site or DW_TAG_GNU_call_site. */
bool ct_callsite_is(Dwarf_Die *die);
/** The return address of call site @p site (module-relative), or one past its DW_AT_call_pc. */
bool ct_callsite_pc(Dwarf_Die *site, Dwarf_Addr *ret);

/**
 * The register of DW_OP_entry_value's inner expression @p ops (@p n operations): DW_OP_regN,
 * DW_OP_regx, DW_OP_bregN 0 (the same register value) or DW_OP_regval_type (a typed float register).
 */
bool ct_dwarf_entry_register(const Dwarf_Op *ops, size_t n, unsigned *regno);

/**
 * The value DWARF register @p regno had at the entry of frame @p fc's function, from the caller's
 * DW_TAG_call_site_parameter for that register.
 */
enum ct_expr_status ct_entry_register(struct ct_frame_ctx *fc, unsigned regno, uint64_t *ret);

/** A bounded string builder: appends stop at the cap and mark the text cut. */
struct ct_sbuf {
	char *buf;
	size_t len, cap;
	bool cut;
};
void ct_sbuf_add(struct ct_sbuf *b, const char *s, size_t n);
void ct_sbuf_printf(struct ct_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Appends @p v in decimal (unsigned, signed) or as 0x… hex, as printf would, without printf. */
void ct_sbuf_u64(struct ct_sbuf *b, uint64_t v);
void ct_sbuf_i64(struct ct_sbuf *b, int64_t v);
void ct_sbuf_hex(struct ct_sbuf *b, uint64_t v);

/** Appends the C-like name of type @p type (NULL: void) to @p b. */
void ct_render_type_name(struct ct_sbuf *b, Dwarf_Die *type, bool cxx, int depth);

/** An object's bytes as read from its location; state[i] says whether byte i is known. */
enum { CT_BYTE_OK, CT_BYTE_OPTIMIZED, CT_BYTE_UNREADABLE };
struct ct_object {
	uint8_t data[CT_VALUE_MAX_BYTES];
	uint8_t state[CT_VALUE_MAX_BYTES];
	size_t size; /**< bytes held (the object's size, capped) */
	uint64_t address; /**< address of the object in memory, when has_address */
	bool has_address;
	uint64_t unreadable_at; /**< first unreadable address */
};

/** Renders @p obj of type @p type the way gdb prints it into @p b. */
void ct_render_value(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, const struct ct_object *obj,
		     size_t offset, bool cxx, int depth);

/**
 * Spends one element (a member or array element visited, shown or not) of the value being
 * rendered: false when the value's cap (CT_VALUE_MAX_VISITS, counted in ct_values.visits from
 * the start of the value) or the analysis' budget of elements (CT_BUDGET_ELEMENTS) is reached.
 */
bool ct_render_visit(const struct ct_values_input *s);

/**
 * Spends one element of the analysis' budget (CT_BUDGET_ELEMENTS) for a child DIE looked at while
 * searching a type (a member by name, a Rust variant, a C++ base class): false when it is spent.
 * Not the value's visits cap: a search looks at declarations (member functions) a value never shows.
 */
bool ct_render_search_step(const struct ct_values_input *s);

/* render.c's helpers, shared with render_rust.c */
/** Before an aggregate's next element: ", " after the first; "..." and false at CT_VALUE_MAX_ELEMENTS. */
bool ct_render_next_element(struct ct_sbuf *b, size_t *shown);
/** True when @p die belongs to a unit whose DW_AT_language is Rust. */
bool ct_die_is_rust(Dwarf_Die *die);
/** Checks bytes [off, off + n) of @p obj; appends gdb's marker and returns false when not all known. */
bool ct_render_available(struct ct_sbuf *b, const struct ct_object *obj, size_t off, size_t n);
uint64_t ct_render_uint(const uint8_t *p, size_t n, bool big_endian);
/**
 * The @p length characters at @p addr (std::string, Rust's &str) in gdb's string notation ("…",
 * <repeats N times>, escapes), at most CT_VALUE_MAX_STRING read; `<unreadable 0x…>` when they cannot be.
 */
void ct_render_counted_string(const struct ct_values_input *s, struct ct_sbuf *b, uint64_t addr, uint64_t length);
/** Strips typedefs and qualifiers; false for void. */
bool ct_render_strip(Dwarf_Die *type, Dwarf_Die *ret);
bool ct_render_type_of(Dwarf_Die *die, Dwarf_Die *ret);
uint64_t ct_render_udata(Dwarf_Die *die, int name, uint64_t dflt);
/**
 * The name of the enumerator of enum @p t whose value is @p u (@p size bytes, either signedness);
 * NULL: none, or the value's visits (ct_render_visit) ran out first (the number is shown then).
 */
const char *ct_render_enumerator(const struct ct_values_input *s, Dwarf_Die *t, uint64_t u, size_t size);
/** Renders the object of @p type at @p addr in the dump's memory (shallowly). */
void ct_render_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *type, uint64_t addr, int depth);
/** "e0, e1, …": @p count elements of @p elem_size bytes from @p addr (capped at CT_VALUE_MAX_ELEMENTS). */
void ct_render_elements_at(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *elem, uint64_t addr, uint64_t count,
			   uint64_t elem_size, int depth);

/**
 * Rust's aggregates in Rust syntax, as gdb prints them (render_rust.c): `Path::Type {field: v}`,
 * tuples `(a, b)`, tuple structs `Type (a, b)`, enums `Path::Enum::Variant(v)`, C-like enums
 * `Path::Enum::Name`, `&str` as its string, slices `&[T] [a, b]`, arrays `[a, b]`, `()`.
 * False when @p t (stripped, tag @p tag) is none of these: the C rendering applies.
 */
/** Rust's name of @p type (`alloc::vec::Vec<u8, alloc::alloc::Global>`, `*const u8`, `[u8; 4]`); false: none. */
bool ct_render_rust_type_name(struct ct_sbuf *b, Dwarf_Die *type, int depth);
/** The libstdc++ types render_cxx.c shows as gdb's libstdc++ pretty-printers do. */
enum ct_cxx_printer { CT_CXX_NONE, CT_CXX_STRING, CT_CXX_VECTOR, CT_CXX_ITERATOR };
/** Which printer struct/class @p t (stripped) takes, by its qualified name. */
enum ct_cxx_printer ct_cxx_printer_of(Dwarf_Die *t);
/**
 * Renders @p obj at @p off with @p printer: std::string as `"text"`, std::vector as `std::vector
 * of length N, capacity C = {…}`, an iterator as its element. False when the layout is not the
 * expected one (nothing written): the structure is shown instead.
 */
bool ct_render_cxx(const struct ct_values_input *s, struct ct_sbuf *b, enum ct_cxx_printer printer, Dwarf_Die *t,
		   const struct ct_object *obj, size_t off, int depth);
bool ct_render_rust(const struct ct_values_input *s, struct ct_sbuf *b, Dwarf_Die *t, int tag, const struct ct_object *obj,
		    size_t off, int depth);

#endif
