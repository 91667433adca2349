/**
 * @file limits.h
 * Every cap on the values of arguments and locals, in one place: cores and their DWARF are
 * untrusted, so the work and text spent on values are bounded per value, per frame and per report.
 * Value text also counts against the analysis' work budget for "bytes of names and values"
 * (util/budget.h, CT_BUDGET_TEXT): whichever is reached first stops the values.
 */
#ifndef CT_VALUES_LIMITS_H
#define CT_VALUES_LIMITS_H

/** Characters of one rendered value; longer values end in "...". gdb prints 200 elements. */
#define CT_VALUE_MAX_TEXT 1024
/** Characters read of a string a char * points to (gdb's default `print elements`). */
#define CT_VALUE_MAX_STRING 200
/** Elements of an array, and members of a struct, shown before "...". */
#define CT_VALUE_MAX_ELEMENTS 200
/**
 * Nesting of structs and arrays shown; deeper aggregates print as {...}. gdb's `print max-depth`
 * is 20; Rust's standard types nest 6 deep (String → Vec → RawVec → Unique → NonNull → pointer),
 * and CT_VALUE_MAX_TEXT bounds the text whatever the depth.
 */
#define CT_VALUE_MAX_DEPTH 8
/**
 * Members and array elements one value visits, shown or skipped (folded repeats, members without
 * a type): twice the elements CT_VALUE_MAX_BYTES can hold, so real values never meet it. All the
 * values of an analysis also share the work budget's "elements" (CT_BUDGET_ELEMENTS).
 */
#define CT_VALUE_MAX_VISITS 8192
/** Bytes of one object read from the dump (a bigger array is shown in part). */
#define CT_VALUE_MAX_BYTES 4096
/** Characters of a type name. */
#define CT_VALUE_MAX_TYPE 256
/** Variables (parameters and locals) of one frame. */
#define CT_VALUES_MAX_PER_FRAME 128
/** Characters of all the values of one frame; further values are left out (with a diagnostic). */
#define CT_VALUES_MAX_FRAME_TEXT 16384
/** Characters of all the values of a report. */
#define CT_VALUES_MAX_TEXT (64u << 20)
/** Caller frames an entry value may go through (DW_OP_entry_value inside DW_AT_call_value). */
#define CT_VALUES_MAX_ENTRY_DEPTH 4
/** The entry depth of a context that must not resolve entry values at all (a call target's
 * expression): past CT_VALUES_MAX_ENTRY_DEPTH, so that refusing it is no chain cut by the depth. */
#define CT_VALUES_NO_ENTRY_VALUES (CT_VALUES_MAX_ENTRY_DEPTH + 1)
/** Tail calls in one reconstructed chain, and call-site visits while searching for chains. */
#define CT_TAILCALL_MAX_CHAIN 8
#define CT_TAILCALL_MAX_VISITS 1000
/** DIEs visited when looking for the call sites of one function. */
#define CT_CALLSITE_MAX_DIES 100000

#endif
