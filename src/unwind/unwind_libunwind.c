// The second, independent unwinder (--unwinder=libunwind, issue #2): libunwind 1.6's remote
// unwinding over accessors of our own. It shares nothing with the libdwfl walk except the dump
// reader, the module table and the bad-call recovery step of the policy, so the test suite can run
// both on every core and check that they agree.
//
// libunwind's own coredump accessors (_UCD_*) are not used: libunwind-coredump 1.6.2 finds one frame
// per thread on binaries with separate code segments (the default since binutils 2.31), because it
// assumes code sits at file offset 0 (fixed in libunwind 1.7.0). Ours look unwind tables up through
// the module file's PT_GNU_EH_FRAME (.eh_frame_hdr binary-search table) and read memory from the
// core, falling back to the module file for read-only bytes the kernel did not dump (text,
// .eh_frame_hdr, .eh_frame).
//
// libunwind types stay in this file: it is the only one that includes libunwind's headers
// (libunwind is optional, docs/architecture.md "Where each library is used").
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include <libunwind.h>

#include "lazy/lazy.h"
#include "unwind/unwind.h"
#include "util/bytes.h"

/*
 * Exported by libunwind-x86_64 (and every other libunwind-<arch>) but declared in no public
 * header; perf's util/unwind-libunwind-local.c declares it the same way.
 */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					       unw_proc_info_t *pi, int need_unwind_info, void *arg);

/** Restarts after a bad call (pc outside code); each must move sp outward (same cap as unwind_dwfl.c). */
#define MAX_RESTARTS 256
/** PT_LOAD segments remembered per module file: real ELF files have 2–5; 16 bounds a hostile file. */
#define MAX_LOADS 16

// DW_EH_PE_* pointer encodings used in .eh_frame_hdr (LSB 5.0, "Exception Frame Header").
#define EH_PE_OMIT 0xff
#define EH_PE_FORMAT_MASK 0x0f
#define EH_PE_UDATA4 0x03
#define EH_PE_SDATA4 0x0b
#define EH_PE_UDATA8 0x04
#define EH_PE_SDATA8 0x0c
#define EH_PE_DATAREL_SDATA4 0x3b
#define EH_PE_ABSPTR 0x00
#define EH_PE_UDATA2 0x02
#define EH_PE_SDATA2 0x0a
#define EH_PE_PCREL 0x10
/** Tables built from .eh_frame live at this non-canonical address (never a target address), one
 *  4 GiB window per module index. */
#define SYNTH_BASE 0x8000000000000000ull
/** FDEs taken from one .eh_frame: a static glibc program has ~2,000; 2^22 bounds a hostile file. */
#define MAX_SYNTH_FDES (1u << 22)

/** What the accessors know of one module (built when an address in it is first needed). */
struct lu_module {
	int8_t state; // 0 not looked at yet, 1 ready, -1 no file bytes
	uint64_t bias;
	const uint8_t *raw; // borrowed: the file's bytes, owned by the Dwfl's Elf (lives with the module set)
	size_t raw_size;
	struct {
		uint64_t vaddr, filesz, offset;
	} loads[MAX_LOADS];
	size_t num_loads;
	bool has_table;
	uint64_t hdr_addr; // run-time address of .eh_frame_hdr (the datarel base of the table)
	uint64_t table_addr; // run-time address of the binary-search table
	uint64_t fde_count;
	// Without PT_GNU_EH_FRAME (static executables: gcc passes --eh-frame-hdr only when linking
	// dynamically) the table is built here from .eh_frame and served at a fake address.
	int32_t *synth; // owned: (initial location, FDE) pairs relative to hdr_addr, sorted
};

/**
 * Reads of memory and registers one libunwind step may make. libunwind evaluates DWARF
 * expressions of the dump (CFA rules) without a step limit: a looping one (DW_OP_skip back to
 * itself, in a fake vdso) spins inside unw_step forever. Remotely every opcode is fetched through
 * our access_mem, so counting the reads bounds the step; a real step makes a few hundred.
 */
#define LU_STEP_ACCESSES (1u << 20)

/** The accessors' argument: one thread's walk. */
struct lu_walk {
	struct ct_module_set *s; // borrowed
	struct lu_module *mods; // owned, parallel to s->modules
	uint64_t regs[CT_MAX_DWARF_REGS];
	bool valid[CT_MAX_DWARF_REGS];
	/** Accesses in the current step, and whether a step ran out of them. */
	uint32_t step_accesses;
	bool step_budget_hit;
};

// Counts one access of the current step; false once the step's budget is spent.
static bool step_access(struct lu_walk *w)
{
	if (w->step_accesses >= LU_STEP_ACCESSES) {
		w->step_budget_hit = true;
		return false;
	}
	w->step_accesses++;
	return true;
}

// libunwind's x86-64 register numbers → DWARF numbers (System V psABI, table 3.36). They happen to
// coincide for the general registers; the table keeps the mapping explicit.
static const int x86_64_unw_to_dwarf[] = {
	[UNW_X86_64_RAX] = 0,	[UNW_X86_64_RDX] = 1,  [UNW_X86_64_RCX] = 2,  [UNW_X86_64_RBX] = 3,
	[UNW_X86_64_RSI] = 4,	[UNW_X86_64_RDI] = 5,  [UNW_X86_64_RBP] = 6,  [UNW_X86_64_RSP] = 7,
	[UNW_X86_64_R8] = 8,	[UNW_X86_64_R9] = 9,   [UNW_X86_64_R10] = 10, [UNW_X86_64_R11] = 11,
	[UNW_X86_64_R12] = 12,	[UNW_X86_64_R13] = 13, [UNW_X86_64_R14] = 14, [UNW_X86_64_R15] = 15,
	[UNW_X86_64_RIP] = 16,
};

static size_t eh_pe_size(uint8_t enc)
{
	switch (enc & EH_PE_FORMAT_MASK) {
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		return 4;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

// Reads an unsigned or signed LEB128 at *off; false when it runs past the end or beyond 64 bits.
static bool read_leb(const struct ct_bytes *b, uint64_t *off, bool is_signed, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (*off >= b->size || shift >= 64)
			return false;
		uint8_t byte = b->data[(*off)++];
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80)) {
			if (is_signed && shift < 64 && (byte & 0x40))
				v |= ~(uint64_t)0 << shift;
			*ret = v;
			return true;
		}
	}
}

// Decodes a pointer of encoding @p enc at *off of .eh_frame (mapped at run-time @p sec_addr).
// Only the encodings GCC and LLVM emit for FDE addresses: absolute or pc-relative fixed-size data.
static bool read_encoded(const struct ct_bytes *b, uint64_t *off, uint8_t enc, uint64_t sec_addr, uint64_t bias,
			 bool rel_only, uint64_t *ret)
{
	unsigned width;
	bool is_signed = false;
	switch (enc & EH_PE_FORMAT_MASK) {
	case EH_PE_ABSPTR: width = 8; break;
	case EH_PE_UDATA2: width = 2; break;
	case EH_PE_UDATA4: width = 4; break;
	case EH_PE_UDATA8: width = 8; break;
	case EH_PE_SDATA2: width = 2; is_signed = true; break;
	case EH_PE_SDATA4: width = 4; is_signed = true; break;
	case EH_PE_SDATA8: width = 8; is_signed = true; break;
	default: return false;
	}
	uint64_t field = *off, v;
	if (!ct_bytes_uint(b, field, width, &v))
		return false;
	*off += width;
	if (is_signed && width < 8 && (v & ((uint64_t)1 << (8 * width - 1))))
		v |= ~(uint64_t)0 << (8 * width);
	if (rel_only) { // pc_range: a plain length
		*ret = v;
		return true;
	}
	switch (enc & 0x70) {
	case 0:
		*ret = v + bias; // a link-time address
		return true;
	case EH_PE_PCREL:
		*ret = sec_addr + field + v;
		return true;
	default:
		return false;
	}
}

static int compare_pairs(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

// Parses the CIE at @p cie_off for the FDE pointer encoding; false when unusable.
static bool cie_fde_encoding(const struct ct_bytes *b, uint64_t cie_off, uint8_t *enc_ret)
{
	uint64_t off = cie_off, len, id, version, tmp;
	if (!ct_bytes_uint(b, off, 4, &len) || len == 0 || len == 0xffffffff)
		return false; // 64-bit DWARF lengths are not used in .eh_frame on x86-64
	uint64_t end = off + 4 + len;
	if (end > b->size || !ct_bytes_uint(b, off + 4, 4, &id) || id != 0 || !ct_bytes_uint(b, off + 8, 1, &version))
		return false;
	off += 9;
	const char *aug = (const char *)b->data + off;
	size_t aug_len = strnlen(aug, end - off);
	if (off + aug_len >= end)
		return false;
	off += aug_len + 1;
	if (!read_leb(b, &off, false, &tmp) || !read_leb(b, &off, true, &tmp))
		return false;
	if (version == 1)
		off++;
	else if (!read_leb(b, &off, false, &tmp))
		return false;
	uint8_t enc = EH_PE_ABSPTR;
	if (aug[0] == 'z') {
		if (!read_leb(b, &off, false, &tmp))
			return false;
		for (size_t i = 1; i < aug_len && off < end; i++) {
			if (aug[i] == 'R') {
				enc = b->data[off++];
			} else if (aug[i] == 'L') {
				off++;
			} else if (aug[i] == 'P') {
				uint8_t penc = b->data[off++];
				uint64_t skip;
				if (!read_encoded(b, &off, penc & 0x7f, 0, 0, true, &skip))
					return false;
			} else if (aug[i] != 'S' && aug[i] != 'B' && aug[i] != 'G') {
				return false;
			}
		}
	} else if (aug_len) {
		return false;
	}
	*enc_ret = enc;
	return true;
}

// Builds the binary-search table .eh_frame_hdr would hold, from the module file's .eh_frame.
static void build_synth_table(struct lu_walk *w, Elf *elf, struct lu_module *lm, size_t index)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	GElf_Shdr sh = { 0 };
	bool found = false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
		const char *name;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, ".eh_frame") == 0)
			found = true;
	}
	if (!found || !ct_in_bounds(lm->raw_size, sh.sh_offset, sh.sh_size) || index >= (1u << 30))
		return;
	struct ct_bytes b = { lm->raw + sh.sh_offset, sh.sh_size, false };
	uint64_t sec_addr = lm->bias + sh.sh_addr;
	size_t cap = sh.sh_size / 16 + 1, n = 0;
	if (cap > MAX_SYNTH_FDES)
		cap = MAX_SYNTH_FDES;
	int32_t *pairs = malloc(cap * 2 * sizeof(*pairs));
	if (!pairs)
		return;
	uint64_t off = 0, cached_cie = UINT64_MAX;
	uint8_t enc = 0;
	bool enc_ok = false;
	while (off + 8 <= b.size && n < cap) {
		uint64_t len = ct_bytes_uint_or0(&b, off, 4), id = ct_bytes_uint_or0(&b, off + 4, 4);
		if (len == 0 || len == 0xffffffff || len > b.size - off - 4)
			break;
		if (id != 0 && id <= off + 4) {
			uint64_t cie = off + 4 - id;
			if (cie != cached_cie) {
				cached_cie = cie;
				enc_ok = cie_fde_encoding(&b, cie, &enc);
			}
			uint64_t p = off + 8, start;
			if (enc_ok && read_encoded(&b, &p, enc, sec_addr, lm->bias, false, &start)) {
				int64_t rel_start = (int64_t)(start - sec_addr), rel_fde = (int64_t)off;
				if (rel_start >= INT32_MIN && rel_start <= INT32_MAX && rel_fde <= INT32_MAX) {
					pairs[2 * n] = (int32_t)rel_start;
					pairs[2 * n + 1] = (int32_t)rel_fde;
					n++;
				}
			}
		}
		off += 4 + len;
	}
	if (n == 0) {
		free(pairs);
		return;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), compare_pairs);
	lm->synth = pairs;
	lm->hdr_addr = sec_addr;
	lm->table_addr = SYNTH_BASE + ((uint64_t)index << 32);
	lm->fde_count = n;
	lm->has_table = true;
}

// Serves reads of the tables built by build_synth_table.
static bool read_synth(struct lu_walk *w, uint64_t addr, uint8_t *buf, size_t len)
{
	uint64_t index = (addr - SYNTH_BASE) >> 32, off = addr & 0xffffffffu;
	if (index >= w->s->num_modules || !w->mods[index].synth)
		return false;
	const struct lu_module *lm = &w->mods[index];
	uint64_t size = lm->fde_count * 8;
	if (off >= size)
		return false;
	memset(buf, 0, len);
	memcpy(buf, (const uint8_t *)lm->synth + off, size - off < len ? size - off : len);
	return true;
}

// Reads the PT_LOADs and the .eh_frame_hdr header of the module's file.
static void lu_module_init(struct lu_walk *w, const struct ct_module_state *m, struct lu_module *lm)
{
	lm->state = -1;
	if (!m->dwfl_module)
		return;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->dwfl_module, &bias);
	size_t raw_size, phnum;
	const char *raw = elf ? elf_rawfile(elf, &raw_size) : NULL;
	if (!raw || elf_getphdrnum(elf, &phnum) != 0)
		return;
	lm->bias = bias;
	lm->raw = (const uint8_t *)raw;
	lm->raw_size = raw_size;
	GElf_Phdr eh = { .p_type = PT_NULL };
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		if (!ph)
			continue;
		if (ph->p_type == PT_LOAD && lm->num_loads < MAX_LOADS && ct_in_bounds(raw_size, ph->p_offset, ph->p_filesz)) {
			lm->loads[lm->num_loads].vaddr = ph->p_vaddr;
			lm->loads[lm->num_loads].filesz = ph->p_filesz;
			lm->loads[lm->num_loads].offset = ph->p_offset;
			lm->num_loads++;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			eh = *ph;
		}
	}
	lm->state = 1;
	if (eh.p_type != PT_GNU_EH_FRAME) {
		build_synth_table(w, elf, lm, (size_t)(m - w->s->modules));
		return;
	}
	// .eh_frame_hdr: version 1, eh_frame_ptr_enc, fde_count_enc, table_enc, eh_frame_ptr, fde_count,
	// then the sorted (initial location, FDE address) table. libunwind's remote lookup reads the
	// table as pairs of datarel sdata4, the only table encoding GNU ld writes.
	if (eh.p_type != PT_GNU_EH_FRAME || !ct_in_bounds(raw_size, eh.p_offset, eh.p_filesz) || eh.p_filesz < 4)
		return;
	const uint8_t *h = lm->raw + eh.p_offset;
	size_t ptr_size = eh_pe_size(h[1]), count_size = eh_pe_size(h[2]);
	if (h[0] != 1 || h[2] == EH_PE_OMIT || h[3] != EH_PE_DATAREL_SDATA4 || !ptr_size || !count_size ||
	    4 + ptr_size + count_size > eh.p_filesz)
		return;
	struct ct_bytes hb = { h, eh.p_filesz, false };
	uint64_t count = ct_bytes_uint_or0(&hb, 4 + ptr_size, count_size);
	uint64_t table_off = 4 + ptr_size + count_size;
	// Each entry is 8 bytes; the count must fit the segment (a hostile file cannot make us read beyond it).
	if (count == 0 || count > (eh.p_filesz - table_off) / 8)
		return;
	lm->hdr_addr = bias + eh.p_vaddr;
	lm->table_addr = lm->hdr_addr + table_off;
	lm->fde_count = count;
	lm->has_table = true;
}

static struct lu_module *lu_module_for(struct lu_walk *w, uint64_t addr, const struct ct_module_state **mret)
{
	const struct ct_module_state *m = ct_modules_find(w->s, addr);
	if (!m)
		return NULL;
	struct lu_module *lm = &w->mods[m - w->s->modules];
	if (lm->state == 0)
		lu_module_init(w, m, lm);
	if (mret)
		*mret = m;
	return lm->state > 0 ? lm : NULL;
}

// Bytes of the module file mapped at run-time address @p addr (all @p len of them or none).
static bool read_file_bytes(struct lu_walk *w, uint64_t addr, uint8_t *buf, size_t len)
{
	struct lu_module *lm = lu_module_for(w, addr, NULL);
	if (!lm)
		return false;
	uint64_t vaddr = addr - lm->bias;
	for (size_t i = 0; i < lm->num_loads; i++) {
		if (vaddr < lm->loads[i].vaddr || vaddr - lm->loads[i].vaddr >= lm->loads[i].filesz)
			continue;
		uint64_t in = vaddr - lm->loads[i].vaddr;
		if (len > lm->loads[i].filesz - in)
			return false;
		memcpy(buf, lm->raw + lm->loads[i].offset + in, len);
		return true;
	}
	return false;
}

// Memory as the process saw it: the dump first, then the module file for read-only bytes the
// kernel did not save. A word straddling the end of what is available is completed with zeros
// (libunwind reads aligned words even for the last bytes of .eh_frame).
static bool read_target(struct lu_walk *w, uint64_t addr, uint8_t *buf, size_t len)
{
	if (addr >= SYNTH_BASE)
		return read_synth(w, addr, buf, len);
	if (ct_core_read_fast(w->s->core, addr, buf, len) || read_file_bytes(w, addr, buf, len))
		return true;
	size_t got = 0;
	for (; got < len; got++) {
		if (!ct_core_read_fast(w->s->core, addr + got, buf + got, 1) && !read_file_bytes(w, addr + got, buf + got, 1))
			break;
	}
	if (got == 0)
		return false;
	memset(buf + got, 0, len - got);
	return true;
}

static int find_proc_info_cb(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info,
			     void *arg)
{
	struct lu_walk *w = arg;
	const struct ct_module_state *m;
	struct lu_module *lm = lu_module_for(w, ip, &m);
	if (!lm || !lm->has_table)
		return -UNW_ENOINFO;
	unw_dyn_info_t di = {
		.format = UNW_INFO_FORMAT_REMOTE_TABLE,
		.start_ip = m->start,
		.end_ip = m->end,
		.u.rti.segbase = lm->hdr_addr,
		.u.rti.table_data = lm->table_addr,
		// In words: one 8-byte entry per FDE.
		.u.rti.table_len = lm->fde_count * 8 / sizeof(unw_word_t),
	};
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info_cb(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	// Nothing to free: the table is read through access_mem, never copied.
}

static int get_dyn_info_list_addr_cb(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	// No run-time registered unwind info (JIT) in a core.
	return -UNW_ENOINFO;
}

static int access_mem_cb(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct lu_walk *w = arg;
	if (write)
		return -UNW_EREADONLYREG;
	if (!step_access(w))
		return -UNW_EINVAL;
	uint8_t b[8];
	if (!read_target(w, addr, b, sizeof(b)))
		return -UNW_EINVAL;
	// x86-64 only: target and host are both little-endian.
	struct ct_bytes bb = { b, sizeof(b), false };
	*valp = ct_bytes_uint_or0(&bb, 0, 8);
	return 0;
}

static int access_reg_cb(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write, void *arg)
{
	struct lu_walk *w = arg;
	if (reg < 0 || (size_t)reg >= sizeof(x86_64_unw_to_dwarf) / sizeof(x86_64_unw_to_dwarf[0]))
		return -UNW_EBADREG;
	int d = x86_64_unw_to_dwarf[reg];
	if (write) {
		w->regs[d] = *valp;
		w->valid[d] = true;
		return 0;
	}
	if (!w->valid[d])
		return -UNW_EBADREG;
	*valp = w->regs[d];
	return 0;
}

static int access_fpreg_cb(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write, void *arg)
{
	return -UNW_EBADREG;
}

static int resume_cb(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL; // a core cannot be resumed
}

static int get_proc_name_cb(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len, unw_word_t *offp,
			    void *arg)
{
	return -UNW_ENOINFO; // symbolization is done by symbolize.c for both unwinders
}

static const unw_accessors_t lu_accessors = {
	.find_proc_info = find_proc_info_cb,
	.put_unwind_info = put_unwind_info_cb,
	.get_dyn_info_list_addr = get_dyn_info_list_addr_cb,
	.access_mem = access_mem_cb,
	.access_reg = access_reg_cb,
	.access_fpreg = access_fpreg_cb,
	.resume = resume_cb,
	.get_proc_name = get_proc_name_cb,
};

// libunwind's error codes as stop reasons (struct ct_raw_stack).
static enum ct_stop_reason step_error_reason(int r)
{
	switch (-r) {
	case UNW_ENOINFO:
		return CT_STOP_LU_NO_INFO;
	case UNW_EBADFRAME:
		return CT_STOP_LU_BAD_FRAME;
	case UNW_EINVALIDIP:
		return CT_STOP_LU_INVALID_IP;
	case UNW_EBADREG:
		return CT_STOP_LU_BAD_REG;
	case UNW_EINVAL:
		return CT_STOP_LU_UNREADABLE;
	case UNW_EBADVERSION:
		return CT_STOP_LU_BAD_VERSION;
	default:
		return CT_STOP_LU_FAILED;
	}
}

struct lu_state {
	struct ct_raw_stack *out;
	enum ct_stop_reason reason;
	bool stop; // a stop condition was met (cap, loop, memory): no recovery
	bool bad_pc;
	struct ct_unwind_regs last;
};

// Adds the cursor's frame after the cap and loop checks of the policy; false stops the walk.
static bool add_frame(struct lu_state *st, uint64_t pc, uint64_t sp, bool new_walk, struct ct_raw_frame *f,
		      size_t max_frames)
{
	struct ct_raw_stack *out = st->out;
	if (out->count >= max_frames) {
		out->truncated = true;
		st->reason = CT_STOP_FRAME_CAP;
		st->stop = true;
		return false;
	}
	if (out->count > 0 && !new_walk) {
		const struct ct_raw_frame *prev = &out->frames[out->count - 1];
		// Same rule as unwind_dwfl.c: the stack grows down, a caller's sp is never below its
		// callee's; equal sp is allowed once (frameless leaf), not for the same pc.
		if (sp < prev->sp || (sp == prev->sp && pc == prev->pc)) {
			st->reason = CT_STOP_SP_NOT_OUTWARD;
			out->truncated = true;
			st->stop = true;
			return false;
		}
	}
	if (!ct_raw_stack_push(out, f)) {
		st->reason = CT_STOP_NO_MEMORY;
		out->truncated = true;
		st->stop = true;
		return false;
	}
	return true;
}

/*
 * The registers of the frame just added, for the values of its variables: all of them for the
 * dump's own frame and a frame a signal interrupted, else only what a call preserves (libunwind
 * hands back stale caller-saved registers of caller frames; unwind.h).
 */
static void frame_registers(struct lu_state *st, unw_cursor_t *cursor, bool all)
{
	const struct ct_arch_info *arch = &ct_arch_x86_64;
	bool valid[CT_FRAME_REGS] = { false };
	uint64_t vals[CT_FRAME_REGS] = { 0 };
	for (size_t u = 0; u < sizeof(x86_64_unw_to_dwarf) / sizeof(x86_64_unw_to_dwarf[0]); u++) {
		int d = x86_64_unw_to_dwarf[u];
		unw_word_t v;
		if (d < 0 || d >= CT_FRAME_REGS || (u != UNW_X86_64_RAX && d == 0))
			continue;
		if (!all && !(arch->callee_saved >> d & 1) && d != arch->sp_dwarf && d != arch->pc_dwarf)
			continue;
		if (unw_get_reg(cursor, (int)u, &v) == 0) {
			valid[d] = true;
			vals[d] = v;
		}
	}
	ct_raw_stack_set_regs(st->out, st->out->count - 1, valid, vals, CT_FRAME_REGS);
}

/*
 * One libunwind walk from the registers in @p w. Frames after the first get CT_TRUST_CFI when
 * libunwind found an FDE for their callee, CT_TRUST_FRAME_POINTER when it fell back to its own
 * rbp chain (libunwind x86_64/Gstep.c does so silently when DWARF fails).
 */
static int walk_once(struct lu_state *st, struct lu_walk *w, unw_addr_space_t as, enum ct_trust first_trust,
		     size_t max_frames)
{
	unw_cursor_t cursor;
	w->step_accesses = 0;
	w->step_budget_hit = false;
	int r = unw_init_remote(&cursor, as, w);
	if (r < 0) {
		st->reason = step_error_reason(r);
		return r;
	}
	enum ct_trust trust = first_trust;
	bool new_walk = true;
	for (;;) {
		unw_word_t pc = 0, sp = 0;
		if (unw_get_reg(&cursor, UNW_REG_IP, &pc) < 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0) {
			st->reason = CT_STOP_LU_BAD_REG;
			return -UNW_EBADREG;
		}
		struct ct_raw_frame f = { .pc = pc, .sp = sp, .has_sp = true, .trust = trust };
		// Only the dump's own pc is exact; a restart begins at a return address.
		f.exact = new_walk && st->out->count == 0;
		// libunwind 1.6 (x86_64/Gos-linux.c) answers "signal frame" for the frame it reached
		// through the sigreturn trampoline's CFI, that is for the frame the signal interrupted
		// (libdwfl flags the same frame). Its pc is exact, and so is the trampoline's: the kernel
		// made __restore_rt the return address without a call, so pc - 1 is outside it.
		if (!new_walk && unw_is_signal_frame(&cursor) > 0) {
			f.exact = true;
			f.trust = CT_TRUST_SIGNAL;
		}
		if (!add_frame(st, pc, sp, new_walk, &f, max_frames))
			return 0;
		frame_registers(st, &cursor, new_walk ? st->out->count == 1 || f.exact : f.exact);
		if (f.trust == CT_TRUST_SIGNAL && st->out->count >= 2) {
			st->out->frames[st->out->count - 2].signal_trampoline = true;
			st->out->frames[st->out->count - 2].exact = true;
		}
		new_walk = false;
		st->last = (struct ct_unwind_regs){ .pc = pc, .sp = sp };
		if (pc == 0 || !ct_modules_is_code(w->s, pc)) {
			// Nothing to unwind from here with CFI: let the policy decide.
			st->bad_pc = true;
			return 0;
		}
		// libunwind 1.6 x86_64/Gget_proc_info.c: without unwind info it still returns 0, with a
		// made-up one-byte procedure at ip, and unw_step then guesses from rbp.
		unw_proc_info_t pi;
		w->step_accesses = 0;
		bool has_cfi = unw_get_proc_info(&cursor, &pi) == 0 && !(pi.end_ip - pi.start_ip == 1 && !pi.unwind_info);
		w->step_accesses = 0;
		r = unw_step(&cursor);
		if (w->step_budget_hit) {
			st->reason = CT_STOP_LU_STEP_BUDGET;
			st->out->truncated = true;
			st->stop = true;
			return 0;
		}
		if (r == 0) {
			st->reason = CT_STOP_OUTERMOST;
			return 0;
		}
		if (r < 0) {
			st->reason = step_error_reason(r);
			st->out->truncated = true;
			return r;
		}
		trust = has_cfi ? CT_TRUST_CFI : CT_TRUST_FRAME_POINTER;
	}
}

struct ct_error *ct_unwind_thread_libunwind(struct ct_module_set *s, const struct ct_core_thread *t,
					    size_t max_frames, struct ct_raw_stack *out)
{
	const struct ct_arch_info *arch = s->core->arch;
	// Remote unwinding through the generic libunwind library works for the architecture it was
	// built for, which is the build host's: x86-64 only here.
	if (!arch || arch->e_machine != EM_X86_64 || arch->elf_class != ELFCLASS64)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "libunwind unwinder: not supported on %s",
				       arch ? arch->name : s->core->arch_name ? s->core->arch_name : "unknown");
	// libunwind is loaded for the first walk (src/lazy/libunwind.c).
	struct ct_error *lib_err = ct_lazy_libunwind_require();
	if (lib_err)
		return lib_err;
	struct lu_walk w = { .s = s };
	w.mods = calloc(s->num_modules ? s->num_modules : 1, sizeof(*w.mods));
	if (!w.mods)
		return &ct_enomem;
	memcpy(w.regs, t->dwarf, sizeof(w.regs));
	memcpy(w.valid, t->valid, sizeof(w.valid));
	w.regs[arch->pc_dwarf] = t->pc;
	w.valid[arch->pc_dwarf] = true;
	// Byte order 0: the host's, which is the target's (x86-64 only).
	unw_addr_space_t as = unw_create_addr_space((unw_accessors_t *)&lu_accessors, 0);
	// (libunwind copies the accessors into the address space; the cast only drops const.)
	if (!as) {
		free(w.mods);
		return ct_error_create(CT_ERROR_LIBRARY, "unw_create_addr_space failed");
	}
	// One address space per thread walk, so a global cache is private to this walk anyway.
	unw_set_caching_policy(as, UNW_CACHE_GLOBAL);

	struct lu_state st = { .out = out };
	enum ct_trust trust = CT_TRUST_CONTEXT;
	for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
		st.bad_pc = false;
		size_t before = out->count;
		int r = walk_once(&st, &w, as, trust, max_frames);
		if (st.stop || r < 0 || !st.bad_pc) {
			if (r < 0 && out->count == before)
				out->truncated = true;
			break;
		}
		// pc outside code: a call through a bad pointer. Same recovery as the dwfl unwinder,
		// and only at frame 0 (elsewhere the pc came from unwinding and is not trusted).
		struct ct_unwind_regs next;
		if (out->count != 1 || !ct_unwind_bad_call(s, &st.last, &next)) {
			st.reason = CT_STOP_BAD_PC;
			out->truncated = out->count > 1;
			break;
		}
		w.regs[arch->pc_dwarf] = next.pc;
		w.regs[arch->sp_dwarf] = next.sp;
		trust = CT_TRUST_BAD_CALL;
		if (restart == MAX_RESTARTS) {
			st.reason = CT_STOP_TOO_MANY_RECOVERIES;
			out->truncated = true;
		}
	}
	out->stop_reason = st.reason;
	if (w.step_budget_hit)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, t->tid, CT_DIAG_UNWIND_STEP_BUDGET,
			       "thread %d: libunwind's step at frame %zu exceeded %u memory reads (looping unwind information in the dump); frames beyond it are lost",
			       t->tid, out->count, LU_STEP_ACCESSES);
	unw_destroy_addr_space(as);
	for (size_t i = 0; i < s->num_modules; i++)
		free(w.mods[i].synth);
	free(w.mods);
	return NULL;
}
