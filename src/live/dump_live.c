// A captured live process as a struct ct_dump (dump/dump.h), the third implementation beside ELF
// cores and kernel dumps. The capture is laid out directly as the process image the process stages
// read (struct ct_core): one buffer holds the copied memory, mapping after mapping, with the segment
// table over it; the threads come from the registers PTRACE_GETREGSET returned, the process facts
// and the auxv from /proc. No ELF image is written and no note is parsed (--gcore writes one,
// core_image.c, from the same snapshot and the same mapping layout, ct_live_mapping_parts).
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump.h"
#include "dump/elfcore.h"
#include "live/dump_live.h"
#include "live/internal.h"

static bool live_read(const struct ct_dump *dump, uint64_t addr, void *buf, size_t len)
{
	return ct_core_read_fast(dump->impl, addr, buf, len);
}

static const char *live_fact(const struct ct_dump *dump, const char *key)
{
	(void)dump;
	(void)key;
	return NULL;
}

// A live process is dumped now: the capture's time is the report's crash time.
static bool live_time(const struct ct_dump *dump, struct ct_dump_time *ret)
{
	const struct ct_core *core = dump->impl;
	memset(ret, 0, sizeof(*ret));
	ret->has_crash_time = core->captured_at > 0;
	ret->crash_time = core->captured_at;
	return ret->has_crash_time;
}

static void live_close(struct ct_dump *dump)
{
	ct_core_destroy(dump->impl);
}

static const struct ct_dump_ops live_ops = {
	.what = "live process", .read = live_read, .fact = live_fact, .time = live_time, .close = live_close,
};

static uint32_t flags_of(const struct ct_live_mapping *m)
{
	return (m->readable ? PF_R : 0) | (m->writable ? PF_W : 0) | (m->executable ? PF_X : 0);
}

// The buffer: a minimal ELF header first (libdwfl takes the dump's architecture from an Elf of the
// dump, modules.c), then each thread's float/vector register sets, then the copied memory.
static size_t arena_size(const struct ct_live_snapshot *snap, size_t num_threads)
{
	size_t n = sizeof(Elf64_Ehdr);
	for (size_t i = 0; i < num_threads; i++)
		for (size_t k = 1; k < snap->threads[i].num_regsets; k++)
			n += (snap->threads[i].regsets[k].size + 7) & ~(size_t)7;
	for (size_t i = 0; i < snap->num_mappings; i++)
		n += snap->mappings[i].copied;
	return n;
}

static void write_header(const struct ct_live_snapshot *snap, uint8_t *at)
{
	// The class and byte order are the host's: a capture is of a process of coretriage's own kind.
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = snap->e_machine, .e_version = EV_CURRENT,
			  .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr) };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = snap->elf_class;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(at, &eh, sizeof(eh));
}

// Thread @p t of the snapshot into @p ct; its register sets beyond NT_PRSTATUS are copied to @p *at.
static void take_thread(const struct ct_arch_info *arch, const struct ct_live_snapshot *snap,
			const struct ct_live_thread *t, struct ct_core_thread *ct, uint8_t *arena, size_t *at)
{
	memset(ct, 0, sizeof(*ct));
	ct->tid = t->tid;
	ct->ppid = snap->ppid;
	ct->has_cpu_time = true;
	ct->user_usec = t->user_usec;
	ct->system_usec = t->system_usec;
	const struct ct_live_regset *prs = &t->regsets[0];
	if (prs->size >= arch->prstatus_reg_size) {
		const struct ct_bytes regs = { prs->bytes, arch->prstatus_reg_size, snap->big_endian };
		ct_thread_read_pr_reg(arch, &regs, ct);
	}
	for (size_t k = 1; k < t->num_regsets; k++) {
		const struct ct_live_regset *r = &t->regsets[k];
		// The slots of a core thread: NT_FPREGSET (NT_PRFPREG) and NT_X86_XSTATE, as notes.c keeps them.
		struct ct_bytes *slot = r->note_type == NT_X86_XSTATE ? &ct->xstate
					: r->note_type == NT_FPREGSET ? &ct->fpregset
								       : NULL;
		if (!slot || slot->size)
			continue;
		memcpy(arena + *at, r->bytes, r->size);
		*slot = (struct ct_bytes){ arena + *at, r->size, snap->big_endian };
		*at += (r->size + 7) & ~(size_t)7;
	}
}

static struct ct_error *take_files(const struct ct_live_snapshot *snap, struct ct_core *core)
{
	size_t n = 0;
	for (size_t i = 0; i < snap->num_mappings; i++)
		n += snap->mappings[i].path && snap->mappings[i].path[0] == '/';
	core->files = calloc(n ? n : 1, sizeof(*core->files));
	if (!core->files)
		return &ct_enomem;
	for (size_t i = 0; i < snap->num_mappings; i++) {
		const struct ct_live_mapping *m = &snap->mappings[i];
		if (!m->path || m->path[0] != '/')
			continue;
		struct ct_file_mapping *f = &core->files[core->num_files];
		f->path = strdup(m->path);
		if (!f->path)
			return &ct_enomem;
		f->start = m->start;
		f->end = m->end;
		f->file_offset = m->file_offset;
		core->num_files++;
	}
	core->file_page_size = 4096;
	return NULL;
}

// The segments over the arena from @p at on, and the copied bytes moved into it (each mapping's
// own buffer freed as soon as it is in: the copy is not held twice for long).
static struct ct_error *take_memory(struct ct_live_snapshot *snap, struct ct_core *core, uint8_t *arena, size_t at)
{
	core->segments = calloc(2 * snap->num_mappings + 1, sizeof(*core->segments));
	if (!core->segments)
		return &ct_enomem;
	for (size_t i = 0; i < snap->num_mappings; i++) {
		struct ct_live_mapping *m = &snap->mappings[i];
		struct ct_live_part parts[2];
		size_t np = ct_live_mapping_parts(m, parts);
		for (size_t k = 0; k < np; k++) {
			core->segments[core->num_segments++] = (struct ct_segment){
				.vaddr = parts[k].vaddr, .memsz = parts[k].memsz, .offset = at, .filesz = parts[k].filesz,
				.flags = flags_of(m),
			};
		}
		if (m->copied)
			memcpy(arena + at, m->bytes, m->copied);
		at += m->copied;
		free(m->bytes);
		m->bytes = NULL;
	}
	return NULL;
}

// Not in the probe chain (nothing is probed): the format a live process' report names.
static const struct ct_dump_format live_format = {
	.name = "live", .pipeline = CT_PIPELINE_PROCESS, .container = CT_CONTAINER_ELF, .probe = NULL,
};

struct ct_error *ct_live_dump_open(struct ct_live_snapshot *snap, size_t max_threads, struct ct_dump *ret)
{
	memset(ret, 0, sizeof(*ret));
	const struct ct_arch_info *arch = ct_arch_find(snap->e_machine, snap->elf_class);
	if (!arch)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s processes are not supported",
				       ct_arch_machine_name(snap->e_machine, snap->elf_class));
	size_t num_threads = snap->num_threads < max_threads ? snap->num_threads : max_threads;
	struct ct_core *core = calloc(1, sizeof(*core));
	size_t size = arena_size(snap, num_threads);
	uint8_t *arena = core ? malloc(size) : NULL;
	if (!arena) {
		free(core);
		return &ct_enomem;
	}
	core->owned_map = arena;
	core->map = arena;
	core->size = size;
	core->big_endian = snap->big_endian;
	core->elf_class = snap->elf_class;
	core->e_machine = snap->e_machine;
	core->arch = arch;
	core->arch_name = arch->name;
	core->captured_at = snap->captured_at;
	core->has_prpsinfo = true;
	core->pid = snap->pid;
	core->ppid = snap->ppid;
	core->uid = snap->uid;
	core->gid = snap->gid;
	memcpy(core->fname, snap->comm, sizeof(core->fname));
	memcpy(core->psargs, snap->psargs, sizeof(core->psargs));
	write_header(snap, arena);
	size_t at = sizeof(Elf64_Ehdr);
	struct ct_error *err = NULL;
	core->threads = calloc(num_threads ? num_threads : 1, sizeof(*core->threads));
	if (!core->threads)
		err = &ct_enomem;
	for (size_t i = 0; !err && i < num_threads; i++)
		take_thread(arch, snap, &snap->threads[i], &core->threads[i], arena, &at);
	if (!err) {
		core->num_threads = num_threads;
		core->threads_capped = num_threads < snap->num_threads;
		const struct ct_bytes auxv = { snap->auxv, snap->auxv_size, snap->big_endian };
		ct_core_take_auxv(core, &auxv);
		err = take_files(snap, core);
	}
	if (!err)
		err = take_memory(snap, core, arena, at);
	if (err) {
		ct_core_destroy(core);
		return err;
	}
	*ret = (struct ct_dump){
		.ops = &live_ops,
		.format = &live_format,
		.arch = arch,
		.arch_name = arch->name,
		.pointer_size = arch->pointer_size,
		.modules = CT_DUMP_MODULES_PROC_MAPS,
		.threads = core->threads,
		.num_threads = core->num_threads,
		.impl = core,
	};
	return NULL;
}
