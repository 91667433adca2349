/**
 * @file elfcore.h
 * An ELF process core: mmapped, its program headers turned into a sorted segment table, its notes
 * parsed into threads, process info, siginfo, auxv and the file mappings (NT_FILE).
 *
 * Nothing here trusts the file: every offset is bounds-checked, every count capped (the caps are
 * below, each with its reason), and a core cut short still opens, with what was lost recorded in
 * `problems`.
 */
#ifndef CT_ELFCORE_H
#define CT_ELFCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "coretriage/error.h"
#include "dump/thread.h"
#include "util/bytes.h"

/** Program headers: 131,070 are seen in real (stress) cores; 2^20 keeps the segment table under 40 MiB. */
#define CT_MAX_PHDRS (1u << 20)
/** Threads (NT_PRSTATUS notes): bounded by the caller's max_threads as well. */
#define CT_MAX_CORE_THREADS 100000
/** NT_FILE entries: a process with thousands of libraries has ~10^4 mappings. */
#define CT_MAX_FILE_ENTRIES 1000000
/** PT_NOTE segments: process cores have one, vmcores one per CPU at most (kexec-tools merges them). */
#define CT_MAX_NOTE_SEGMENTS 64
/** Notes in one core: a thread contributes ~5, so this is ~200k threads. */
#define CT_MAX_NOTES 1000000
/** NT_AUXV pairs: the kernel saves at most AT_VECTOR_SIZE (~50); 4096 is generous and bounded. */
#define CT_MAX_AUXV 4096
/** Path length in NT_FILE: PATH_MAX on Linux; longer names cannot have come from the kernel. */
#define CT_MAX_PATH 4096
/** Problems recorded before further ones are only counted. */
#define CT_MAX_PROBLEMS 64

struct ct_segment {
	uint64_t vaddr, memsz;
	/** Bytes of the segment present in the file (after clipping a truncated core). */
	uint64_t offset, filesz;
	uint32_t flags; /**< PF_R | PF_W | PF_X */
};

struct ct_file_mapping {
	uint64_t start, end;
	/** Offset in the file, in bytes. */
	uint64_t file_offset;
	/** Owned, NUL-terminated. */
	char *path;
};

struct ct_core_problem {
	/** CT_DIAG_TRUNCATED_CORE, CT_DIAG_CORRUPT_NOTE, …; reported with the code's default severity */
	enum ct_diag_code code;
	char *message; /**< owned */
};

struct ct_core {
	/** The dump's bytes; borrowed: the caller's mapping (or buffer) outlives the core. */
	const uint8_t *map;
	size_t size;
	/** map when the core owns it (a live capture's copied bytes, live/dump_live.c); freed with it. */
	uint8_t *owned_map;
	/** When a live capture was taken, seconds since the epoch; 0 for a core file (it does not say). */
	int64_t captured_at;
	bool big_endian;
	uint8_t elf_class;
	/** e_phentsize: the stride of the program header table (>= the class's Phdr size). */
	unsigned phentsize;
	uint16_t e_machine;
	/** NULL when the architecture has no table (the core still opens; unwinding is unsupported). */
	const struct ct_arch_info *arch;
	const char *arch_name;
	/** PT_LOAD segments sorted by vaddr; owned. */
	struct ct_segment *segments;
	/** The segment ct_core_find_segment found last, tried first: reads cluster on a stack (one
	 * value per frame of a 100,000-frame recursion). A cache, written through const pointers. */
	size_t segment_hint;
	size_t num_segments;
	/** True when the file is shorter than its program headers say. */
	bool truncated;
	struct ct_core_thread *threads; /**< owned, note order (the dumping thread first) */
	size_t num_threads;
	bool threads_capped;

	bool has_prpsinfo;
	int pid, ppid;
	unsigned uid, gid;
	char fname[17];
	char psargs[81];

	bool has_siginfo;
	int si_signo, si_errno, si_code;
	bool si_has_addr, si_has_sender;
	uint64_t si_addr;
	int si_pid, si_uid;

	uint64_t *auxv; /**< owned: type, value pairs */
	size_t num_auxv;
	struct ct_file_mapping *files; /**< owned, note order */
	size_t num_files;
	uint64_t file_page_size;

	struct ct_core_problem problems[CT_MAX_PROBLEMS];
	size_t num_problems;
	size_t num_problems_dropped;
	/** More notes than CT_MAX_NOTES: the rest (maybe the signal, the crashing thread) were not read. */
	bool notes_capped;
};

/**
 * Parses the core in memory at @p data (not owned: it must outlive the core; process.c maps the file).
 * @p max_threads caps the threads kept (the rest are counted).
 * Errors: CT_ERROR_CORRUPT (not an ELF core, headers unreadable), CT_ERROR_INVALID_ARGUMENT (an ELF
 * file that is not a core; message says which kind).
 */
struct ct_error *ct_core_open_memory(const uint8_t *data, size_t size, size_t max_threads,
				     struct ct_core **ret);
void ct_core_destroy(struct ct_core *core);

/** Records a problem (printf). Never fails: beyond the cap it is only counted. */
void ct_core_problem(struct ct_core *core, enum ct_diag_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** The segment containing @p addr, or NULL. O(log n). */
const struct ct_segment *ct_core_find_segment(const struct ct_core *core, uint64_t addr);

/**
 * Reads @p len bytes at @p addr of the dumped address space into @p buf.
 * Errors: CT_ERROR_FAULT (no segment maps it), CT_ERROR_NODATA (mapped but not in the dump).
 */
struct ct_error *ct_core_read(const struct ct_core *core, uint64_t addr, void *buf, size_t len);
/** Like ct_core_read but returns false instead of an error (hot paths: unwinding). */
bool ct_core_read_fast(const struct ct_core *core, uint64_t addr, void *buf, size_t len);
/** Reads a target word (pointer size, target byte order). */
bool ct_core_read_word(const struct ct_core *core, uint64_t addr, uint64_t *ret);
/** Reads a NUL-terminated string of at most @p max bytes into a new malloc'd string. */
struct ct_error *ct_core_read_string(const struct ct_core *core, uint64_t addr, size_t max, char **ret);
/** Value of auxv entry @p type, false when absent. */
bool ct_core_auxv(const struct ct_core *core, uint64_t type, uint64_t *ret);

/** Takes the auxiliary vector @p desc (NT_AUXV's layout: type, value words of the core's class, up to
 * AT_NULL, at most CT_MAX_AUXV pairs) as the core's auxv, unless it has one already. */
void ct_core_take_auxv(struct ct_core *core, const struct ct_bytes *desc);

/**
 * Parses the notes of all PT_NOTE segments (called by ct_core_open_memory). Internal, in notes.c.
 * The program header table is at @p phoff: @p phnum entries of core->phentsize bytes, in the file.
 */
void ct_core_parse_notes(struct ct_core *core, uint64_t phoff, size_t phnum, size_t max_threads);

#endif
