// `--gcore FILE`: a live snapshot written as the ELF core the kernel or gdb's gcore would write (the
// same notes in the kernel's order, one PT_LOAD per mapping part, ct_live_mapping_parts). The
// analysis of -p does not go through this file: dump_live.c presents the snapshot as a dump.
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "live/internal.h"
#include "util/grow.h"
#include "util/writefile.h"

#define PAGE 4096u

struct buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->failed || !n)
		return;
	if (!CT_GROW(b->data, b->cap, b->len + n, 4096, 0)) {
		b->failed = true;
		return;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void pad4(struct buf *b)
{
	static const uint8_t zeros[4];
	put(b, zeros, (4 - b->len % 4) % 4);
}

static void note(struct buf *b, const char *name, uint32_t type, const void *desc, size_t size)
{
	Elf64_Nhdr nh = { .n_namesz = (Elf64_Word)strlen(name) + 1, .n_descsz = (Elf64_Word)size, .n_type = type };
	put(b, &nh, sizeof(nh));
	put(b, name, nh.n_namesz);
	pad4(b);
	put(b, desc, size);
	pad4(b);
}

static void prstatus_note(struct buf *b, const struct ct_live_snapshot *s, const struct ct_live_thread *t)
{
	struct elf_prstatus pr;
	memset(&pr, 0, sizeof(pr));
	// No signal: a snapshot has no crashing thread (pr_cursig 0, no NT_SIGINFO), as gdb's gcore.
	pr.pr_pid = t->tid;
	pr.pr_ppid = s->ppid;
	pr.pr_pgrp = s->pgrp;
	pr.pr_sid = s->sid;
	pr.pr_utime.tv_sec = (long)(t->user_usec / 1000000);
	pr.pr_utime.tv_usec = (long)(t->user_usec % 1000000);
	pr.pr_stime.tv_sec = (long)(t->system_usec / 1000000);
	pr.pr_stime.tv_usec = (long)(t->system_usec % 1000000);
	const struct ct_live_regset *regs = &t->regsets[0];
	memcpy(&pr.pr_reg, regs->bytes, regs->size < sizeof(pr.pr_reg) ? regs->size : sizeof(pr.pr_reg));
	pr.pr_fpvalid = t->num_regsets > 1;
	note(b, "CORE", NT_PRSTATUS, &pr, sizeof(pr));
}

static void regset_notes(struct buf *b, const struct ct_live_thread *t)
{
	// The kernel names the classic sets "CORE" and the later ones (NT_X86_XSTATE, …) "LINUX".
	for (size_t i = 1; i < t->num_regsets; i++)
		note(b, t->regsets[i].note_type == NT_FPREGSET ? "CORE" : "LINUX", t->regsets[i].note_type,
		     t->regsets[i].bytes, t->regsets[i].size);
}

static void prpsinfo_note(struct buf *b, const struct ct_live_snapshot *s)
{
	struct elf_prpsinfo ps;
	memset(&ps, 0, sizeof(ps));
	static const char states[] = "RSDTZW";
	const char *at = s->state ? strchr(states, s->state) : NULL;
	ps.pr_state = at ? (char)(at - states) : 0;
	ps.pr_sname = s->state ? s->state : 'R';
	ps.pr_uid = s->uid;
	ps.pr_gid = s->gid;
	ps.pr_pid = s->pid;
	ps.pr_ppid = s->ppid;
	ps.pr_pgrp = s->pgrp;
	ps.pr_sid = s->sid;
	memcpy(ps.pr_fname, s->comm, strnlen(s->comm, sizeof(ps.pr_fname)));
	memcpy(ps.pr_psargs, s->psargs, strnlen(s->psargs, sizeof(ps.pr_psargs)));
	note(b, "CORE", NT_PRPSINFO, &ps, sizeof(ps));
}

// NT_FILE: count, page size, then (start, end, offset in pages) per file mapping, then the names.
static void file_note(struct buf *b, const struct ct_live_snapshot *s)
{
	struct buf d = { 0 };
	uint64_t count = 0, page = PAGE;
	for (size_t i = 0; i < s->num_mappings; i++)
		count += s->mappings[i].path && s->mappings[i].path[0] == '/';
	put(&d, &count, 8);
	put(&d, &page, 8);
	for (size_t i = 0; i < s->num_mappings; i++) {
		const struct ct_live_mapping *m = &s->mappings[i];
		if (!m->path || m->path[0] != '/')
			continue;
		uint64_t triple[3] = { m->start, m->end, m->file_offset / PAGE };
		put(&d, triple, sizeof(triple));
	}
	for (size_t i = 0; i < s->num_mappings; i++)
		if (s->mappings[i].path && s->mappings[i].path[0] == '/')
			put(&d, s->mappings[i].path, strlen(s->mappings[i].path) + 1);
	if (d.failed)
		b->failed = true;
	else
		note(b, "CORE", NT_FILE, d.data, d.len);
	free(d.data);
}

static struct buf make_notes(const struct ct_live_snapshot *s)
{
	struct buf b = { 0 };
	// The kernel's order: the first thread's NT_PRSTATUS, then the process' notes, then its
	// register sets; each further thread's NT_PRSTATUS followed by its register sets.
	for (size_t i = 0; i < s->num_threads; i++) {
		prstatus_note(&b, s, &s->threads[i]);
		if (i == 0) {
			prpsinfo_note(&b, s);
			if (s->auxv_size)
				note(&b, "CORE", NT_AUXV, s->auxv, s->auxv_size);
			file_note(&b, s);
		}
		regset_notes(&b, &s->threads[i]);
	}
	return b;
}

static uint32_t flags_of(const struct ct_live_mapping *m)
{
	return (m->readable ? PF_R : 0) | (m->writable ? PF_W : 0) | (m->executable ? PF_X : 0);
}

// One program header per mapping, two for one copied from an address past its start (a stack
// from below sp): the part before as filesz 0, the copied part with its bytes.
static struct buf make_phdrs(const struct ct_live_snapshot *s, uint64_t notes_off, uint64_t notes_len,
			     uint64_t data_off, size_t *num_ret)
{
	struct buf b = { 0 };
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = notes_off, .p_filesz = notes_len, .p_align = 4 };
	put(&b, &ph, sizeof(ph));
	size_t n = 1;
	uint64_t off = data_off;
	for (size_t i = 0; i < s->num_mappings; i++) {
		struct ct_live_part parts[2];
		size_t np = ct_live_mapping_parts(&s->mappings[i], parts);
		for (size_t k = 0; k < np; k++) {
			Elf64_Phdr load = { .p_type = PT_LOAD, .p_flags = flags_of(&s->mappings[i]), .p_offset = off,
					    .p_vaddr = parts[k].vaddr, .p_memsz = parts[k].memsz, .p_filesz = parts[k].filesz,
					    .p_align = PAGE };
			put(&b, &load, sizeof(load));
			n++;
			off += parts[k].filesz;
		}
	}
	*num_ret = n;
	return b;
}

struct ct_error *ct_live_write_core(const struct ct_live_snapshot *s, int fd, uint64_t *written_ret)
{
	if (!s->num_threads || !s->threads[0].num_regsets)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "the snapshot has no thread");
	// The host's struct elf_prstatus is the layout written: only 64-bit processes (capture.c).
	if (s->elf_class != ELFCLASS64)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "cores of 32-bit processes are not written");
	struct buf notes = make_notes(s);
	// Two passes over the mappings: the first counts the program headers, whose size places the rest.
	size_t num_ph = 0;
	struct buf ph = make_phdrs(s, 0, 0, 0, &num_ph);
	free(ph.data);
	uint64_t notes_off = sizeof(Elf64_Ehdr) + num_ph * sizeof(Elf64_Phdr);
	uint64_t data_off = (notes_off + notes.len + 7) & ~(uint64_t)7;
	ph = make_phdrs(s, notes_off, notes.len, data_off, &num_ph);
	struct ct_error *err = NULL;
	if (notes.failed || ph.failed) {
		err = &ct_enomem;
		goto out;
	}
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = s->e_machine, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr) };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	// More program headers than e_phnum holds go in section 0's sh_info (PN_XNUM); real processes
	// with 65,535 mappings exist only under stress, and then the core is refused, not cut.
	if (num_ph >= PN_XNUM) {
		err = ct_error_create(CT_ERROR_UNSUPPORTED, "%zu mappings: more than an ELF core without sections holds",
				      num_ph);
		goto out;
	}
	eh.e_phnum = (Elf64_Half)num_ph;
	static const uint8_t zeros[8];
	uint64_t total = data_off;
	if (!ct_write_all(fd, &eh, sizeof(eh)) || !ct_write_all(fd, ph.data, ph.len) || !ct_write_all(fd, notes.data, notes.len) ||
	    !ct_write_all(fd, zeros, data_off - notes_off - notes.len)) {
		err = ct_error_os(errno, "writing the core");
		goto out;
	}
	for (size_t i = 0; i < s->num_mappings; i++) {
		const struct ct_live_mapping *m = &s->mappings[i];
		if (m->copied && !ct_write_all(fd, m->bytes, m->copied)) {
			err = ct_error_os(errno, "writing the core");
			goto out;
		}
		total += m->copied;
	}
	if (written_ret)
		*written_ret = total;
out:
	free(notes.data);
	free(ph.data);
	return err;
}
