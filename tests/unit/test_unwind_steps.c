// Unit tests of the shared unwinding steps and loop (src/unwind/step.h) over hand-built memory: the
// scan's chunking and gaps, frame records in both byte orders, the loop's policy (cap, outward, stack
// switches), the ORC entry's bit layout. Real stacks are the kernel and unwind tests' job.
#include <elf.h>
#include <stdlib.h>

#include "arch/arch.h"
#include "test.h"
#include "unwind/step.h"

// A stack of 3 pages at BASE; the middle page is "not in the dump" when hole is set.
#define BASE 0x10000ull
#define SIZE (3 * 4096)
struct mem {
	uint8_t bytes[SIZE];
	bool hole;
};

static bool mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = arg;
	if (addr < BASE || addr + len > BASE + SIZE)
		return false;
	if (m->hole && addr < BASE + 2 * 4096 && addr + len > BASE + 4096)
		return false;
	memcpy(buf, m->bytes + (addr - BASE), len);
	return true;
}

static void put64(struct mem *m, uint64_t addr, uint64_t v, bool be)
{
	for (int i = 0; i < 8; i++)
		m->bytes[addr - BASE + (be ? 7 - i : i)] = (uint8_t)(v >> (8 * i));
}

struct seen {
	uint64_t slots[4096];
	size_t n;
	uint64_t stop_at;
};

static bool record(void *arg, uint64_t slot, uint64_t value)
{
	struct seen *s = arg;
	if (value)
		s->slots[s->n++] = slot;
	return s->stop_at && value == s->stop_at;
}

TEST(scan_visits_every_word_and_stops_at_gaps)
{
	struct mem *m = calloc(1, sizeof(*m));
	struct ct_unwind_mem um = { .arch = &ct_arch_x86_64, .read = mem_read, .arg = m };
	struct seen *s = calloc(1, sizeof(*s));
	put64(m, BASE + 8, 0x1111, false);
	put64(m, BASE + 4096 - 8, 0x2222, false); // last word of the first page
	put64(m, BASE + 4096 + 16, 0x3333, false);
	CHECK(ct_step_scan(&um, BASE, BASE + SIZE, record, s) == CT_SCAN_END);
	CHECK(s->n == 3 && s->slots[0] == BASE + 8 && s->slots[1] == BASE + 4096 - 8 && s->slots[2] == BASE + 4096 + 16);
	// The middle page missing: the words below it, then the scan ends.
	m->hole = true;
	s->n = 0;
	CHECK(ct_step_scan(&um, BASE, BASE + SIZE, record, s) == CT_SCAN_UNREADABLE);
	CHECK(s->n == 2);
	// The callback ends it.
	m->hole = false;
	s->n = 0;
	s->stop_at = 0x2222;
	CHECK(ct_step_scan(&um, BASE, BASE + SIZE, record, s) == CT_SCAN_STOPPED);
	CHECK(s->n == 2);
	// An unaligned range end: the partial word is not read.
	s->n = 0;
	s->stop_at = 0;
	CHECK(ct_step_scan(&um, BASE, BASE + 15, record, s) == CT_SCAN_END);
	CHECK(s->n == 0);
	free(s);
	free(m);
}

TEST(frame_record_both_byte_orders)
{
	struct mem *m = calloc(1, sizeof(*m));
	struct ct_unwind_mem um = { .arch = &ct_arch_x86_64, .read = mem_read, .arg = m };
	put64(m, BASE + 64 + ct_arch_x86_64.fp_saved_fp_offset, BASE + 128, false);
	put64(m, BASE + 64 + ct_arch_x86_64.fp_saved_ra_offset, 0xabcdef, false);
	uint64_t fp, ra;
	CHECK(ct_step_frame_record(&um, BASE + 64, &fp, &ra) && fp == BASE + 128 && ra == 0xabcdef);
	CHECK(!ct_step_frame_record(&um, BASE + SIZE, &fp, &ra));
	const struct ct_arch_info *be = ct_arch_find_endian(EM_PPC64, ELFCLASS64, true);
	if (be) {
		um.arch = be;
		put64(m, BASE + 256 + be->fp_saved_fp_offset, BASE + 512, true);
		put64(m, BASE + 256 + be->fp_saved_ra_offset, 0x123456, true);
		CHECK(ct_step_frame_record(&um, BASE + 256, &fp, &ra) && fp == BASE + 512 && ra == 0x123456);
	}
	free(m);
}

// A scripted step: frame i has cfa cfas[i]; 0 ends the walk.
struct script {
	const uint64_t *cfas;
	size_t next, emitted;
};

static enum ct_step_result script_step(void *arg, struct ct_unwind_frame *f, enum ct_stop_reason *why)
{
	struct script *s = arg;
	uint64_t c = s->cfas[s->next++];
	if (!c) {
		*why = CT_STOP_OUTERMOST;
		return CT_STEP_END;
	}
	*f = (struct ct_unwind_frame){ .pc = 0x1000 + s->next, .cfa = c, .resume = c };
	return CT_STEP_OK;
}

static bool script_emit(void *arg, const struct ct_unwind_frame *f)
{
	(void)f;
	((struct script *)arg)->emitted++;
	return true;
}

static void run(const uint64_t *cfas, uint64_t start, size_t cap, struct ct_unwind_end *end, struct script *s)
{
	*s = (struct script){ .cfas = cfas };
	struct ct_unwind_loop l = { .max_frames = cap, .policy = { .stack_size = 0x4000, .max_switches = 1 },
				    .not_outward = CT_STOP_SP_NOT_OUTWARD, .too_many_switches = CT_STOP_TOO_MANY_RECOVERIES,
				    .step = script_step, .emit = script_emit, .arg = s };
	ct_unwind_loop_run(&l, start, start, end);
}

TEST(loop_policy)
{
	struct ct_unwind_end end;
	struct script s;
	static const uint64_t outward[] = { 0x8010, 0x8020, 0x8030, 0 };
	run(outward, 0x8000, 100, &end, &s);
	CHECK(end.reason == CT_STOP_OUTERMOST && !end.failed && !end.truncated && end.added == 3 && end.resume == 0x8030);
	static const uint64_t back[] = { 0x8010, 0x8008, 0 };
	run(back, 0x8000, 100, &end, &s);
	CHECK(end.reason == CT_STOP_SP_NOT_OUTWARD && end.failed && end.added == 1 && s.emitted == 1 && end.resume == 0x8010);
	// Another stack once (an IRQ stack back to the task's, even below it), not twice.
	static const uint64_t switches[] = { 0x8010, 0x2000, 0x2010, 0x10000, 0 };
	run(switches, 0x8000, 100, &end, &s);
	CHECK(end.reason == CT_STOP_TOO_MANY_RECOVERIES && end.failed && end.added == 3);
	run(outward, 0x8000, 2, &end, &s);
	CHECK(end.reason == CT_STOP_FRAME_CAP && end.truncated && !end.failed && end.added == 2);
}

TEST(policy_equal_cfa)
{
	// A process stack: one stack, an equal sp once for a leaf (another pc), never for the same pc.
	struct ct_unwind_policy p = { .equal_cfa_ok = true };
	unsigned sw = 0;
	CHECK(ct_unwind_policy_check(&p, &sw, 0x1000, 0x400, 0x1000, 0x500) == CT_POLICY_OK);
	CHECK(ct_unwind_policy_check(&p, &sw, 0x1000, 0x400, 0x1000, 0x400) == CT_POLICY_NOT_OUTWARD);
	CHECK(ct_unwind_policy_check(&p, &sw, 0x1000, 0x400, 0xff8, 0x500) == CT_POLICY_NOT_OUTWARD);
	CHECK(ct_unwind_policy_check(&p, &sw, 0x1000, 0x400, 0x900000, 0x500) == CT_POLICY_OK && sw == 0);
	// A kernel stack: never equal.
	struct ct_unwind_policy k = { .stack_size = 0x4000, .max_switches = 4 };
	CHECK(ct_unwind_policy_check(&k, &sw, 0x8000, 0x400, 0x8000, 0x500) == CT_POLICY_NOT_OUTWARD);
}

TEST(orc_entry_bits)
{
	// sp_offset 16, bp_offset -16, sp_reg SP (5), bp_reg PREV_SP (1), type REGS (1), end 1.
	const uint8_t e[CT_ORC_ENTRY_SIZE] = { 0x10, 0x00, 0xf0, 0xff, 0x15, 0x05 };
	struct ct_orc_entry o;
	ct_orc_entry_decode(e, &o);
	CHECK(o.sp_offset == 16 && o.bp_offset == -16 && o.sp_reg == CT_ORC_REG_SP && o.bp_reg == CT_ORC_REG_PREV_SP &&
	      o.type == CT_ORC_TYPE_REGS && o.end);
}

TEST_MAIN()
