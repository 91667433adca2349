/**
 * @file report.h
 * The report model: everything the analysis learned about one dump, self-contained.
 *
 * Analysis fills a struct ct_report; writers (text, JSON, …) only render it. The model owns every
 * string it points to (they live in the report's string pool, `report->strings`), so it stays valid
 * after the dump, libdw and libelf are closed, and tests can build one by hand.
 *
 * Optional numeric fields come with a `has_*` flag: a field that is unknown is not shown (JSON omits
 * it or writes null), never made up.
 */
#ifndef CORETRIAGE_REPORT_H
#define CORETRIAGE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/strpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** JSON schema version of the report (docs/json-report.md). Additive changes keep it. */
#define CT_SCHEMA_VERSION 1
/** Version of the signature recipe (docs/signature.md). */
#define CT_SIGNATURE_VERSION 3

/** How a frame was recovered. */
enum ct_trust {
	CT_TRUST_CONTEXT, /**< registers saved in the dump */
	CT_TRUST_CFI, /**< DWARF call-frame information */
	CT_TRUST_FRAME_POINTER, /**< frame-pointer chain */
	CT_TRUST_SCAN, /**< stack scan, validated by a call before the return address */
	CT_TRUST_SIGNAL, /**< signal frame (sigreturn trampoline) */
	CT_TRUST_BAD_CALL, /**< caller recovered after a call to a bad pc */
	CT_TRUST_CALL_SITE, /**< tail-call frame rebuilt from DWARF call-site information */
	/** from the function's prologue (its sp adjustment and return-address slot; mips, no CFI unwinder) */
	CT_TRUST_PROLOGUE,
	CT_TRUST_PCLNTAB, /**< a Go frame's size from the executable's pclntab (a Go binary without CFI) */
	CT_TRUST_NUM_
};
const char *ct_trust_to_string(enum ct_trust trust);

enum ct_severity { CT_SEVERITY_INFO, CT_SEVERITY_WARNING, CT_SEVERITY_ERROR, CT_SEVERITY_NUM_ };
const char *ct_severity_to_string(enum ct_severity severity);

/*
 * The verdict's vocabulary (src/model/verdicts.c): typed for the analysis that decides it and kept
 * typed in the model (crash.cls, confidence, access, address_kind); writers render the words through
 * these tables. tests/check_tables.py holds docs/classes.md, docs/json-report.md
 * and the JSON schema to these tables.
 */

/** A crash class (docs/classes.md): process classes, kernel classes, and unknown for both. */
enum ct_class {
	CT_CLASS_UNKNOWN,
	CT_CLASS_DEADLOCK,
	CT_CLASS_NO_SIGNAL,
	CT_CLASS_EXTERNAL_SIGNAL,
	CT_CLASS_SELF_SIGNAL,
	CT_CLASS_ASSERTION_FAILURE,
	CT_CLASS_STACK_BUFFER_OVERFLOW,
	CT_CLASS_FORTIFY_FAILURE,
	CT_CLASS_HEAP_CORRUPTION,
	CT_CLASS_UNCAUGHT_EXCEPTION,
	CT_CLASS_PANIC,
	CT_CLASS_ABORT,
	CT_CLASS_NULL_CALL,
	CT_CLASS_EXEC_NON_EXECUTABLE,
	CT_CLASS_STACK_OVERFLOW,
	CT_CLASS_STACK_CORRUPTION,
	CT_CLASS_NULL_DEREF,
	CT_CLASS_USE_AFTER_FREE,
	CT_CLASS_MISALIGNED_ACCESS,
	CT_CLASS_WILD_POINTER,
	CT_CLASS_WRITE_TO_READONLY,
	CT_CLASS_BUS_ERROR,
	CT_CLASS_INTEGER_OVERFLOW,
	CT_CLASS_DIVIDE_BY_ZERO,
	CT_CLASS_FLOATING_POINT_EXCEPTION,
	CT_CLASS_TRAP,
	CT_CLASS_ILLEGAL_INSTRUCTION,
	CT_CLASS_KERNEL_STACK_OVERFLOW,
	CT_CLASS_KERNEL_STACK_PROTECTOR,
	CT_CLASS_KERNEL_NULL_DEREF,
	CT_CLASS_KERNEL_PAGE_FAULT,
	CT_CLASS_KERNEL_DIVIDE_ERROR,
	CT_CLASS_KERNEL_GENERAL_PROTECTION,
	CT_CLASS_KERNEL_BUG,
	CT_CLASS_KERNEL_WARNING_PANIC,
	CT_CLASS_KERNEL_SOFT_LOCKUP,
	CT_CLASS_KERNEL_HARD_LOCKUP,
	CT_CLASS_KERNEL_RCU_STALL,
	CT_CLASS_KERNEL_HUNG_TASK,
	CT_CLASS_KERNEL_OOM_PANIC,
	CT_CLASS_KERNEL_SYSRQ_CRASH,
	CT_CLASS_KERNEL_MACHINE_CHECK,
	CT_CLASS_KERNEL_OOPS,
	CT_CLASS_KERNEL_PANIC,
	CT_CLASS_NUM_
};
/** The class id ("null-deref", "kernel-oops"): JSON's crash.class. "unknown" out of range. */
const char *ct_class_to_string(enum ct_class cls);

/** The dumps a class is decided for (bits). */
enum ct_class_scope { CT_CLASS_SCOPE_PROCESS = 1 << 0, CT_CLASS_SCOPE_KERNEL = 1 << 1 };
/** enum ct_class_scope bits of @p cls: which rule table can decide it (0 out of range). */
unsigned ct_class_scope(enum ct_class cls);

/** Confidence of a decision. */
enum ct_confidence { CT_CONFIDENCE_LOW, CT_CONFIDENCE_MEDIUM, CT_CONFIDENCE_HIGH, CT_CONFIDENCE_NUM_ };
/** "low", "medium", "high"; "low" out of range. */
const char *ct_confidence_to_string(enum ct_confidence c);

/** The access that faulted. */
enum ct_access { CT_ACCESS_NONE, CT_ACCESS_READ, CT_ACCESS_WRITE, CT_ACCESS_EXEC, CT_ACCESS_NUM_ };
/** "read", "write", "exec"; NULL for CT_ACCESS_NONE (no access known). */
const char *ct_access_to_string(enum ct_access access);

/** "Near null": below 64 KiB (vm.mmap_min_addr is 4 KiB or 64 KiB; CASR and CERT use 64 KiB). */
#define CT_NEAR_NULL_LIMIT 0x10000ULL

/** Where the bad address lies (crash.address_kind). */
enum ct_address_kind {
	CT_ADDRESS_NULL, /**< below CT_NEAR_NULL_LIMIT (the null page and what is near it) */
	CT_ADDRESS_NON_CANONICAL, /**< outside the architecture's user (or kernel) address range */
	CT_ADDRESS_STACK_GUARD, /**< in the guard gap below a stack */
	CT_ADDRESS_UNMAPPED, /**< in no mapping of the dump */
	CT_ADDRESS_MAPPED, /**< in a mapping (its permissions did not allow the access) */
	CT_ADDRESS_NO_ACCESS, /**< in a mapping without any permission (PROT_NONE) */
	CT_ADDRESS_MISALIGNED, /**< not aligned as the instruction requires */
	CT_ADDRESS_KIND_NUM_
};
/** "null", "non-canonical", "stack-guard", "unmapped", "mapped", "no-access", "misaligned"; NULL out of range. */
const char *ct_address_kind_to_string(enum ct_address_kind kind);

/** A non-fatal problem found during analysis; shown in every output format. */
struct ct_diagnostic {
	enum ct_severity severity;
	/** Thread id the problem belongs to, or 0. */
	int tid;
	/** Short stable id, e.g. "build-id-mismatch", "truncated-core", "frame-cap". Pooled. */
	const char *code;
	/** One line for people. Pooled. */
	const char *message;
};

/** The diagnostics of an analysis, in order of discovery (capped: CT_MAX_DIAGNOSTICS). */
struct ct_diagnostics {
	struct ct_diagnostic *items; /**< owned */
	size_t count;
};

/** Most diagnostics kept: a hostile dump must not grow the report without bound. */
#define CT_MAX_DIAGNOSTICS 10000

struct ct_frame {
	uint64_t pc;
	/** Function name, demangled; NULL when unknown. Pooled. */
	const char *function;
	/** pc - function start (for the looked-up address); valid when function != NULL. */
	uint64_t offset;
	/** Module short name ("libc.so.6"); NULL when pc is in no module. Pooled. */
	const char *module;
	/** Source file, line, column; file NULL when unknown, line/column 0 when unknown. Pooled. */
	const char *file;
	int line;
	int column;
	/** The file that declares the frame's function (DWARF's DW_AT_decl_file), pooled; NULL when
	 * unknown. Blame reads it: a program's function whose line is in a system header it inlined is
	 * still the program's. Not rendered. */
	const char *decl_file;
	/** True for a frame that exists only as an inlined call (its pc equals the next frame's). */
	bool inlined;
	/**
	 * Where function, file and line come from when not the symbol table or the DWARF: "pclntab"
	 * (a Go executable's own table, for a binary built without symbols); NULL otherwise. Static.
	 */
	const char *name_source;
	enum ct_trust trust;
	/** True for a signal trampoline (the next frame was interrupted by a signal). */
	bool signal_frame;
	/** Stack pointer (CFA side) of the frame when known. */
	bool has_sp;
	uint64_t sp;
	/**
	 * A frame that left no trace on the stack: the function the caller's call site called, which
	 * then tail-called the next frame in (trust CT_TRUST_CALL_SITE).
	 */
	bool tail_call;
	/** Parameters: the thread's variables[first_parameter .. + num_parameters). */
	size_t first_parameter, num_parameters;
	/** Locals (innermost block first): the thread's variables[first_local .. + num_locals). */
	size_t first_local, num_locals;
	/** True when locals were looked for in this frame (then num_locals == 0 means "No locals."). */
	bool has_locals;
};

/** An argument or local variable of a frame, rendered as gdb prints it. All strings pooled. */
struct ct_variable {
	const char *name; /**< NULL for an unnamed parameter */
	const char *type; /**< C-like type name ("struct node *"), NULL when unknown */
	/** The value ("0x0", "42", "0x55… \"needle\"", "{a = 1, b = 2}"); NULL when optimized out. */
	const char *value;
	bool optimized_out;
	/** The parameter's value at function entry, from the caller's call site; NULL when unknown. */
	const char *entry_value;
};

/** A register of a thread's dump context. */
struct ct_register {
	const char *name; /**< pooled */
	uint64_t value;
};

/** What a futex word belongs to, as the hang analysis recognized it (JSON's wait.object). */
enum ct_wait_object {
	CT_WAIT_OBJECT_NONE, /**< not a futex wait */
	CT_WAIT_OBJECT_MUTEX,
	CT_WAIT_OBJECT_CONDITION,
	CT_WAIT_OBJECT_RWLOCK,
	CT_WAIT_OBJECT_SEMAPHORE,
	CT_WAIT_OBJECT_JOIN, /**< pthread_join: the joined thread's tid word */
	CT_WAIT_OBJECT_GLIBC_INTERNAL, /**< glibc's own lll locks (stdio, malloc, the dynamic loader) */
	CT_WAIT_OBJECT_UNKNOWN, /**< a futex nothing recognized */
	/** the Go runtime's own futex (runtime.futexsleep: an M's note, a runtime lock): idle Ms */
	CT_WAIT_OBJECT_GO_RUNTIME,
	CT_WAIT_OBJECT_NUM_
};
/** "mutex", "condition", "rwlock", "semaphore", "join", "glibc-internal", "unknown", "go-runtime"; NULL for none. */
const char *ct_wait_object_to_string(enum ct_wait_object object);

/** What a lock of the wait-for graph is (JSON's hang.locks[].kind). */
enum ct_lock_kind {
	CT_LOCK_MUTEX,
	CT_LOCK_RWLOCK,
	CT_LOCK_CONDITION,
	CT_LOCK_SEMAPHORE,
	CT_LOCK_THREAD, /**< a thread's exit, waited for by pthread_join */
	CT_LOCK_GLIBC_INTERNAL,
	CT_LOCK_UNKNOWN,
	CT_LOCK_GO_RUNTIME, /**< the Go runtime's own futex (an M's note or a runtime lock) */
	CT_LOCK_KIND_NUM_
};
/** "mutex", "rwlock", "condition", "semaphore", "thread", "glibc-internal", "unknown", "go-runtime" ("unknown" out of range). */
const char *ct_lock_kind_to_string(enum ct_lock_kind kind);
/** The lock kind of what a wait waits on: a join waits for a thread, the others for their object. */
enum ct_lock_kind ct_lock_kind_of_wait(enum ct_wait_object object);

/**
 * What a thread is blocked in (docs/hangs.md): the system call the dump interrupted, decoded from its
 * number and argument registers, and for a futex the synchronization object it belongs to.
 */
struct ct_wait {
	bool present;
	/** System call name ("futex", "read", "nanosleep"; "syscall 123" when not in our table). Pooled. */
	const char *syscall;
	long number; /**< the call's number in the dump's ABI */
	/** Futex operation ("wait", "wait_bitset", "lock_pi", …), NULL for other calls. Pooled. */
	const char *operation;
	bool has_fd;
	int fd;
	/** poll/epoll timeout in milliseconds (-1: none), or a timespec argument read from the dump. */
	bool has_timeout_ms;
	int64_t timeout_ms;
	/** nanosleep/clock_nanosleep/futex/ppoll/… time in nanoseconds, read from the timespec argument. */
	bool has_duration;
	uint64_t duration_ns;
	/** The time is a deadline (TIMER_ABSTIME, FUTEX_WAIT_BITSET), not a duration. */
	bool absolute;
	/** futex: the futex word's address; wait4/waitid: the pid waited for in `pid`. */
	bool has_address;
	uint64_t address;
	/** futex: the value the wait expects the word to hold (its `val` argument). */
	bool has_value;
	uint32_t value;
	bool has_pid;
	int64_t pid;
	/** futex: what the word belongs to (ct_wait_object_to_string); CT_WAIT_OBJECT_NONE for other calls. */
	enum ct_wait_object object;
	/** How `object` was recognized: "frames" (glibc's functions on the stack) or "address". Pooled. */
	const char *recognized_by;
	/** rwlock: the thread waits to write (true) or to read. */
	bool wants_write;
	/** Index in report->hang.locks of the object waited for, -1 when none. */
	long lock;
	/** The waiting function: the first frame in the program's own code (index, -1) and its name. */
	long frame;
	const char *function; /**< pooled, NULL when unknown */
	/** One line: "futex_wait on 0x55d0c0 <accounts>", "read(fd 0)", "nanosleep(5 s)". Pooled. */
	const char *text;
};

/**
 * Why a thread's (a CPU's, a task's) unwinding ended. The unwinders record it, the model keeps it
 * with what its words leave open (struct ct_stop), and writers render both (ct_stop_render).
 */
enum ct_stop_reason {
	CT_STOP_NONE, /**< no reason recorded */
	CT_STOP_OUTERMOST, /**< the unwinder found no caller: the outermost frame */
	CT_STOP_ENTRY_POINT, /**< the function holding the program's entry point */
	CT_STOP_FRAME_CAP, /**< --max-frames */
	CT_STOP_FRAME_BUDGET, /**< the work budget's frames (set by the pipeline, not the unwinder) */
	CT_STOP_SP_NOT_OUTWARD,
	CT_STOP_NO_MEMORY,
	CT_STOP_NO_REGISTERS, /**< the core has no registers for the thread (set by the pipeline) */
	CT_STOP_NO_FRAME, /**< libdwfl gave no frame and no error */
	CT_STOP_LIBRARY, /**< libdwfl's error: its message in ct_raw_stack.stop_detail, the stop's text */
	CT_STOP_BAD_PC,
	CT_STOP_NO_CALLER,
	CT_STOP_RECOVERY_NOT_OUTWARD,
	CT_STOP_TOO_MANY_RECOVERIES,
	/* libunwind's step errors (unwind_libunwind.c) */
	CT_STOP_LU_NO_INFO,
	CT_STOP_LU_BAD_FRAME,
	CT_STOP_LU_INVALID_IP,
	CT_STOP_LU_BAD_REG,
	CT_STOP_LU_UNREADABLE,
	CT_STOP_LU_BAD_VERSION,
	CT_STOP_LU_FAILED,
	CT_STOP_LU_STEP_BUDGET,
	/* kernel stacks (kernel/kstack.c over the steps of step.h) */
	CT_STOP_ORC_END, /**< the ORC end marker: the outermost frame of a kernel stack */
	CT_STOP_ORC_UNDEFINED_SP,
	CT_STOP_ORC_BP_LOST,
	CT_STOP_ORC_SP_REG_UNSAVED,
	CT_STOP_ORC_BAD_SP_REG,
	CT_STOP_ORC_NO_INDIRECT_SP,
	CT_STOP_ORC_NO_RETURN_ADDRESS,
	CT_STOP_ORC_NO_PT_REGS,
	CT_STOP_ORC_NO_IRET_FRAME,
	CT_STOP_ORC_BAD_TYPE,
	CT_STOP_ORC_NO_SAVED_BP,
	CT_STOP_ORC_NOT_OUTWARD,
	CT_STOP_ORC_TOO_MANY_SWITCHES,
	CT_STOP_USER_ENTRY, /**< pt_regs of an entry from user mode: the kernel stack's outermost frame */
	CT_STOP_SCAN_NO_RETURN, /**< a frame without ORC data, and no return address above it */
	CT_STOP_RETURN_ADDRESS_ZERO,
	CT_STOP_SP_LEFT_KERNEL,
	CT_STOP_FINAL_FRAME_RECORD, /**< arm64's final frame record {0, 0}: the outermost frame */
	CT_STOP_FP_NOT_KERNEL_STACK,
	CT_STOP_FP_NO_RECORD,
	CT_STOP_FP_NOT_OUTWARD,
	CT_STOP_FP_TOO_MANY_SWITCHES,
	CT_STOP_SP_NOT_KERNEL, /**< frame 0's sp is a user address (an idle CPU in user mode) */
	CT_STOP_KERNEL_ARCH, /**< the architecture has no kernel unwinder (its name beside) */
	CT_STOP_STACK_NOT_IN_DUMP, /**< the kernel stack at sp is not in the dump (the address beside) */
	CT_STOP_SCAN_END, /**< the end of a kernel stack scan (the bytes scanned beside) */
	CT_STOP_NO_CPU_REGISTERS, /**< the vmcore has no registers for this CPU */
	CT_STOP_TASK_NO_CONTEXT, /**< a sleeping task's saved context is not in the dump (its address beside) */
	CT_STOP_TASK_FRAME_BUDGET, /**< the frames of all task stacks reached their cap (the cap beside) */
	CT_STOP_TASK_ON_CPU, /**< a running task: its stack is its CPU's thread (the CPU beside) */
	CT_STOP_REASON_NUM_
};
/** The text of @p reason alone (NULL for CT_STOP_NONE or out of range); ct_stop_render says it all. */
const char *ct_stop_reason_to_string(enum ct_stop_reason reason);

/** What goes with a stop reason beside its words (struct ct_stop.value or .text). */
enum ct_stop_detail {
	CT_STOP_DETAIL_NONE,
	CT_STOP_DETAIL_CAP, /**< value: the frame cap that applied ("frame cap N reached") */
	CT_STOP_DETAIL_AT_PC, /**< value: the pc where a kernel step failed ("… at 0x…") */
	CT_STOP_DETAIL_AT_FP, /**< value: the frame pointer where a frame-record step failed ("… at fp 0x…") */
	CT_STOP_DETAIL_ADDRESS, /**< value: the address the reason is about (a stack, a saved context) */
	CT_STOP_DETAIL_CPU, /**< value: the CPU a task runs on */
	CT_STOP_DETAIL_BYTES, /**< value: the bytes a kernel stack scan covered from sp */
	CT_STOP_DETAIL_TEXT, /**< text: the library's own message (CT_STOP_LIBRARY), an architecture's name */
};

/**
 * Why an unwind ended, as the model keeps it: the reason, one detail, and the end of the scan that
 * may follow a failed kernel walk ("…; then end of stack scan (N bytes from sp)").
 */
struct ct_stop {
	enum ct_stop_reason reason; /**< CT_STOP_NONE: no reason recorded */
	enum ct_stop_detail detail;
	uint64_t value;
	const char *text; /**< pooled; CT_STOP_DETAIL_TEXT */
	/** The kernel scanned the rest of the stack after the walk failed: CT_STOP_SCAN_END, then_bytes
	 * from sp; CT_STOP_NONE when not. */
	enum ct_stop_reason then;
	uint64_t then_bytes;
};

/** A stop of @p reason with a value detail (CT_STOP_DETAIL_NONE: none). */
struct ct_stop ct_stop_make(enum ct_stop_reason reason, enum ct_stop_detail detail, uint64_t value);
/** The words of @p stop for people and the JSON's stop_reason, in @p buf (CT_STOP_TEXT_MAX bytes
 * hold every rendering but a long library message, which is cut); NULL when it has no reason. */
const char *ct_stop_render(const struct ct_stop *stop, char *buf, size_t size);
#define CT_STOP_TEXT_MAX 256

struct ct_thread {
	int tid;
	bool crashed;
	/** Signal recorded for this thread (pr_cursig), 0 for none. */
	int signal;
	/** Frames, innermost first; owned array. */
	struct ct_frame *frames;
	size_t num_frames;
	size_t capacity_frames;
	/** True when the unwind stopped for a reason other than reaching the outermost frame. */
	bool truncated;
	/** Why the unwind stopped (writers say ct_stop_render: "outermost frame reached", "frame cap
	 * 1000000 reached", …). */
	struct ct_stop stop;
	/** Dump registers (crashing thread always; others when requested). Owned array. */
	struct ct_register *registers;
	size_t num_registers;
	/** Stack mapping bounds, when known. */
	bool has_stack;
	uint64_t stack_start, stack_end;
	/** Parameters and locals of all frames (frames index into it). Owned array. */
	struct ct_variable *variables;
	size_t num_variables;
	size_t capacity_variables;
	/** The blocking system call the thread was in, when it was in one (docs/hangs.md). */
	struct ct_wait wait;
	/** CPU time the thread used, from NT_PRSTATUS pr_utime/pr_stime (docs/trail.md). */
	bool has_cpu_time;
	uint64_t user_usec, system_usec;
};

/**
 * FDO packaging metadata of a module (https://systemd.io/ELF_PACKAGE_METADATA/): the JSON of its
 * `.note.package` note. Every string is pooled and NULL when the note does not have it.
 */
struct ct_package {
	bool present;
	const char *type; /**< "deb", "rpm", "alpm", … */
	const char *name, *version, *architecture;
	const char *os, *os_version;
	const char *debuginfo_url; /**< "debugInfoUrl" */
};

/** An ELF module mapped in the process (or a kernel module). */
struct ct_module {
	const char *name; /**< short name, pooled */
	const char *path; /**< path as recorded in the dump, pooled; NULL for the vdso */
	uint64_t base; /**< load bias (lowest mapped address of the module) */
	uint64_t end; /**< one past the highest mapped address */
	const char *build_id; /**< hex, read from the dump's memory; NULL when not found */
	/** -1 unknown (no build-id to compare or no file), 0 mismatch, 1 match. */
	int build_id_match;
	/** The file used for symbols and CFI, NULL when none. Pooled. */
	const char *file;
	const char *file_build_id; /**< build-id of that file (or of the rejected file on mismatch) */
	/** Where DWARF came from (file, separate debug file, debuginfod cache), NULL when none. */
	const char *debug_info;
	/** systemd's ELF package note (.note.package, FDO packaging metadata), when the module has one. */
	struct ct_package package;
};

/** A line of disassembly around the faulting pc. */
struct ct_disasm_line {
	uint64_t address;
	const char *bytes; /**< hex bytes, pooled */
	const char *text; /**< "mov rax, qword ptr [rdi]", pooled */
	bool is_pc;
};

/** Typed key/value for class-specific details (JSON keeps the type). */
enum ct_value_kind { CT_VALUE_STRING, CT_VALUE_INT, CT_VALUE_ADDRESS, CT_VALUE_BOOL };
struct ct_detail {
	const char *key; /**< pooled */
	enum ct_value_kind kind;
	const char *string; /**< pooled, for CT_VALUE_STRING */
	int64_t integer; /**< CT_VALUE_INT, CT_VALUE_BOOL */
	uint64_t address; /**< CT_VALUE_ADDRESS */
};

struct ct_crash {
	/** The class (docs/classes.md; writers print ct_class_to_string: "null-deref"); unknown until triage decides. */
	enum ct_class cls;
	/** Subclass ("double-free"), or NULL. Pooled. */
	const char *subclass;
	/** The confidence (writers print ct_confidence_to_string: "high", "medium", "low"); low until decided. */
	enum ct_confidence confidence;
	const char *summary; /**< one line; pooled */
	const char **evidence; /**< owned array of pooled strings */
	size_t num_evidence;
	enum ct_access access; /**< CT_ACCESS_NONE when not known (ct_access_to_string: "read", "write", "exec") */
	bool has_address;
	uint64_t address;
	/** Where the address lies, when has_address_kind (ct_address_kind_to_string: "null", "unmapped", …). */
	bool has_address_kind;
	enum ct_address_kind address_kind;
	bool has_instruction;
	uint64_t instruction_address;
	const char *instruction_text; /**< pooled */
	/** Index in the crashing thread's frames of the blamed frame, -1 when none. */
	long blame_frame;
	struct ct_detail *details; /**< owned array */
	size_t num_details;
};

/** What one step of a root-cause chain is (docs/root-cause.md); ct_root_step_kind_to_string. */
enum ct_root_step_kind {
	CT_ROOT_STEP_RETURN_OF, /**< the value a call returned */
	CT_ROOT_STEP_PARAM_OF, /**< a parameter: the caller passed it at its call site */
	CT_ROOT_STEP_LOAD_FROM, /**< loaded from memory */
	CT_ROOT_STEP_CONSTANT,
	CT_ROOT_STEP_ARITH, /**< computed by an instruction */
	CT_ROOT_STEP_STOPPED, /**< the chain stops here: reason says why */
	CT_ROOT_STEP_NUM_
};
/** "return-of", "param-of", "load-from", "constant", "arith", "stopped". */
const char *ct_root_step_kind_to_string(enum ct_root_step_kind kind);

/** One step of the chain, from the fault backwards. Strings pooled, NULL when unknown. */
struct ct_root_step {
	long frame; /**< index in the crashing thread's frames */
	uint64_t pc;
	const char *file;
	int line;
	enum ct_root_step_kind kind;
	const char *expression; /**< "find_item()", "`it`", "qword ptr [rax + 8]" */
	bool has_value;
	uint64_t value;
	const char *function; /**< the callee (return-of), the function of the parameter (param-of), else where pc lies */
	const char *reason; /**< kind stopped: why */
	/** load-from: the address read, when known, and what it is ("global cfg+0x8", "stack of frame 1"). */
	bool has_address;
	uint64_t address;
	const char *memory;
	/** load-from with an address: the word the dump holds there now (the load's size, zero-extended). */
	bool has_holds;
	uint64_t holds;
	/** load-from: the object read, named from DWARF ("n->cfg", "cfg.timeout"); pooled, NULL when not named. */
	const char *object;
	/**
	 * load-from whose base was itself loaded: why the object is not named (a level of the chain of
	 * loads that cannot be decided); static, NULL otherwise.
	 */
	const char *object_reason;
	/** The first step of a bad index: the element the faulting address falls in and the array with
	 *  its bound from DWARF ("table[16]"); pooled, NULL when not decidable. */
	bool has_index;
	int64_t index;
	const char *array;
	/** A multi-dimensional array ("grid[4][8]"): the subscript the index is of, 1 the leftmost; 0 for
	 *  a one-dimensional array. */
	int dimension;
};

/** Where the bad value came from (issue 24): present when the walk ran. */
struct ct_root_cause {
	bool present;
	const char *summary; /**< one sentence; pooled */
	struct ct_root_step *steps; /**< owned array */
	size_t num_steps;
};

/** A glibc bin kind (docs/root-cause.md); ct_heap_bin_kind_to_string. */
enum ct_heap_bin_kind {
	CT_HEAP_BIN_TCACHE,
	CT_HEAP_BIN_FASTBIN,
	CT_HEAP_BIN_UNSORTED,
	CT_HEAP_BIN_SMALL,
	CT_HEAP_BIN_LARGE,
	CT_HEAP_BIN_NUM_
};
/** "tcache", "fastbin", "unsorted", "small", "large". */
const char *ct_heap_bin_kind_to_string(enum ct_heap_bin_kind kind);

/** A neighbouring chunk's header. */
struct ct_heap_neighbour {
	const char *which; /**< "previous" or "next"; static */
	uint64_t address, size;
	bool has_prev_inuse;
	bool prev_inuse; /**< next: its PREV_INUSE bit (clear: the chunk before it is free) */
};

/** Bytes shown past an overrun chunk's end. */
#define CT_HEAP_OVERFLOW_BYTES 32

/**
 * A heap overflow (JSON `heap.overflow`): walking the main heap, the header after an in-use chunk does
 * not look like a chunk; that chunk's end was overrun.
 */
struct ct_heap_overflow {
	bool present;
	uint64_t chunk_address, chunk_size; /**< the chunk whose end was overrun */
	uint64_t header_address; /**< the overwritten header (its successor's) */
	uint64_t header_size; /**< that header's size word as the dump holds it (flag bits included) */
	/** The memory from the header's size field on: what lies past the chunk's usable end now. */
	uint8_t bytes[CT_HEAP_OVERFLOW_BYTES];
	size_t num_bytes;
	/** "`label` (local of run_overflow, frame #3)": a frame variable pointing into the chunk; pooled, NULL. */
	const char *owner;
};

/** A tcache or fastbin entry that cannot be a chunk glibc put there (JSON `heap.poisoned`). */
struct ct_heap_poison {
	bool present;
	enum ct_heap_bin_kind bin;
	unsigned index, position; /**< the bin and the entry (0 = its head) */
	uint64_t pointer; /**< the entry: the bin's head, or the decoded safe-linked next pointer */
	/** The freed chunk whose stored next pointer decodes to it; none when it is the bin's head. */
	bool has_source;
	uint64_t source;
	const char *reason; /**< "not 16-byte aligned", …; static */
};

/** The glibc heap around the crash's pointer (JSON `heap`). */
struct ct_heap_state {
	bool present;
	const char *glibc; /**< "2.36"; pooled */
	const char *role; /**< what the pointer is ("free() argument"); static */
	uint64_t pointer;
	uint64_t chunk_address, chunk_size;
	bool chunk_free;
	bool has_bin;
	enum ct_heap_bin_kind bin;
	unsigned bin_index, bin_count, bin_position;
	struct ct_heap_neighbour neighbours[2];
	size_t num_neighbours;
	struct ct_heap_overflow overflow;
	struct ct_heap_poison poison;
};

/** Frees the steps of @p rc and empties it. */
void ct_root_cause_free(struct ct_root_cause *rc);

struct ct_signal_info {
	bool present;
	int number;
	bool has_code;
	int code;
	bool has_fault_address;
	uint64_t fault_address;
	bool has_sender;
	int sender_pid;
	int sender_uid;
	/** si_errno, when the dump recorded a siginfo. */
	int err;
};

struct ct_process {
	bool has_pid;
	int pid, ppid;
	bool has_uid;
	unsigned uid, gid;
	const char *command; /**< pooled, NULL when unknown */
	const char **args; /**< owned array of pooled strings */
	size_t num_args;
	const char *executable_path; /**< AT_EXECFN or NT_FILE path of the main program, pooled */
};

/** Parsed glibc abort message (__abort_msg). */
struct ct_abort_message {
	bool present;
	const char *text; /**< raw text without trailing newline, pooled */
	/** "assertion", "stack-smashing", "fortify", "malloc", "other". Pooled. */
	const char *kind;
	const char *assert_file, *assert_function, *assert_expression; /**< pooled or NULL */
	int assert_line;
};

/** Signature: the bucket key (docs/signature.md). */
struct ct_signature {
	bool present;
	int version;
	const char *text; /**< "null-deref|node_key|walk_list|main", pooled */
	const char *hash; /**< hex digest of text, pooled */
};

/** Kernel facts for vmcores (input.kind != "elf-core"). */
struct ct_kernel_task;

struct ct_kernel {
	bool present;
	const char *release, *build_id, *machine; /**< pooled or NULL */
	bool has_page_size;
	uint64_t page_size;
	bool has_crash_time;
	int64_t crash_time; /**< seconds since the epoch */
	bool has_kaslr_offset;
	uint64_t kaslr_offset;
	const char *panic_message; /**< the headline, pooled */
	const char *taint; /**< "OE", pooled */
	bool has_panic_cpu;
	int panic_cpu;
	bool has_pid;
	int pid;
	const char *comm; /**< pooled */
	bool has_uptime;
	double uptime; /**< seconds, from the log timestamp of the panic */
	const char *log; /**< whole kernel log, pooled */
	const char **log_call_trace; /**< the kernel's own Call Trace lines, owned array of pooled */
	size_t num_log_call_trace;
	const char **modules_linked_in; /**< owned array of pooled */
	size_t num_modules_linked_in;
	/** Tasks read from the dump through its BTF: all of them with --tasks, else the D-state ones. Owned. */
	struct ct_kernel_task *tasks;
	size_t num_tasks;
	bool tasks_all; /**< true when tasks holds every task (--tasks), false for the D-state ones only */
	size_t num_tasks_total; /**< tasks counted in the dump (all states) */
};

/** One kernel task (struct task_struct) of a vmcore, like a line of `crash ps` with its kernel stack. */
struct ct_kernel_task {
	int pid, tgid, ppid;
	const char *comm; /**< pooled */
	/** ps's letter: R, S, D, T, t, X, Z, P, I (fs/proc/array.c task_state_array). */
	char state;
	int cpu; /**< the CPU it runs or last ran on */
	bool on_cpu; /**< running on its CPU at the dump (rq->curr), not asleep */
	uint64_t address; /**< of its task_struct */
	/** First function of its stack outside the scheduler and lock code (what ps calls WCHAN). Pooled. */
	const char *wchan;
	/** Its kernel stack: unwound from the saved context for a sleeping task (frames empty for a running
	 * one: its CPU's thread has it). tid is the pid. */
	struct ct_thread stack;
};

struct ct_input {
	/** "elf-core", "kdump-elf", "kdump-compressed", "kdump-flattened", … Pooled. */
	const char *kind;
	const char *core; /**< pooled */
	const char *executable; /**< pooled, NULL when none */
	const char *arch; /**< "x86_64", pooled */
	/** Whether the core is a live snapshot (gcore) rather than a kernel-written crash core. */
	bool truncated; /**< the dump file is shorter than its headers claim */
	/** Bytes in a pointer of the dumped program or kernel (4 or 8), 0 when unknown. */
	unsigned pointer_size;
	/** Bytes in a general register (x32: 8 with 4-byte pointers), 0 when unknown. */
	unsigned register_size;
	/** The process id of a live process (kind "live"), 0 for a dump. */
	int pid;
};

/** A live process' capture (`-p PID`, docs/live.md): how long it was stopped, what was copied. */
struct ct_live {
	bool present;
	/** From the first thread interrupted to the last one resumed, milliseconds. */
	double stopped_ms;
	size_t threads;
	uint64_t bytes_copied;
	/** The --gcore file written, NULL when none. Pooled. */
	const char *gcore;
};

/** A lock (or other object threads wait on) of the wait-for graph (docs/hangs.md). */
struct ct_lock {
	/** Address of the object (pthread_mutex_t, pthread_rwlock_t, …; the futex word when unknown). */
	uint64_t address;
	/** What it is (ct_lock_kind_to_string: JSON's hang.locks[].kind). */
	enum ct_lock_kind kind;
	/** Where it lives: "accounts", "bank.lock", "locks[1]", "table+0x40"; NULL on the heap. Pooled. */
	const char *name;
	/** Mutex type: "normal", "recursive", "error-checking", "adaptive"; NULL when not read. Pooled. */
	const char *type;
	/** The same as an enum, what the analysis decides on (CT_MUTEX_TYPE_UNKNOWN when not read). */
	enum ct_mutex_type {
		CT_MUTEX_TYPE_UNKNOWN,
		/* In the order of glibc's PTHREAD_MUTEX_* kinds (the mutex's __kind & 3), after UNKNOWN. */
		CT_MUTEX_TYPE_NORMAL,
		CT_MUTEX_TYPE_RECURSIVE,
		CT_MUTEX_TYPE_ERROR_CHECKING,
		CT_MUTEX_TYPE_ADAPTIVE,
	} mutex_type;
	bool robust, priority_inherit;
	/** The lock word as read from the dump. */
	bool has_word;
	uint32_t word;
	/** Holder's tid, read from the dump (__owner, __cur_writer, the robust/PI lock word, the joined tid). */
	bool has_owner;
	int owner;
	/** Which field gave the owner ("__owner", "__cur_writer", "lock word", "tid word"). Pooled. */
	const char *owner_field;
	/** The owner is a thread of the dump (false: it exited, or the snapshot lost it). */
	bool owner_in_dump;
	/** Robust mutex: the owner died holding it (FUTEX_OWNER_DIED). */
	bool owner_died;
	/** Recursive mutex: times the owner holds it; rwlock: readers holding it. */
	bool has_count;
	unsigned count;
	bool has_readers;
	unsigned readers;
	/** Threads of the dump waiting on it. */
	size_t num_waiters;
	/** Why no owner is given, for people ("glibc does not record readers"); NULL. Pooled. */
	const char *note;
	/** `name` is an expression in the first waiter's frame ("&to->lock"), not a variable of its own. */
	bool name_from_frame;
};

/** One member of a wait-for cycle: thread `tid` holds the previous member's lock and waits for `lock`. */
struct ct_cycle_member {
	int tid;
	long lock; /**< index in hang.locks of the lock it waits for */
	const char *function; /**< the function taking that lock (waiting frame), pooled or NULL */
	/** The lock it holds as its waiting frame refers to it ("&from->lock"), pooled or NULL. */
	const char *holds_as;
};

/** A deadlock cycle: members[start .. start + length) of hang.members. */
struct ct_cycle {
	size_t start, length;
};

/** Goroutines of one wait (docs/hangs.md "Go"): the runtime's reason and the sync call, with a count. */
struct ct_go_wait_count {
	/** The wait reason as the runtime spells it ("chan receive"), or the status of a goroutine that
	 * is not waiting ("running", "runnable", "syscall"). Pooled. */
	const char *wait;
	/** The sync package call it waits in ("sync.Mutex.Lock"), from its frames; NULL when none. Pooled. */
	const char *sync;
	size_t count;
};

/** Goroutines listed by id in one entry of the Go hang analysis (the count says how many there are). */
#define CT_GO_HANG_LISTED 8

/** A sync.Mutex or sync.RWMutex that goroutines wait for (its semaphore from runtime.semacquire1). */
struct ct_go_lock {
	const char *kind; /**< "sync.Mutex", "sync.RWMutex"; pooled */
	uint64_t address; /**< the Mutex/RWMutex (its semaphore's address minus the field's offset) */
	const char *name; /**< the variable holding it ("main.ledger"), NULL when no symbol; pooled */
	const char *sync; /**< the call the waiters are in ("sync.Mutex.Lock"); pooled */
	size_t num_waiters;
	int64_t waiters[CT_GO_HANG_LISTED]; /**< the first waiters' ids, min(num_waiters, CT_GO_HANG_LISTED) */
};

/** The goroutines of a Go process that hung (no goroutine crashed it), counted by what they wait in. */
struct ct_go_hang {
	bool present;
	size_t goroutines; /**< goroutines counted (every one read that is not dead) */
	struct ct_go_wait_count *counts; /**< owned, most goroutines first */
	size_t num_counts;
	/** Goroutines running, runnable or preempted (they can still run): ids of the first ones. */
	size_t num_busy;
	int64_t busy[CT_GO_HANG_LISTED];
	/** Where each listed busy goroutine is: its innermost frame outside the runtime, NULL. Pooled. */
	const char *busy_in[CT_GO_HANG_LISTED];
	/** Their status ("running", "runnable", "preempted"). Static. */
	const char *busy_status[CT_GO_HANG_LISTED];
	/** Goroutines in a system call, a sleep or an IO wait: parked, but woken without another goroutine. */
	size_t num_may_wake;
	int64_t may_wake[CT_GO_HANG_LISTED]; /**< the first ones' ids */
	struct ct_go_lock *locks; /**< owned, most waiters first */
	size_t num_locks;
	/** Goroutines waiting in a sync lock call whose semaphore was not read (no address known). */
	size_t num_lock_unknown;
};

/** The wait-for graph of the process (docs/hangs.md); present when any thread waits on an object. */
struct ct_hang {
	bool present;
	/** A Go process's goroutines by wait (docs/hangs.md "Go"); present when the runtime read them. */
	struct ct_go_hang go;
	/** glibc version whose layout was read ("2.36"), NULL when unknown. Pooled. */
	const char *glibc;
	struct ct_lock *locks; /**< owned */
	size_t num_locks;
	struct ct_cycle_member *members; /**< owned, grouped by cycle */
	size_t num_members;
	struct ct_cycle *cycles; /**< owned */
	size_t num_cycles;
	/** Contention and idle-wait lines ("3 threads wait for `journal`, held by …"). Owned array, pooled. */
	const char **summaries;
	size_t num_summaries;
};

/** Where a time in the trail comes from (docs/trail.md), best first. */
enum ct_time_source {
	CT_TIME_SOURCE_COREDUMP_NAME, /**< systemd-coredump's file name */
	CT_TIME_SOURCE_JOURNAL, /**< a journal entry (COREDUMP_TIMESTAMP, a unit's "Started") */
	CT_TIME_SOURCE_VMCOREINFO, /**< the crashing kernel's VMCOREINFO CRASHTIME */
	CT_TIME_SOURCE_FILE_MTIME, /**< the dump file's modification time */
	CT_TIME_SOURCE_CAPTURE, /**< when a live process was captured (-p) */
	CT_TIME_SOURCE_NUM_
};
/** "coredump-name", "journal", "vmcoreinfo", "file-mtime". */
const char *ct_time_source_to_string(enum ct_time_source source);

/** A point in time and how it is known. */
struct ct_time {
	bool present;
	int64_t usec; /**< microseconds since the epoch, UTC */
	enum ct_time_source source;
};

/** What a log line names of the crashed process (bit mask of struct ct_log_line.matches). */
enum ct_log_match {
	CT_LOG_MATCH_PID = 1 << 0,
	CT_LOG_MATCH_COMMAND = 1 << 1,
	CT_LOG_MATCH_UNIT = 1 << 2,
};
#define CT_LOG_MATCH_NUM_ 3
/** "pid", "command", "unit" for bit @p index (0-based) of enum ct_log_match; NULL beyond. */
const char *ct_log_match_name(unsigned index);

/** A line of a log near the crash time. */
struct ct_log_line {
	bool has_time;
	int64_t usec; /**< when it was logged, microseconds since the epoch, UTC */
	const char *file; /**< the log file or journal file it came from, pooled */
	uint64_t line_number; /**< 1-based line in a text file; 0 for journal entries */
	/** The line as logged (untrusted bytes, without the newline, at most CT_LOG_LINE_MAX). Pooled. */
	const char *text;
	unsigned matches; /**< enum ct_log_match bits */
	/** One of the last lines before the crash (shown in full even when it names nothing). */
	bool before_crash;
};

/** A log source that was read: what it was and how much of it lay in the window. */
struct ct_log_source {
	const char *file; /**< pooled */
	/** "rfc3339", "syslog", "rfc5424", "journal-export", "kernel", "audit", "journal", … or NULL. Pooled. */
	const char *format;
	uint64_t lines_in_window;
};

/**
 * The trail (docs/trail.md): when the crash happened, what ran, what the logs said just before.
 */
struct ct_trail {
	struct ct_time crash_time;
	/** When the machine booted (for the kernel's "[ seconds]" log times), when known. */
	struct ct_time boot_time;
	/** The systemd unit of the process (journal COREDUMP_UNIT), pooled or NULL. */
	const char *unit;
	/** When that unit was last started before the crash (journal), when known. */
	struct ct_time unit_start_time;
	/** The systemd-coredump journal entry: its journal file (pooled), time and chosen fields. */
	bool has_coredump_entry;
	const char *coredump_entry_file;
	struct ct_time coredump_entry_time;
	struct ct_detail *coredump_fields; /**< owned array; keys are the journal field names */
	size_t num_coredump_fields;
	/** A log window was searched (--logs, --journal or the system journal of a systemd core). */
	bool logs_searched;
	int64_t window_before_usec, window_after_usec;
	struct ct_log_line *logs; /**< owned array, in time order */
	size_t num_logs;
	struct ct_log_source *log_sources; /**< owned array, in reading order */
	size_t num_log_sources;
};

/**
 * Formats @p usec (microseconds since the epoch) as RFC 3339 UTC, "2026-12-01T14:03:07Z", with
 * ".123456" before the Z when @p fraction and the time is not a whole second. Returns @p buf
 * ("?" when the time cannot be represented).
 */
const char *ct_time_format(int64_t usec, bool fraction, char *buf, size_t size);

/** Frees what @p trail owns (called by ct_report_deinit). */
void ct_trail_deinit(struct ct_trail *trail);

/** Longest log line kept, bytes: longer lines are cut (and end in "…"). */
#define CT_LOG_LINE_MAX 4096

/** A frame of an interpreted language's stack (docs/runtimes.md). Strings pooled. */
struct ct_runtime_frame {
	const char *function; /**< the code object's name (co_name, as traceback prints it), NULL when unreadable */
	const char *qualname; /**< its qualified name (co_qualname: "Parser.read_header"), NULL when unreadable */
	const char *file; /**< co_filename, NULL when unreadable */
	int line; /**< from the code object's line table; 0 when it has none for the instruction */
	/** Index in the thread's native frames of the evaluation-loop frame running it, -1 when not decided. */
	long native_frame;
	/** Go: the pc the place was looked up for (a return address backed up to its call), 0 when unknown. */
	uint64_t pc;
	/** Go: a call the compiler inlined into the frame after it (Go's traceback prints it as `f(...)`). */
	bool inlined;
};

/** How a thread of an interpreter stands to its global lock (JSON's runtime.threads[].gil). */
enum ct_gil_state { CT_GIL_UNKNOWN, CT_GIL_HELD, CT_GIL_WAITING, CT_GIL_RELEASED, CT_GIL_NUM_ };
/** "held", "waiting", "released"; NULL for unknown. */
const char *ct_gil_state_to_string(enum ct_gil_state gil);

/** One thread state of the runtime (a PyThreadState), innermost frame first. */
struct ct_runtime_thread {
	int tid; /**< the OS thread id the runtime recorded (native_thread_id) */
	bool in_dump; /**< a thread of the dump has this tid */
	enum ct_gil_state gil;
	struct ct_runtime_frame *frames; /**< owned */
	size_t num_frames;
	/** The chain was cut (a loop, the frame cap, the budget, an unreadable frame). */
	bool truncated;
};

/** A goroutine's status (runtime.g.atomicstatus without its scan bit; JSON's goroutines[].status). */
enum ct_go_status {
	CT_GO_IDLE,
	CT_GO_RUNNABLE,
	CT_GO_RUNNING,
	CT_GO_SYSCALL,
	CT_GO_WAITING,
	CT_GO_DEAD,
	CT_GO_COPYSTACK,
	CT_GO_PREEMPTED,
	CT_GO_UNKNOWN,
	CT_GO_STATUS_NUM_
};
/** Go's own words (runtime's gStatusStrings): "idle", "runnable", "running", "syscall", "waiting",
 * "dead", "copystack", "preempted"; "unknown" for a value Go does not define. */
const char *ct_go_status_to_string(enum ct_go_status status);

/** Where a goroutine's stack was unwound from (JSON's goroutines[].stack_from). */
enum ct_go_stack_from {
	CT_GO_STACK_NONE, /**< not unwound: running on its thread (the thread's native stack is its stack) */
	CT_GO_STACK_SCHED, /**< g.sched: where it was switched out */
	CT_GO_STACK_SYSCALL, /**< g.syscallpc/syscallsp: where it entered the system call */
	CT_GO_STACK_THREAD, /**< the registers of the thread it runs on (past a signal frame: the interrupted context) */
	CT_GO_STACK_FROM_NUM_
};
/** "none", "sched", "syscall", "thread". */
const char *ct_go_stack_from_to_string(enum ct_go_stack_from from);

/** One goroutine of a Go program (a runtime.g of runtime.allgs), innermost frame first. */
struct ct_goroutine {
	int64_t id; /**< goid */
	enum ct_go_status status;
	uint32_t raw_status; /**< atomicstatus as read (with the scan bit) */
	/** The wait reason in the runtime's words ("chan receive"), NULL when none or not waiting. */
	const char *wait;
	/** The OS thread of its M (m.procid), 0 when it has none. */
	int tid;
	bool locked_to_thread; /**< lockedm set (LockOSThread) */
	/** The goroutine running on the crashing thread (the panicking one). */
	bool crashed;
	enum ct_go_stack_from stack_from;
	struct ct_runtime_frame *frames; /**< owned */
	size_t num_frames;
	/** The go statement that created it (gopc); function NULL when none (goroutine 1). */
	struct ct_runtime_frame created_by;
	/** The walk was cut (the frame cap, the budget, an unreadable frame). */
	bool truncated;
	/** The sync package call it is parked in ("sync.Mutex.Lock", "sync.WaitGroup.Wait"), from its
	 * frames; NULL when none. Static. */
	const char *sync;
	/** The lock that call waits for ("sync.Mutex", "sync.RWMutex"), NULL for WaitGroup/Cond. Static. */
	const char *sync_object;
	/** The semaphore runtime.semacquire1 waits on (its first argument, from its spill slot). */
	bool has_sema;
	uint64_t sema;
	/** The Mutex/RWMutex itself: the semaphore's address minus the field's offset. */
	bool has_object;
	uint64_t object;
};

/** The language runtime found in the process (docs/runtimes.md): Python's thread states or Go's goroutines. */
struct ct_runtime {
	bool present;
	const char *language; /**< "python", pooled */
	const char *version; /**< "3.11.2", pooled */
	/** Where the layouts came from: "dwarf" or "table". Pooled. */
	const char *layout;
	struct ct_runtime_thread *threads; /**< owned, in the runtime's order */
	size_t num_threads;
	/** Go: the goroutines, the crashed one first, then by id; owned. */
	struct ct_goroutine *goroutines;
	size_t num_goroutines;
	/** Go: where runtime.allgs and runtime.firstmoduledata were found: "symbols" or "search". Pooled. */
	const char *found_by;
	/** Go: runtime.allgs was cut (its length past the cap, the budget, unreadable elements). */
	bool goroutines_truncated;
};
/** Frees what @p rt owns (called by ct_report_deinit). */
void ct_runtime_free(struct ct_runtime *rt);
/** The runtime thread with @p tid, NULL when none. */
const struct ct_runtime_thread *ct_runtime_find_thread(const struct ct_runtime *rt, int tid);

struct ct_report {
	struct ct_strpool strings;
	struct ct_input input;
	struct ct_process process;
	struct ct_signal_info signal;
	struct ct_crash crash;
	/** tid of the crashing thread (CPU number for vmcores), valid when has_crashing_thread. */
	bool has_crashing_thread;
	int crashing_thread;
	/** Threads: crashing thread first, then by tid. Owned array. */
	struct ct_thread *threads;
	size_t num_threads;
	struct ct_module *modules; /**< sorted by base; owned array */
	size_t num_modules;
	struct ct_disasm_line *disasm; /**< around the faulting pc; owned array */
	size_t num_disasm;
	struct ct_abort_message abort_message;
	struct ct_signature signature;
	struct ct_kernel kernel;
	struct ct_diagnostics diagnostics;
	/** Free-form key/values about the environment (e.g. systemd-coredump metadata). */
	struct ct_detail *environment;
	size_t num_environment;
	/** Who waits for whom (docs/hangs.md). */
	struct ct_hang hang;
	/** When it died, what ran, what the logs said (docs/trail.md). */
	struct ct_trail trail;
	/** Where the bad value came from (docs/root-cause.md). */
	struct ct_root_cause root_cause;
	/** The glibc heap around the crash's pointer (docs/root-cause.md). */
	struct ct_heap_state heap;
	/** The language runtime's own stacks (Python), when the process runs one. */
	struct ct_runtime runtime;
	/** The capture of a live process (input.kind "live"). */
	struct ct_live live;
};

/** Initializes an empty report. Returns false when out of memory. */
bool ct_report_init(struct ct_report *report);
/** Frees everything the report owns. */
void ct_report_deinit(struct ct_report *report);

/** Copies @p s into the report's pool; NULL in gives NULL out. NULL on allocation failure. */
const char *ct_report_strdup(struct ct_report *report, const char *s);
/** printf into the report's pool. */
const char *ct_report_printf(struct ct_report *report, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * The diagnostic codes (docs/diagnostics.md), in the order of their table in src/model/diag_codes.c
 * (sorted by their strings, which the report carries in ct_diagnostic.code).
 */
enum ct_diag_code {
	CT_DIAG_ALIASED_MAPPINGS,
	CT_DIAG_ARCH_FROM_VMCOREINFO,
	CT_DIAG_ARCH_UNSUPPORTED,
	CT_DIAG_BLAME_NO_SYMBOLS,
	CT_DIAG_BUDGET_COPY,
	CT_DIAG_BUDGET_DEBUG,
	CT_DIAG_BUDGET_ELEMENTS,
	CT_DIAG_BUDGET_EXPR,
	CT_DIAG_BUDGET_FILES,
	CT_DIAG_BUDGET_FRAMES,
	CT_DIAG_BUDGET_NODES,
	CT_DIAG_BUDGET_TEMP,
	CT_DIAG_BUDGET_TEXT,
	CT_DIAG_BUILD_ID_MISMATCH,
	CT_DIAG_COMPRESSED_CORE_BROKEN,
	CT_DIAG_CORRUPT_HEADER,
	CT_DIAG_CORRUPT_NOTE,
	CT_DIAG_CORRUPT_SEGMENT,
	CT_DIAG_CPU_CAP,
	CT_DIAG_CRASH_TIME_OUT_OF_RANGE,
	CT_DIAG_DEBUG_INFO_UNUSABLE,
	CT_DIAG_DEBUGINFOD,
	CT_DIAG_DWZ_FILE_MISSING,
	CT_DIAG_ENTRY_VALUE_CAP,
	CT_DIAG_EXECUTABLE_MISSING,
	CT_DIAG_FRAME_CAP,
	CT_DIAG_FRAME_FROM_LOG,
	CT_DIAG_INSN_UNDECODABLE,
	CT_DIAG_JOURNAL_UNREADABLE,
	CT_DIAG_KDUMP_BLOCK_SIZE,
	CT_DIAG_KDUMP_NO_UTSNAME,
	CT_DIAG_LIMIT,
	CT_DIAG_LINK_MAP,
	CT_DIAG_LOG_BEFORE_WINDOW,
	CT_DIAG_LOG_BINARY,
	CT_DIAG_LOG_COMPRESSED,
	CT_DIAG_LOG_CORRUPT,
	CT_DIAG_LOG_NO_BOOT_TIME,
	CT_DIAG_LOG_NO_TIMES,
	CT_DIAG_LOG_UNREADABLE,
	CT_DIAG_LOGS_CAP,
	CT_DIAG_MODULE_DEBUG_FILE_ONLY,
	CT_DIAG_MODULE_DEBUG_UNREADABLE,
	CT_DIAG_MODULE_FILE_MISSING,
	CT_DIAG_MODULE_LIST_CUT,
	CT_DIAG_MODULE_NO_DWARF,
	CT_DIAG_MODULE_NO_SYMBOLS,
	CT_DIAG_MODULE_UNUSABLE,
	CT_DIAG_NO_ADDRESS_TRANSLATION,
	CT_DIAG_NO_BTF,
	CT_DIAG_NO_BUILD_ID,
	CT_DIAG_NO_COREDUMP_ENTRY,
	CT_DIAG_NO_CPU_NOTES,
	CT_DIAG_NO_CRASH_TIME,
	CT_DIAG_NO_FILE_LIST,
	CT_DIAG_NO_INIT_TASK,
	CT_DIAG_NO_KALLSYMS,
	CT_DIAG_NO_KERNEL_LOG,
	CT_DIAG_NO_KERNEL_MODULES,
	CT_DIAG_NO_MEMORY,
	CT_DIAG_NO_NOTES,
	CT_DIAG_NO_PANIC_CPU,
	CT_DIAG_NO_PANIC_RECORD,
	CT_DIAG_NO_RUNQUEUES,
	CT_DIAG_NO_TASK_LAYOUT,
	CT_DIAG_NO_TASKS,
	CT_DIAG_NO_VMCOREINFO,
	CT_DIAG_QEMU_DUMP,
	CT_DIAG_RUNTIME_NO_LAYOUT,
	CT_DIAG_RUNTIME_UNREADABLE,
	CT_DIAG_SNAPSHOT,
	CT_DIAG_STACK_NOT_DUMPED,
	CT_DIAG_SWAPPED_ARGUMENTS,
	CT_DIAG_TAIL_CALL_AMBIGUOUS,
	CT_DIAG_TAIL_CALL_UNKNOWN,
	CT_DIAG_TASK_CAP,
	CT_DIAG_TASK_LIST_CUT,
	CT_DIAG_TASK_UNREADABLE,
	CT_DIAG_TRUNCATED_CORE,
	CT_DIAG_TRUNCATED_DUMP,
	CT_DIAG_UNVERIFIED_FILE,
	CT_DIAG_UNWIND_FAILED,
	CT_DIAG_UNWIND_STEP_BUDGET,
	CT_DIAG_VALUE_CAP,
	CT_DIAG_VMLINUX_NO_DWARF,
	CT_DIAG_VMLINUX_UNREADABLE,
	CT_DIAG_NUM_
};

/** Appends a diagnostic (message printf-formatted). Returns false when out of memory. */
bool ct_report_diag(struct ct_report *report, enum ct_severity severity, int tid, enum ct_diag_code code,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/**
 * Where a stage below the pipeline writes its text: a string pool and a diagnostics list, both
 * borrowed from the report the pipeline fills, so that what the stage makes moves into the report
 * without a copy. A stage handed a sink reads and writes nothing else of the report.
 */
struct ct_sink {
	struct ct_strpool *strings;
	struct ct_diagnostics *diagnostics;
};
/** The sink of @p report: its pool and its diagnostics. */
struct ct_sink ct_report_sink(struct ct_report *report);
/** Appends a diagnostic to @p sink (message printf-formatted, pooled). False when out of memory or capped. */
bool ct_sink_diag(const struct ct_sink *sink, enum ct_severity severity, int tid, enum ct_diag_code code,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/** True when any diagnostic is at warning level or higher. */
bool ct_report_has_warnings(const struct ct_report *report);
/** True when nothing was lost: no warning and every thread has frames (exit status 0, not 1). */
bool ct_report_is_complete(const struct ct_report *report);

/** Appends a thread; returns it (zeroed) or NULL when out of memory. */
struct ct_thread *ct_report_add_thread(struct ct_report *report);
/** Appends a frame to @p thread; returns it (zeroed) or NULL when out of memory. */
struct ct_frame *ct_thread_add_frame(struct ct_thread *thread);
/** Appends a variable to @p thread's pool; returns it (zeroed) or NULL when out of memory. */
struct ct_variable *ct_thread_add_variable(struct ct_thread *thread);
/** Frees @p count threads' arrays (frames, registers, variables) and @p threads itself; accepts NULL. */
void ct_threads_free(struct ct_thread *threads, size_t count);
/** Appends a module; returns it (zeroed, build_id_match = -1) or NULL. */
struct ct_module *ct_report_add_module(struct ct_report *report);
/** An empty crash: class unknown, confidence low, no access, no blamed frame (@p strings unused: kept for the API). */
void ct_crash_init(struct ct_crash *crash, struct ct_strpool *strings);
/** Frees the arrays @p crash owns. */
void ct_crash_free(struct ct_crash *crash);
/** Appends a crash evidence line (printf, pooled in @p strings). */
bool ct_crash_add_evidence(struct ct_crash *crash, struct ct_strpool *strings, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/** Appends a detail to the crash (string / int / address / bool); a key already there is replaced. */
bool ct_crash_add_detail_string(struct ct_crash *crash, struct ct_strpool *strings, const char *key, const char *value);
bool ct_crash_add_detail_int(struct ct_crash *crash, struct ct_strpool *strings, const char *key, int64_t value);
bool ct_crash_add_detail_address(struct ct_crash *crash, struct ct_strpool *strings, const char *key, uint64_t value);
bool ct_crash_add_detail_bool(struct ct_crash *crash, struct ct_strpool *strings, const char *key, bool value);
/** Frees the arrays @p hang owns. */
void ct_hang_free(struct ct_hang *hang);
/** Appends an environment entry. */
bool ct_report_add_environment(struct ct_report *report, const char *key, const char *value);

/** The crashing thread (the one with crashed = true), or NULL. */
struct ct_thread *ct_report_crashing_thread(const struct ct_report *report);
/** The module containing @p address, or NULL. */
const struct ct_module *ct_report_find_module(const struct ct_report *report, uint64_t address);

/**
 * Label of hang.locks[@p index] for people: "mutex `orders`", "condition at 0x7f…", "mutex `&to->lock`
 * (0x55…)" for a name from a frame. Written to @p buf (NUL-terminated) and returned.
 */
const char *ct_hang_lock_label(const struct ct_hang *hang, long index, char *buf, size_t size);

/** Signal name ("SIGSEGV") or NULL for an unknown number. */
const char *ct_signal_name(int signo);
/** si_code name for @p signo ("SEGV_MAPERR", "SI_TKILL"), or NULL when unknown. */
const char *ct_signal_code_name(int signo, int code);

#ifdef __cplusplus
}
#endif
#endif
