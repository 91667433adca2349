// ELF core: header, program headers, the segment table and bounded reads of the dumped memory.
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/elfcore.h"
#include "dump/elfview.h"
#include "util/bisect.h"
#include "util/bytes.h"

void ct_core_problem(struct ct_core *core, enum ct_diag_code code, const char *fmt, ...)
{
	if (core->num_problems >= CT_MAX_PROBLEMS) {
		core->num_problems_dropped++;
		return;
	}
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg) {
		core->num_problems_dropped++;
		return;
	}
	core->problems[core->num_problems].code = code;
	core->problems[core->num_problems].message = msg;
	core->num_problems++;
}

static const char *elf_type_name(uint16_t type)
{
	switch (type) {
	case ET_REL: return "a relocatable object (.o)";
	case ET_EXEC: return "an executable";
	case ET_DYN: return "a shared object or PIE executable";
	default: return "an ELF file of unknown type";
	}
}

static int compare_segments(const void *a, const void *b)
{
	const struct ct_segment *x = a, *y = b;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	// Larger first, so a lookup in aliased tables finds the covering one.
	return x->memsz > y->memsz ? -1 : x->memsz < y->memsz;
}

static struct ct_error *parse_header(struct ct_core *core, size_t max_threads)
{
	const uint8_t *d = core->map;
	size_t size = core->size;
	struct ct_bytes file = { d, size, false };
	struct ct_elf_header eh;
	struct ct_error *err = ct_elf_header_read(&file, &eh);
	if (err)
		return err;
	core->elf_class = eh.elf_class;
	core->big_endian = eh.big_endian;
	file.big_endian = eh.big_endian;
	core->e_machine = eh.machine;
	core->arch_name = ct_arch_machine_name(core->e_machine, core->elf_class);
	if (eh.type != ET_CORE)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "is %s, not a core file", elf_type_name(eh.type));
	core->arch = ct_arch_find_endian(core->e_machine, core->elf_class, core->big_endian);
	if (core->arch)
		core->arch_name = core->arch->name;

	uint64_t phoff = eh.phoff, phnum;
	unsigned phentsize = eh.phentsize;
	size_t want_phent = ct_elf_phdr_size(eh.elf_class);
	if (!ct_elf_phnum(&file, &eh, &phnum))
		return ct_error_create(CT_ERROR_CORRUPT,
				       "e_phnum is PN_XNUM but section header 0 is missing or out of the file");
	if (phnum == 0)
		return ct_error_create(CT_ERROR_CORRUPT, "core has no program headers");
	// gABI: e_phentsize is the size of one entry; larger entries (future fields) are stepped over,
	// smaller ones cannot hold the fields we need.
	if (phentsize < want_phent || phentsize > 4096)
		return ct_error_create(CT_ERROR_CORRUPT, "e_phentsize is %u, expected %zu", phentsize, want_phent);
	if (phentsize != want_phent)
		ct_core_problem(core, CT_DIAG_CORRUPT_HEADER, "e_phentsize is %u, expected %zu; read with stride %u",
				phentsize, want_phent, phentsize);
	core->phentsize = phentsize;
	if (phnum > CT_MAX_PHDRS) {
		ct_core_problem(core, CT_DIAG_LIMIT,
				"the core claims %" PRIu64 " program headers; only the first %u are read (cap CT_MAX_PHDRS)",
				phnum, CT_MAX_PHDRS);
		phnum = CT_MAX_PHDRS;
	}
	uint64_t ph_bytes = phnum * phentsize; // < 2^20 * 2^12: no overflow
	if (!ct_in_bounds(size, phoff, ph_bytes)) {
		// A cut core may still hold some of its headers: keep the whole ones.
		if (phoff >= size)
			return ct_error_create(CT_ERROR_CORRUPT,
					       "program headers at offset 0x%" PRIx64 " lie past the end of the file (%zu bytes)",
					       phoff, size);
		uint64_t have = (size - phoff) / phentsize;
		if (have == 0)
			return ct_error_create(CT_ERROR_CORRUPT,
					       "program headers truncated: the file ends %" PRIu64 " bytes after their start",
					       (uint64_t)size - phoff);
		ct_core_problem(core, CT_DIAG_TRUNCATED_CORE, "only %" PRIu64 " of %" PRIu64 " program headers are in the file",
				have, phnum);
		core->truncated = true;
		phnum = have;
	}
	size_t nload = 0;
	for (uint64_t i = 0; i < phnum; i++) {
		struct ct_elf_phdr ph;
		if (ct_elf_phdr_read(&file, eh.elf_class, phoff + i * phentsize, &ph) && ph.type == PT_LOAD)
			nload++;
	}
	core->segments = calloc(nload ? nload : 1, sizeof(*core->segments));
	if (!core->segments)
		return &ct_enomem;
	uint64_t lost = 0;
	for (uint64_t i = 0; i < phnum; i++) {
		struct ct_elf_phdr ph;
		if (!ct_elf_phdr_read(&file, eh.elf_class, phoff + i * phentsize, &ph) || ph.type != PT_LOAD ||
		    ph.memsz == 0)
			continue;
		uint64_t end;
		if (ct_add_overflow(ph.vaddr, ph.memsz - 1, &end)) {
			ct_core_problem(core, CT_DIAG_CORRUPT_SEGMENT, "segment at 0x%" PRIx64 " wraps around the address space",
					ph.vaddr);
			continue;
		}
		struct ct_segment *s = &core->segments[core->num_segments];
		s->vaddr = ph.vaddr;
		s->memsz = ph.memsz;
		s->offset = ph.offset;
		s->filesz = ph.filesz < ph.memsz ? ph.filesz : ph.memsz;
		s->flags = ph.flags;
		if (s->filesz && !ct_in_bounds(size, s->offset, s->filesz)) {
			uint64_t have = s->offset < size ? size - s->offset : 0;
			lost += s->filesz - have;
			s->filesz = have;
			core->truncated = true;
		}
		core->num_segments++;
	}
	size_t with_bytes = 0;
	for (size_t i = 0; i < core->num_segments; i++)
		with_bytes += core->segments[i].filesz != 0;
	// coredump_filter=0, or every p_filesz zeroed: the report can only rest on registers.
	if (core->num_segments && !with_bytes && !lost)
		ct_core_problem(core, CT_DIAG_NO_MEMORY,
				"none of the %zu PT_LOAD segments has its bytes in the core (coredump_filter 0?): no stack "
				"or heap contents, backtraces rest on registers alone",
				core->num_segments);
	if (lost)
		ct_core_problem(core, CT_DIAG_TRUNCATED_CORE,
				"the core file is truncated: %" PRIu64 " bytes of memory it should hold are missing", lost);
	qsort(core->segments, core->num_segments, sizeof(*core->segments), compare_segments);
	size_t overlaps = 0;
	for (size_t i = 1; i < core->num_segments; i++) {
		const struct ct_segment *p = &core->segments[i - 1], *q = &core->segments[i];
		if (q->vaddr - p->vaddr < p->memsz)
			overlaps++;
	}
	// Real cores never overlap; lookups prefer the segment starting last (see ct_core_find_segment).
	if (overlaps)
		ct_core_problem(core, CT_DIAG_CORRUPT_SEGMENT, "%zu PT_LOAD segments overlap the one before them", overlaps);
	ct_core_parse_notes(core, phoff, phnum, max_threads);
	return NULL;
}

struct ct_error *ct_core_open_memory(const uint8_t *data, size_t size, size_t max_threads,
				     struct ct_core **ret)
{
	struct ct_core *core = calloc(1, sizeof(*core));
	if (!core)
		return &ct_enomem;
	core->map = data;
	core->size = size;
	struct ct_error *err = parse_header(core, max_threads);
	if (err) {
		core->map = NULL;
		ct_core_destroy(core);
		return err;
	}
	*ret = core;
	return NULL;
}

void ct_core_destroy(struct ct_core *core)
{
	if (!core)
		return;
	for (size_t i = 0; i < core->num_files; i++)
		free(core->files[i].path);
	free(core->files);
	free(core->auxv);
	free(core->threads);
	free(core->segments);
	for (size_t i = 0; i < core->num_problems; i++)
		free(core->problems[i].message);
	free(core->owned_map);
	free(core);
}

struct segment_key {
	const struct ct_core *core;
	uint64_t addr;
};

static bool segment_at_or_below(const void *ctx, size_t i)
{
	const struct segment_key *k = ctx;
	return k->core->segments[i].vaddr <= k->addr;
}

const struct ct_segment *ct_core_find_segment(const struct ct_core *core, uint64_t addr)
{
	// The search below answers the hint when it holds addr and the next segment starts above it.
	size_t h = __atomic_load_n(&core->segment_hint, __ATOMIC_RELAXED);
	if (h < core->num_segments && addr - core->segments[h].vaddr < core->segments[h].memsz &&
	    (h + 1 == core->num_segments || core->segments[h + 1].vaddr > addr))
		return &core->segments[h];
	// Last segment with vaddr <= addr.
	size_t lo = ct_bisect(core->num_segments, segment_at_or_below, &(struct segment_key){ core, addr });
	// Walk back over overlapping (aliased) segments: a few at most in real cores.
	for (size_t i = lo, n = 0; i > 0 && n < 8; i--, n++) {
		const struct ct_segment *s = &core->segments[i - 1];
		if (addr - s->vaddr < s->memsz) {
			__atomic_store_n((size_t *)&core->segment_hint, i - 1, __ATOMIC_RELAXED);
			return s;
		}
	}
	return NULL;
}

// Copies what one segment holds of [addr, addr+len); returns bytes copied, or -1/-2 for fault/nodata.
static long read_from_segment(const struct ct_core *core, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct ct_segment *s = ct_core_find_segment(core, addr);
	if (!s)
		return -1;
	uint64_t off = addr - s->vaddr;
	if (off >= s->filesz)
		return -2;
	uint64_t n = s->filesz - off;
	if (n > len)
		n = len;
	memcpy(buf, core->map + s->offset + off, n);
	return (long)n;
}

bool ct_core_read_fast(const struct ct_core *core, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		long n = read_from_segment(core, addr, p, len);
		if (n <= 0)
			return false;
		p += n;
		addr += (uint64_t)n;
		len -= (size_t)n;
	}
	return true;
}

struct ct_error *ct_core_read(const struct ct_core *core, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		long n = read_from_segment(core, addr, p, len);
		if (n == -1)
			return ct_error_fault(addr, "address 0x%" PRIx64 " is not mapped in the core", addr);
		if (n == -2) {
			struct ct_error *err = ct_error_create(CT_ERROR_NODATA,
							       "address 0x%" PRIx64 " is mapped but not saved in the core",
							       addr);
			if (err->needs_destroy)
				err->address = addr;
			return err;
		}
		p += n;
		addr += (uint64_t)n;
		len -= (size_t)n;
	}
	return NULL;
}

bool ct_core_read_word(const struct ct_core *core, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	unsigned n = core->arch ? core->arch->pointer_size : core->elf_class == ELFCLASS64 ? 8 : 4;
	if (!ct_core_read_fast(core, addr, b, n))
		return false;
	*ret = n == 8 ? ct_load64(b, core->big_endian) : ct_load32(b, core->big_endian);
	return true;
}

struct ct_error *ct_core_read_string(const struct ct_core *core, uint64_t addr, size_t max, char **ret)
{
	char *s = malloc(max + 1);
	if (!s)
		return &ct_enomem;
	size_t i = 0;
	// Byte-wise through segment lookups would be slow; read in chunks that stay inside a segment.
	while (i < max) {
		if (addr + i < addr)
			break; // wrapped past the top of the address space
		const struct ct_segment *seg = ct_core_find_segment(core, addr + i);
		if (!seg || addr + i - seg->vaddr >= seg->filesz)
			break;
		uint64_t off = addr + i - seg->vaddr;
		size_t n = seg->filesz - off < max - i ? (size_t)(seg->filesz - off) : max - i;
		const uint8_t *src = core->map + seg->offset + off;
		const uint8_t *nul = memchr(src, 0, n);
		if (nul) {
			memcpy(s + i, src, (size_t)(nul - src));
			i += (size_t)(nul - src);
			s[i] = '\0';
			*ret = s;
			return NULL;
		}
		memcpy(s + i, src, n);
		i += n;
	}
	if (i == 0) {
		free(s);
		return ct_error_fault(addr, "cannot read string at 0x%" PRIx64, addr);
	}
	s[i] = '\0';
	*ret = s;
	return NULL;
}

bool ct_core_auxv(const struct ct_core *core, uint64_t type, uint64_t *ret)
{
	for (size_t i = 0; i < core->num_auxv; i++) {
		if (core->auxv[2 * i] == type) {
			*ret = core->auxv[2 * i + 1];
			return true;
		}
	}
	return false;
}
