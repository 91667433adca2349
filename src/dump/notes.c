// Core notes: NT_PRSTATUS (threads), NT_FPREGSET and NT_X86_XSTATE (their float/vector registers),
// NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE.
// Layouts: Linux include/uapi/linux/elfcore.h and fs/binfmt_elf.c (fill_note_info), v6.1.
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/signal_numbers.h"
#include "dump/elfcore.h"
#include "dump/elfview.h"
#include "util/bytes.h"
#include "util/grow.h"

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

struct note_ctx {
	struct ct_core *core;
	size_t max_threads;
	size_t threads_capacity;
	size_t threads_seen;
	size_t notes_seen;
	bool saw_file, saw_siginfo, saw_prpsinfo;
	/** The last NT_PRSTATUS became core->threads[num_threads - 1] (its register notes follow it). */
	bool last_thread_kept;
};

// pr_utime and pr_stime: struct timeval {long tv_sec; long tv_usec;} each, where the arch table says.
static void read_cpu_time(const struct ct_arch_info *arch, const struct ct_bytes *desc, struct ct_core_thread *t)
{
	unsigned w = arch->prstatus_time_word, off = arch->prstatus_utime_offset;
	if (!off || (w != 4 && w != 8) || !ct_in_bounds(desc->size, off, 4 * w))
		return;
	uint64_t usec[2];
	for (int i = 0; i < 2; i++) {
		uint64_t sec = ct_bytes_uint_or0(desc, off + 2 * w * i, w);
		uint64_t us = ct_bytes_uint_or0(desc, off + 2 * w * i + w, w);
		// A kernel writes tv_usec < 10^6 and a sane tv_sec; anything else is not a time.
		if (us >= 1000000 || sec > UINT64_C(1) << 40)
			return;
		usec[i] = sec * 1000000 + us;
	}
	t->has_cpu_time = true;
	t->user_usec = usec[0];
	t->system_usec = usec[1];
}

static void parse_prstatus(struct note_ctx *ctx, const struct ct_bytes *desc)
{
	struct ct_core *core = ctx->core;
	bool is64 = core->elf_class == ELFCLASS64;
	ctx->threads_seen++;
	ctx->last_thread_kept = false;
	if (core->num_threads >= ctx->max_threads) {
		core->threads_capped = true;
		return;
	}
	if (!CT_GROW(core->threads, ctx->threads_capacity, core->num_threads + 1, 4, 0)) {
		ct_core_problem(core, CT_DIAG_NO_MEMORY, "out of memory reading threads");
		return;
	}
	struct ct_core_thread *t = &core->threads[core->num_threads];
	memset(t, 0, sizeof(*t));
	// struct elf_prstatus: pr_info (3 ints), pr_cursig (short) at 12, then sigpend/sighold (longs),
	// then pr_pid, pr_ppid.
	unsigned pid_off = is64 ? 32 : 24;
	if (desc->size < pid_off + 8) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_PRSTATUS of %zu bytes is too small", desc->size);
		return;
	}
	t->cursig = ct_arch_generic_signal(core->arch, (int)ct_bytes_uint_or0(desc, 12, 2));
	t->tid = (int)ct_bytes_uint_or0(desc, pid_off, 4);
	t->ppid = (int)ct_bytes_uint_or0(desc, pid_off + 4, 4);
	if (core->arch && core->num_threads == 0) {
		// The first thread's note decides between ABIs of one ELF header (mips o32 and n32).
		core->arch = ct_arch_for_prstatus(core->arch, desc->size);
		core->arch_name = core->arch->name;
	}
	const struct ct_arch_info *arch = core->arch;
	if (arch)
		read_cpu_time(arch, desc, t);
	if (arch) {
		struct ct_bytes regs;
		if (!ct_bytes_sub(desc, arch->prstatus_reg_offset, arch->prstatus_reg_size, &regs)) {
			ct_core_problem(core, CT_DIAG_CORRUPT_NOTE,
					"NT_PRSTATUS of thread %d has no room for %s registers (%zu bytes)", t->tid,
					arch->name, desc->size);
		} else {
			ct_thread_read_pr_reg(arch, &regs, t);
		}
	}
	core->num_threads++;
	ctx->last_thread_kept = true;
}

// NT_FPREGSET and NT_X86_XSTATE belong to the thread whose NT_PRSTATUS came last (the kernel
// writes each thread's notes together); kept as views into the core, read on demand.
static void keep_register_note(struct note_ctx *ctx, const struct ct_bytes *desc, bool xstate)
{
	struct ct_core *core = ctx->core;
	if (!ctx->last_thread_kept || !core->num_threads)
		return;
	struct ct_core_thread *t = &core->threads[core->num_threads - 1];
	struct ct_bytes *slot = xstate ? &t->xstate : &t->fpregset;
	if (!slot->size)
		*slot = *desc;
}

static void copy_cstr(char *dst, size_t dstsize, const struct ct_bytes *b, size_t off, size_t max)
{
	size_t n = 0;
	if (off < b->size) {
		size_t avail = b->size - off < max ? b->size - off : max;
		const uint8_t *p = b->data + off;
		while (n < avail && n + 1 < dstsize && p[n])
			n++;
		memcpy(dst, p, n);
	}
	dst[n] = '\0';
}

static void parse_prpsinfo(struct note_ctx *ctx, const struct ct_bytes *desc)
{
	struct ct_core *core = ctx->core;
	if (ctx->saw_prpsinfo)
		return;
	ctx->saw_prpsinfo = true;
	// struct elf_prpsinfo: 4 chars, pr_flag (long), uid/gid (__kernel_uid_t: 16-bit on i386 and
	// arm, 32-bit elsewhere), pid, ppid, pgrp, sid, fname[16], psargs[80].
	size_t uid_off, uid_size, pid_off, fname_off;
	if (core->elf_class == ELFCLASS64) {
		uid_off = 16, uid_size = 4, pid_off = 24, fname_off = 40;
	} else if (desc->size == 124) {
		uid_off = 8, uid_size = 2, pid_off = 12, fname_off = 28;
	} else {
		uid_off = 8, uid_size = 4, pid_off = 16, fname_off = 32;
	}
	if (desc->size < fname_off + 16) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_PRPSINFO of %zu bytes is too small", desc->size);
		return;
	}
	core->has_prpsinfo = true;
	core->uid = (unsigned)ct_bytes_uint_or0(desc, uid_off, uid_size);
	core->gid = (unsigned)ct_bytes_uint_or0(desc, uid_off + uid_size, uid_size);
	core->pid = (int)ct_bytes_uint_or0(desc, pid_off, 4);
	core->ppid = (int)ct_bytes_uint_or0(desc, pid_off + 4, 4);
	copy_cstr(core->fname, sizeof(core->fname), desc, fname_off, 16);
	copy_cstr(core->psargs, sizeof(core->psargs), desc, fname_off + 16, 80);
}

static void parse_siginfo(struct note_ctx *ctx, const struct ct_bytes *desc)
{
	struct ct_core *core = ctx->core;
	if (ctx->saw_siginfo)
		return;
	ctx->saw_siginfo = true;
	bool is64 = core->elf_class == ELFCLASS64;
	size_t union_off = is64 ? 16 : 12;
	if (desc->size < union_off + 8) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_SIGINFO of %zu bytes is too small", desc->size);
		return;
	}
	core->has_siginfo = true;
	bool code_first = core->arch && core->arch->siginfo_code_first;
	core->si_signo = ct_arch_generic_signal(core->arch, (int)ct_bytes_uint_or0(desc, 0, 4));
	core->si_errno = (int)ct_bytes_uint_or0(desc, code_first ? 8 : 4, 4);
	core->si_code = (int)ct_bytes_uint_or0(desc, code_first ? 4 : 8, 4);
	if (core->si_code <= 0) {
		// SI_USER, SI_QUEUE, SI_TKILL, …: the sender is in _kill/_rt.
		core->si_has_sender = true;
		core->si_pid = (int)ct_bytes_uint_or0(desc, union_off, 4);
		core->si_uid = (int)ct_bytes_uint_or0(desc, union_off + 4, 4);
	} else if (ct_signal_is_fault(core->si_signo)) {
		core->si_has_addr = true;
		core->si_addr = ct_bytes_uint_or0(desc, union_off, is64 ? 8 : 4);
	}
}

void ct_core_take_auxv(struct ct_core *core, const struct ct_bytes *desc)
{
	if (core->auxv)
		return;
	unsigned w = core->elf_class == ELFCLASS64 ? 8 : 4;
	size_t n = desc->size / (2 * w);
	if (n > CT_MAX_AUXV) {
		ct_core_problem(core, CT_DIAG_LIMIT, "NT_AUXV holds %zu entries; only the first %u are read (cap CT_MAX_AUXV)", n,
				CT_MAX_AUXV);
		n = CT_MAX_AUXV;
	}
	core->auxv = calloc(n ? n * 2 : 2, sizeof(uint64_t));
	if (!core->auxv)
		return;
	size_t i;
	for (i = 0; i < n; i++) {
		uint64_t type = ct_bytes_uint_or0(desc, 2 * w * i, w);
		uint64_t val = ct_bytes_uint_or0(desc, 2 * w * i + w, w);
		if (type == AT_NULL)
			break;
		core->auxv[2 * i] = type;
		core->auxv[2 * i + 1] = val;
	}
	core->num_auxv = i;
}

static void parse_file(struct note_ctx *ctx, const struct ct_bytes *desc)
{
	struct ct_core *core = ctx->core;
	if (ctx->saw_file)
		return;
	ctx->saw_file = true;
	unsigned w = core->elf_class == ELFCLASS64 ? 8 : 4;
	uint64_t count, page_size;
	if (!ct_bytes_uint(desc, 0, w, &count) || !ct_bytes_uint(desc, w, w, &page_size)) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_FILE note too small");
		return;
	}
	uint64_t table;
	if (count > CT_MAX_FILE_ENTRIES) {
		ct_core_problem(core, CT_DIAG_LIMIT, "NT_FILE claims %" PRIu64 " entries, over the cap of %u (CT_MAX_FILE_ENTRIES); "
				"the file list is ignored", count, CT_MAX_FILE_ENTRIES);
		return;
	}
	// The name strings follow the whole table: a count that does not fit means the layout is lost.
	if (ct_mul_overflow(count, 3 * w, &table) || !ct_in_bounds(desc->size, 2 * w, table)) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE,
				"NT_FILE claims %" PRIu64 " entries, more than its %zu bytes can hold; the file list is ignored",
				count, desc->size);
		return;
	}
	if (page_size == 0 || page_size > (1u << 30) || (page_size & (page_size - 1))) {
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_FILE page size %" PRIu64 " is not a power of two", page_size);
		page_size = 4096;
	}
	core->file_page_size = page_size;
	core->files = calloc(count ? count : 1, sizeof(*core->files));
	if (!core->files)
		return;
	size_t str_off = 2 * w + table;
	size_t kept = 0, long_paths = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t start = ct_bytes_uint_or0(desc, 2 * w + i * 3 * w, w);
		uint64_t end = ct_bytes_uint_or0(desc, 2 * w + i * 3 * w + w, w);
		uint64_t pgoff = ct_bytes_uint_or0(desc, 2 * w + i * 3 * w + 2 * w, w);
		if (str_off >= desc->size) {
			ct_core_problem(core, CT_DIAG_CORRUPT_NOTE, "NT_FILE names end after %zu of %" PRIu64 " entries",
					kept, count);
			break;
		}
		const char *name = (const char *)desc->data + str_off;
		size_t len = strnlen(name, desc->size - str_off);
		str_off += len + 1;
		if (len > CT_MAX_PATH) {
			if (!long_paths++)
				ct_core_problem(core, CT_DIAG_CORRUPT_NOTE,
						"NT_FILE entry %" PRIu64 " has a %zu-byte path; paths are cut at %u bytes (cap CT_MAX_PATH)",
						i, len, CT_MAX_PATH);
			len = CT_MAX_PATH;
		}
		uint64_t file_offset;
		if (end <= start || ct_mul_overflow(pgoff, page_size, &file_offset))
			continue;
		char *path = strndup(name, len);
		if (!path)
			break;
		core->files[kept].start = start;
		core->files[kept].end = end;
		core->files[kept].file_offset = file_offset;
		core->files[kept].path = path;
		kept++;
	}
	core->num_files = kept;
}

static void parse_note(struct note_ctx *ctx, const struct ct_elf_note *n)
{
	if (!ct_elf_note_is(n, "CORE"))
		return;
	switch (n->type) {
	case NT_PRSTATUS: parse_prstatus(ctx, &n->desc); break;
	case NT_PRPSINFO: parse_prpsinfo(ctx, &n->desc); break;
	case NT_SIGINFO: parse_siginfo(ctx, &n->desc); break;
	case NT_AUXV: ct_core_take_auxv(ctx->core, &n->desc); break;
	case NT_FILE: parse_file(ctx, &n->desc); break;
	case NT_FPREGSET: keep_register_note(ctx, &n->desc, false); break;
	case NT_X86_XSTATE: keep_register_note(ctx, &n->desc, true); break;
	default: break;
	}
}

// Walks the notes of one PT_NOTE segment; stops with a problem at the first malformed one.
static void parse_note_segment(struct note_ctx *ctx, const struct ct_bytes *seg)
{
	struct ct_core *core = ctx->core;
	struct ct_note_iter it;
	struct ct_elf_note n;
	ct_note_iter_init(&it, seg);
	while (ct_note_iter_next(&it, &n)) {
		if (++ctx->notes_seen > CT_MAX_NOTES) {
			core->notes_capped = true;
			ct_core_problem(core, CT_DIAG_LIMIT, "more than %u notes; the rest are ignored (cap CT_MAX_NOTES)",
					CT_MAX_NOTES);
			return;
		}
		parse_note(ctx, &n);
	}
	if (it.malformed)
		ct_core_problem(core, CT_DIAG_CORRUPT_NOTE,
				"note at offset %" PRIu64 " (namesz %" PRIu64 ", descsz %" PRIu64
				") runs past its segment; later notes are lost",
				it.bad_offset, it.bad_namesz, it.bad_descsz);
}

void ct_core_parse_notes(struct ct_core *core, uint64_t phoff, size_t phnum, size_t max_threads)
{
	struct note_ctx ctx = { .core = core, .max_threads = max_threads };
	if (ctx.max_threads > CT_MAX_CORE_THREADS)
		ctx.max_threads = CT_MAX_CORE_THREADS;
	size_t phent = core->phentsize ? core->phentsize : ct_elf_phdr_size(core->elf_class);
	struct ct_bytes whole = { core->map, core->size, core->big_endian };
	bool any = false;
	// (offset, size) of the note segments parsed so far: a hostile core can point 10^6 program
	// headers at the same notes, turning a few KiB into 10^5 threads.
	uint64_t seen[CT_MAX_NOTE_SEGMENTS][2];
	size_t num_seen = 0, skipped = 0;
	for (size_t i = 0; i < phnum; i++) {
		struct ct_elf_phdr ph;
		if (!ct_elf_phdr_read(&whole, core->elf_class, phoff + i * phent, &ph) || ph.type != PT_NOTE)
			continue;
		any = true;
		uint64_t off = ph.offset, filesz = ph.filesz;
		bool dup = false;
		for (size_t j = 0; j < num_seen && !dup; j++)
			dup = seen[j][0] == off && seen[j][1] == filesz;
		if (dup || num_seen == CT_MAX_NOTE_SEGMENTS) {
			skipped++;
			continue;
		}
		seen[num_seen][0] = off;
		seen[num_seen][1] = filesz;
		num_seen++;
		struct ct_bytes seg;
		if (!ct_bytes_sub(&whole, off, filesz, &seg)) {
			// Keep what is there of a cut note segment.
			if (off >= core->size) {
				ct_core_problem(core, CT_DIAG_TRUNCATED_CORE, "the notes segment lies past the end of the file");
				core->truncated = true;
				continue;
			}
			seg.data = core->map + off;
			seg.size = core->size - off;
			seg.big_endian = core->big_endian;
			ct_core_problem(core, CT_DIAG_TRUNCATED_CORE, "the notes segment is cut short (%zu of %" PRIu64 " bytes)",
					seg.size, filesz);
			core->truncated = true;
		}
		parse_note_segment(&ctx, &seg);
	}
	if (skipped)
		ct_core_problem(core, CT_DIAG_LIMIT,
				"%zu PT_NOTE segments not read: repeats of another, or beyond the cap of %u (CT_MAX_NOTE_SEGMENTS)",
				skipped, CT_MAX_NOTE_SEGMENTS);
	if (!any)
		ct_core_problem(core, CT_DIAG_NO_NOTES, "the core has no notes: no threads, registers or file list");
	if (core->threads_capped)
		ct_core_problem(core, CT_DIAG_LIMIT,
				"%zu threads in the core; only the first %zu are analyzed (cap: --max-threads, at most %u)",
				ctx.threads_seen, ctx.max_threads, CT_MAX_CORE_THREADS);
}
