// Unit tests of the bounded ELF view (src/dump/elfview.c) and the architecture tables' lookups:
// hand-made bytes only where the layout itself is under test (headers, notes), both byte orders.
#include <elf.h>
#include <stdlib.h>

#include "arch/arch.h"
#include "dump/elfview.h"
#include "test.h"

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

// One note: namesz, descsz, type, name padded to 4, desc padded to 4.
static size_t put_note(uint8_t *p, const char *name, uint32_t type, const uint8_t *desc, uint32_t descsz, bool be)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	put32(p, namesz, be);
	put32(p + 4, descsz, be);
	put32(p + 8, type, be);
	memcpy(p + 12, name, namesz);
	size_t off = 12 + ((namesz + 3) & ~3u);
	memcpy(p + off, desc, descsz);
	return off + ((descsz + 3) & ~3u);
}

TEST(notes_walk_both_byte_orders)
{
	for (int be = 0; be < 2; be++) {
		uint8_t area[128] = { 0 };
		uint8_t d[6] = { 1, 2, 3, 4, 5, 6 };
		size_t n = put_note(area, "CORE", NT_PRSTATUS, d, 6, be);
		n += put_note(area + n, "GNU", NT_GNU_BUILD_ID, d, 4, be);
		struct ct_bytes b = { area, n, be };
		struct ct_note_iter it;
		struct ct_elf_note note;
		ct_note_iter_init(&it, &b);
		CHECK(ct_note_iter_next(&it, &note));
		CHECK(note.type == NT_PRSTATUS && ct_elf_note_is(&note, "CORE") && note.desc.size == 6);
		CHECK(!ct_elf_note_is(&note, "COR"));
		CHECK(ct_note_iter_next(&it, &note));
		CHECK(note.type == NT_GNU_BUILD_ID && ct_elf_note_is(&note, "GNU") && note.desc.data[3] == 4);
		CHECK(!ct_note_iter_next(&it, &note));
		CHECK(!it.malformed);
	}
}

TEST(notes_cut_desc_is_malformed_but_named)
{
	uint8_t area[64] = { 0 };
	uint8_t d[40] = { 0 };
	size_t n = put_note(area, "VMCOREINFO", 0, d, 40, false);
	struct ct_bytes b = { area, n - 20, false }; // the desc is cut
	struct ct_note_iter it;
	struct ct_elf_note note;
	ct_note_iter_init(&it, &b);
	CHECK(!ct_note_iter_next(&it, &note));
	CHECK(it.malformed && it.bad_offset == 0 && it.bad_descsz == 40);
	CHECK(ct_note_iter_cut(&it, &note));
	CHECK(ct_elf_note_is(&note, "VMCOREINFO") && note.desc.size == 20);
	// A name running past the area is not even a cut note.
	b.size = 14;
	ct_note_iter_init(&it, &b);
	CHECK(!ct_note_iter_next(&it, &note) && it.malformed && !ct_note_iter_cut(&it, &note));
}

TEST(header_and_phdr_of_a_big_endian_elf32)
{
	uint8_t f[sizeof(Elf32_Ehdr) + sizeof(Elf32_Phdr)] = { 0 };
	memcpy(f, ELFMAG, SELFMAG);
	f[EI_CLASS] = ELFCLASS32;
	f[EI_DATA] = ELFDATA2MSB;
	f[offsetof(Elf32_Ehdr, e_type) + 1] = ET_CORE;
	f[offsetof(Elf32_Ehdr, e_machine) + 1] = EM_PPC;
	put32(f + offsetof(Elf32_Ehdr, e_phoff), sizeof(Elf32_Ehdr), true);
	f[offsetof(Elf32_Ehdr, e_phentsize) + 1] = sizeof(Elf32_Phdr);
	f[offsetof(Elf32_Ehdr, e_phnum) + 1] = 1;
	uint8_t *ph = f + sizeof(Elf32_Ehdr);
	put32(ph + offsetof(Elf32_Phdr, p_type), PT_LOAD, true);
	put32(ph + offsetof(Elf32_Phdr, p_vaddr), 0x10000000, true);
	put32(ph + offsetof(Elf32_Phdr, p_memsz), 0x1000, true);
	put32(ph + offsetof(Elf32_Phdr, p_flags), PF_R | PF_X, true);
	struct ct_bytes b = { f, sizeof(f), false };
	struct ct_elf_header h;
	CHECK(ct_elf_header_read(&b, &h) == NULL);
	CHECK(h.big_endian && h.elf_class == ELFCLASS32 && h.type == ET_CORE && h.machine == EM_PPC);
	uint64_t phnum;
	b.big_endian = true;
	CHECK(ct_elf_phnum(&b, &h, &phnum) && phnum == 1);
	struct ct_elf_phdr p;
	CHECK(ct_elf_phdr_read(&b, h.elf_class, h.phoff, &p));
	CHECK(p.type == PT_LOAD && p.vaddr == 0x10000000 && p.memsz == 0x1000 && p.flags == (PF_R | PF_X));
	CHECK(!ct_elf_phdr_read(&b, h.elf_class, h.phoff + 1, &p)); // one byte past: out of bounds
	// PN_XNUM without a section header table cannot be resolved.
	h.phnum = PN_XNUM;
	CHECK(!ct_elf_phnum(&b, &h, &phnum));
	// The table for it: 32-bit big-endian ppc.
	const struct ct_arch_info *a = ct_arch_find_endian(h.machine, h.elf_class, h.big_endian);
	CHECK(a == &ct_arch_ppc && a->pointer_size == 4);
	struct ct_error *err = NULL;
	b.size = 20;
	CHECK((err = ct_elf_header_read(&b, &h)) != NULL);
	ct_error_destroy(err);
}

TEST(arch_lookup_by_byte_order_and_prstatus)
{
	CHECK(ct_arch_find_endian(EM_PPC64, ELFCLASS64, false) == &ct_arch_ppc64le);
	CHECK(ct_arch_find_endian(EM_PPC64, ELFCLASS64, true) == &ct_arch_ppc64);
	CHECK(ct_arch_find(EM_S390, ELFCLASS32) == &ct_arch_s390);
	CHECK(ct_arch_find_endian(EM_X86_64, ELFCLASS32, false) == &ct_arch_x32);
	CHECK(ct_arch_find_endian(EM_68K, ELFCLASS32, true) == NULL);
	// mips n32 is told from o32 by the NT_PRSTATUS size (440 against 256 bytes).
	CHECK(ct_arch_for_prstatus(&ct_arch_mipsel, 440) == &ct_arch_mipsn32el);
	CHECK(ct_arch_for_prstatus(&ct_arch_mipsel, 256) == &ct_arch_mipsel);
	// Signals: mips and sparc number SIGBUS 10 (asm-generic 7); x86 keeps its numbers.
	CHECK(ct_arch_generic_signal(&ct_arch_mips, 10) == 7);
	CHECK(ct_arch_generic_signal(&ct_arch_sparc64, 30) == 10);
	CHECK(ct_arch_generic_signal(&ct_arch_x86_64, 10) == 10);
	CHECK(ct_arch_generic_signal(&ct_arch_mips, 11) == 11);
	// Every table's registers fit the DWARF arrays and its special registers exist.
	const struct ct_arch_info *all[] = { &ct_arch_x86_64, &ct_arch_i386,	&ct_arch_x32,	  &ct_arch_aarch64,
					     &ct_arch_arm,    &ct_arch_riscv64, &ct_arch_s390x,	  &ct_arch_s390,
					     &ct_arch_ppc64,  &ct_arch_ppc64le, &ct_arch_ppc,	  &ct_arch_sparc64,
					     &ct_arch_mips,   &ct_arch_mipsel,	&ct_arch_mips64,  &ct_arch_mips64el,
					     &ct_arch_mipsn32, &ct_arch_mipsn32el };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct ct_arch_info *a = all[i];
		CHECK(a->pc_index >= 0 && (size_t)a->pc_index < a->num_regs);
		CHECK(a->sp_dwarf >= 0 && a->sp_dwarf < CT_MAX_DWARF_REGS && a->num_dwarf <= CT_MAX_DWARF_REGS);
		for (size_t r = 0; r < a->num_regs; r++) {
			CHECK(a->regs[r].dwarf < CT_MAX_DWARF_REGS);
			CHECK((unsigned)a->regs[r].offset + a->regs[r].size <= a->prstatus_reg_size);
		}
		CHECK(a->is_after_call != NULL && a->fp_rule < 3 && a->insn_decoder < CT_INSN_NUM_);
	}
}

TEST_MAIN()
