// Unit tests of the core loader and note parser over hand-built core images.
#include <elf.h>

#include "corebuilder.h"
#include "dump/elfcore.h"
#include "test.h"

// struct elf_prstatus (x86-64) is 336 bytes: pr_reg at 112, 27 registers.
static void make_prstatus(uint8_t *d, int tid, int cursig, uint64_t rip, uint64_t rsp)
{
	memset(d, 0, 336);
	uint16_t sig = (uint16_t)cursig;
	memcpy(d + 12, &sig, 2);
	memcpy(d + 32, &tid, 4);
	memcpy(d + 112 + 16 * 8, &rip, 8);
	memcpy(d + 112 + 19 * 8, &rsp, 8);
}

TEST(prstatus_threads_and_registers)
{
	uint8_t a[336], b[336];
	make_prstatus(a, 100, 11, 0x401000, 0x7ffc0000);
	make_prstatus(b, 101, 0, 0x402000, 0x7ffb0000);
	struct cb_note notes[] = { { "CORE", NT_PRSTATUS, a, sizeof(a) }, { "CORE", NT_PRSTATUS, b, sizeof(b) } };
	size_t size;
	uint8_t *img = cb_build(notes, 2, NULL, 0, &size);
	struct ct_core *core = NULL;
	struct ct_error *err = ct_core_open_memory(img, size, 100, &core);
	CHECK(err == NULL);
	if (core) {
		CHECK_EQ(core->num_threads, 2);
		CHECK_EQ(core->threads[0].tid, 100);
		CHECK_EQ(core->threads[0].cursig, 11);
		CHECK_EQ(core->threads[0].pc, 0x401000);
		CHECK_EQ(core->threads[0].sp, 0x7ffc0000);
		CHECK(core->threads[0].valid[16]);
		CHECK_EQ(core->threads[1].tid, 101);
		CHECK_STR(core->arch_name, "x86_64");
	}
	ct_core_destroy(core);
	free(img);
}

TEST(thread_cap)
{
	uint8_t a[336];
	make_prstatus(a, 1, 0, 0, 0);
	struct cb_note notes[5];
	for (int i = 0; i < 5; i++)
		notes[i] = (struct cb_note){ "CORE", NT_PRSTATUS, a, sizeof(a) };
	size_t size;
	uint8_t *img = cb_build(notes, 5, NULL, 0, &size);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 3, &core) == NULL);
	if (core) {
		CHECK_EQ(core->num_threads, 3);
		CHECK(core->threads_capped);
		CHECK(core->num_problems >= 1);
	}
	ct_core_destroy(core);
	free(img);
}

TEST(siginfo_fault_and_sender)
{
	uint8_t si[128] = { 0 };
	int signo = 11, code = 1;
	uint64_t addr = 0x8;
	memcpy(si, &signo, 4);
	memcpy(si + 8, &code, 4);
	memcpy(si + 16, &addr, 8);
	struct cb_note notes[] = { { "CORE", 0x53494749, si, sizeof(si) } };
	size_t size;
	uint8_t *img = cb_build(notes, 1, NULL, 0, &size);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK(core->has_siginfo);
		CHECK_EQ(core->si_signo, 11);
		CHECK_EQ(core->si_code, 1);
		CHECK(core->si_has_addr);
		CHECK_EQ(core->si_addr, 8);
		CHECK(!core->si_has_sender);
	}
	ct_core_destroy(core);
	free(img);

	// SI_TKILL (-6): the union holds the sender.
	code = -6;
	int pid = 4242, uid = 1000;
	memcpy(si + 8, &code, 4);
	memcpy(si + 16, &pid, 4);
	memcpy(si + 20, &uid, 4);
	img = cb_build(notes, 1, NULL, 0, &size);
	core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK(core->si_has_sender);
		CHECK_EQ(core->si_pid, 4242);
		CHECK_EQ(core->si_uid, 1000);
	}
	ct_core_destroy(core);
	free(img);
}

TEST(prpsinfo)
{
	uint8_t ps[136] = { 0 };
	uint32_t uid = 1000, gid = 100;
	int pid = 77, ppid = 1;
	memcpy(ps + 16, &uid, 4);
	memcpy(ps + 20, &gid, 4);
	memcpy(ps + 24, &pid, 4);
	memcpy(ps + 28, &ppid, 4);
	memcpy(ps + 40, "prog", 4);
	memcpy(ps + 56, "./prog -v", 9);
	struct cb_note notes[] = { { "CORE", NT_PRPSINFO, ps, sizeof(ps) } };
	size_t size;
	uint8_t *img = cb_build(notes, 1, NULL, 0, &size);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK(core->has_prpsinfo);
		CHECK_EQ(core->pid, 77);
		CHECK_EQ(core->uid, 1000);
		CHECK_STR(core->fname, "prog");
		CHECK_STR(core->psargs, "./prog -v");
	}
	ct_core_destroy(core);
	free(img);
}

TEST(nt_file_entries_and_absurd_count)
{
	// count 2, page size 4096, two (start, end, pgoff) triples, two names.
	uint8_t d[256] = { 0 };
	uint64_t v[8] = { 2, 4096, 0x400000, 0x401000, 0, 0x401000, 0x402000, 1 };
	memcpy(d, v, sizeof(v));
	memcpy(d + sizeof(v), "/bin/a\0/bin/a\0", 14);
	struct cb_note notes[] = { { "CORE", 0x46494c45, d, sizeof(v) + 14 } };
	size_t size;
	uint8_t *img = cb_build(notes, 1, NULL, 0, &size);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK_EQ(core->num_files, 2);
		CHECK_STR(core->files[0].path, "/bin/a");
		CHECK_EQ(core->files[1].file_offset, 4096);
	}
	ct_core_destroy(core);
	free(img);

	v[0] = 1ULL << 40; // more entries than the note can hold
	memcpy(d, v, sizeof(v));
	img = cb_build(notes, 1, NULL, 0, &size);
	core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK_EQ(core->num_files, 0);
		CHECK(core->num_problems >= 1);
		CHECK_EQ(core->problems[0].code, CT_DIAG_LIMIT); // over CT_MAX_FILE_ENTRIES
	}
	ct_core_destroy(core);
	free(img);
}

TEST(note_overrunning_segment_is_a_problem_not_a_crash)
{
	uint8_t a[336];
	make_prstatus(a, 5, 0, 0, 0);
	struct cb_note notes[] = { { "CORE", NT_PRSTATUS, a, sizeof(a) } };
	size_t size;
	uint8_t *img = cb_build(notes, 1, NULL, 0, &size);
	// Claim a descsz far past the segment.
	uint32_t huge = 0xfffffff0;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(Elf64_Ehdr));
	memcpy(img + ph[0].p_offset + 4, &huge, 4);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		CHECK_EQ(core->num_threads, 0);
		CHECK(core->num_problems >= 1);
	}
	ct_core_destroy(core);
	free(img);
}

TEST(segments_reads_and_truncation)
{
	uint8_t page[4096];
	for (int i = 0; i < 4096; i++)
		page[i] = (uint8_t)i;
	struct cb_load loads[] = {
		{ 0x10000, 0x1000, 0x1000, PF_R | PF_W, page },
		{ 0x20000, 0x2000, 0, PF_R | PF_X, NULL }, // mapped, not dumped
	};
	size_t size;
	uint8_t *img = cb_build(NULL, 0, loads, 2, &size);
	struct ct_core *core = NULL;
	CHECK(ct_core_open_memory(img, size, 10, &core) == NULL);
	if (core) {
		uint8_t buf[4];
		CHECK(ct_core_read(core, 0x10010, buf, 4) == NULL);
		CHECK_EQ(buf[0], 0x10);
		struct ct_error *err = ct_core_read(core, 0x20000, buf, 4);
		CHECK(err && err->code == CT_ERROR_NODATA);
		ct_error_destroy(err);
		err = ct_core_read(core, 0x30000, buf, 4);
		CHECK(err && err->code == CT_ERROR_FAULT);
		ct_error_destroy(err);
		err = ct_core_read(core, 0x10ffe, buf, 4); // runs off the end of the segment
		CHECK(err != NULL);
		ct_error_destroy(err);
		CHECK(ct_core_find_segment(core, 0x21fff) != NULL);
		CHECK(ct_core_find_segment(core, 0x22000) == NULL);
	}
	ct_core_destroy(core);
	// Cut the file in the middle of the first segment: it opens, truncated.
	core = NULL;
	CHECK(ct_core_open_memory(img, size - 2048, 10, &core) == NULL);
	if (core) {
		CHECK(core->truncated);
		uint8_t b;
		CHECK(ct_core_read_fast(core, 0x10000 + 2047, &b, 1));
		CHECK(!ct_core_read_fast(core, 0x10000 + 2048, &b, 1));
	}
	ct_core_destroy(core);
	free(img);
}

TEST(not_a_core)
{
	size_t size;
	uint8_t *img = cb_build(NULL, 0, NULL, 0, &size);
	((Elf64_Ehdr *)img)->e_type = ET_EXEC;
	struct ct_core *core = NULL;
	struct ct_error *err = ct_core_open_memory(img, size, 10, &core);
	CHECK(err && err->code == CT_ERROR_INVALID_ARGUMENT);
	CHECK(err && strstr(err->message, "executable"));
	ct_error_destroy(err);
	err = ct_core_open_memory((const uint8_t *)"hello", 5, 10, &core);
	CHECK(err != NULL);
	ct_error_destroy(err);
	free(img);
}

TEST_MAIN()
