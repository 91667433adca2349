// The cached CFI step (src/unwind/cfi_cache.c) against libdwfl itself, on a real kernel-written
// core of the cores fixture (deep-recursion: its path in CT_TEST_CORE, the executable in
// CT_TEST_EXE): libdwfl walks the crashing thread with the same callbacks as unwind_dwfl.c, and
// every step the cache takes must give the caller libdwfl gave (pc and every register, known or
// not); a cached walk must hand over where and as the policy loop expects; a cache thrashed by
// far more distinct pcs than it has slots (a hostile core's stack) keeps its memory and its answers.
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "dump/elfcore.h"
#include "modules/modules.h"
#include "test.h"
#include "unwind/cfi_cache.h"

#define MAX_FRAMES 20000

struct fixture {
	uint8_t *data;
	size_t size;
	struct ct_core *core;
	struct ct_options opts;
	struct ct_report report;
	struct ct_module_set mods;
	const struct ct_core_thread *thread;
	struct ct_cfi_state *frames; // libdwfl's walk, frame by frame
	bool *exact;
	size_t count;
};

static bool memory_cb(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct fixture *fx = arg;
	uint64_t v;
	if (!ct_core_read_word(fx->core, addr, &v))
		return false;
	*result = v;
	return true;
}

static pid_t next_thread_cb(Dwfl *dwfl, void *arg, void **thread_argp)
{
	return 0;
}

static bool get_thread_cb(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool initial_cb(Dwfl_Thread *thread, void *arg)
{
	const struct fixture *fx = arg;
	const struct ct_arch_info *arch = fx->core->arch;
	for (int r = 0; r < arch->num_dwarf; r++) {
		Dwarf_Word v = fx->thread->dwarf[r];
		if (fx->thread->valid[r] && !dwfl_thread_state_registers(thread, r, 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(thread, fx->thread->pc);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread_cb,
	.get_thread = get_thread_cb,
	.memory_read = memory_cb,
	.set_initial_registers = initial_cb,
};

static int record_cb(Dwfl_Frame *state, void *arg)
{
	struct fixture *fx = arg;
	if (fx->count == MAX_FRAMES)
		return DWARF_CB_ABORT;
	struct ct_cfi_state *f = &fx->frames[fx->count];
	memset(f, 0, sizeof(*f));
	Dwarf_Addr pc;
	bool exact = false;
	if (!dwfl_frame_pc(state, &pc, &exact))
		return DWARF_CB_ABORT;
	f->pc = pc;
	for (int r = 0; r < fx->core->arch->num_dwarf; r++) {
		Dwarf_Word v;
		if (dwfl_frame_reg(state, (unsigned)r, &v) == 0) {
			f->set |= 1ULL << r;
			f->regs[r] = v;
		}
	}
	fx->exact[fx->count++] = exact;
	return DWARF_CB_OK;
}

static bool fixture_open(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	const char *core_path = getenv("CT_TEST_CORE"), *exe = getenv("CT_TEST_EXE");
	FILE *f = core_path ? fopen(core_path, "rb") : NULL;
	CHECK(f != NULL);
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	fx->data = n > 0 ? malloc((size_t)n) : NULL;
	bool ok = fx->data && fread(fx->data, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	CHECK(ok);
	if (!ok)
		return false;
	fx->size = (size_t)n;
	struct ct_error *err = ct_core_open_memory(fx->data, fx->size, 16, &fx->core);
	CHECK(err == NULL);
	if (err) {
		ct_error_destroy(err);
		return false;
	}
	ct_options_init(&fx->opts);
	fx->opts.executable = exe;
	fx->opts.debuginfod = false;
	CHECK(ct_report_init(&fx->report));
	err = ct_modules_load(&fx->opts, fx->core, ct_report_sink(&fx->report), NULL, &fx->mods);
	CHECK(err == NULL);
	ct_error_destroy(err);
	if (err)
		return false;
	for (size_t i = 0; i < fx->core->num_threads && !fx->thread; i++)
		if (fx->core->threads[i].cursig)
			fx->thread = &fx->core->threads[i];
	CHECK(fx->thread != NULL);
	CHECK(fx->core->arch && fx->core->arch->cfi_cache_step);
	if (!fx->thread || !fx->core->arch || !fx->core->arch->cfi_cache_step)
		return false;
	fx->frames = calloc(MAX_FRAMES, sizeof(*fx->frames));
	fx->exact = calloc(MAX_FRAMES, sizeof(*fx->exact));
	if (!fx->frames || !fx->exact)
		return false;
	CHECK(dwfl_attach_state(fx->mods.dwfl, fx->mods.core_elf, 1, &callbacks, fx));
	dwfl_getthread_frames(fx->mods.dwfl, 1, record_cb, fx);
	// deep-recursion recurses 10,000 times (testdata/src/crashme.c)
	CHECK(fx->count > 1000);
	return true;
}

static void fixture_close(struct fixture *fx)
{
	free(fx->frames);
	free(fx->exact);
	ct_modules_unload(&fx->mods);
	if (fx->core)
		ct_core_destroy(fx->core);
	ct_report_deinit(&fx->report);
	free(fx->data);
}

static bool same_state(const struct ct_cfi_state *a, const struct ct_cfi_state *b)
{
	if (a->pc != b->pc || a->set != b->set)
		return false;
	for (int r = 0; r < 64; r++)
		if ((a->set >> r & 1) && a->regs[r] != b->regs[r])
			return false;
	return true;
}

// Every step the cache takes is libdwfl's; returns how many it took.
static size_t check_steps(struct fixture *fx, struct ct_cfi_cache *c)
{
	size_t taken = 0, wrong = 0;
	for (size_t k = 0; k + 1 < fx->count; k++) {
		// libdwfl looks a frame up at pc - 1 unless it is the first (or a signal frame's caller).
		if (k > 0 && fx->exact[k])
			continue;
		struct ct_cfi_state out;
		uint64_t lookup = k == 0 ? fx->frames[k].pc : fx->frames[k].pc - 1;
		if (!ct_cfi_step(c, fx->mods.dwfl, fx->core, lookup, &fx->frames[k], &out))
			continue;
		taken++;
		if (!same_state(&out, &fx->frames[k + 1]) && wrong++ < 5)
			fprintf(stderr, "frame %zu: cached step differs from libdwfl's\n", k);
	}
	CHECK_EQ(wrong, 0);
	return taken;
}

TEST(cached_steps_are_libdwfls)
{
	struct fixture fx;
	if (fixture_open(&fx)) {
		struct ct_cfi_cache *c = ct_cfi_cache_new(fx.core->arch);
		CHECK(c != NULL);
		size_t taken = check_steps(&fx, c);
		// Only the outermost frames (libc's start code: an undefined return address) need libdwfl.
		CHECK(taken + 5 >= fx.count);
		uint64_t compiled, hits;
		ct_cfi_cache_stats(c, &compiled, &hits);
		// A recursion has a handful of distinct pcs: the rules are compiled once each.
		CHECK(compiled < 32);
		CHECK(hits + compiled >= taken);
		// Asked again, the cache answers the same.
		CHECK_EQ(check_steps(&fx, c), taken);
		ct_cfi_cache_free(c);
	}
	fixture_close(&fx);
}

struct collect {
	const struct fixture *fx;
	size_t n, wrong;
};

static int collect_cb(void *arg, const struct ct_cfi_state *frame, bool exact)
{
	struct collect *col = arg;
	const struct fixture *fx = col->fx;
	if (col->n >= fx->count || !same_state(frame, &fx->frames[col->n]) || exact != (col->n == 0))
		col->wrong++;
	col->n++;
	return DWARF_CB_OK;
}

TEST(cached_walk_hands_over_to_libdwfl)
{
	struct fixture fx;
	if (fixture_open(&fx)) {
		struct ct_cfi_cache *c = ct_cfi_cache_new(fx.core->arch);
		struct collect col = { .fx = &fx };
		struct ct_cfi_state resume;
		int skip = -1;
		CHECK_EQ(ct_cfi_walk(c, fx.mods.dwfl, fx.core, &fx.frames[0], collect_cb, &col, &resume, &skip), 0);
		CHECK_EQ(col.wrong, 0);
		CHECK(col.n + 5 >= fx.count);
		CHECK(col.n > 0 && col.n < fx.count);
		// libdwfl restarts at the last frame taken, looked up at its return address - 1, and its
		// first frame is that one again.
		CHECK_EQ(skip, 1);
		if (col.n > 1 && col.n < fx.count) {
			struct ct_cfi_state want = fx.frames[col.n - 1];
			want.pc -= 1;
			CHECK(same_state(&resume, &want));
		}
		// A stop asked by the frame callback is the walk's result.
		ct_cfi_cache_free(c);
	}
	fixture_close(&fx);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * 4;
}

TEST(hostile_stacks_keep_the_cache_bounded)
{
	struct fixture fx;
	if (fixture_open(&fx)) {
		struct ct_cfi_cache *c = ct_cfi_cache_new(fx.core->arch);
		// Warm: libdw's own FDE tables are read on the first lookups.
		check_steps(&fx, c);
		long before = rss_kib();
		// A hostile stack: a return address at every byte of the code around the crash (far
		// more distinct pcs than the table has slots), with garbage registers: nothing grows.
		struct ct_cfi_state junk = fx.frames[0], out;
		for (int r = 0; r < 64; r++)
			junk.regs[r] = 0xdead000000000000ULL + (uint64_t)r * 0x1000;
		junk.set = ~0ULL;
		size_t stepped = 0;
		for (uint64_t i = 0; i < 200000; i++) {
			uint64_t pc = fx.frames[0].pc - 100000 + i;
			stepped += ct_cfi_step(c, fx.mods.dwfl, fx.core, pc, &junk, &out);
		}
		uint64_t compiled, hits;
		ct_cfi_cache_stats(c, &compiled, &hits);
		CHECK(compiled > 100000);
		CHECK(rss_kib() - before < 16 * 1024);
		// Thrashed, it still gives libdwfl's callers.
		CHECK(check_steps(&fx, c) + 5 >= fx.count);
		(void)stepped;
		ct_cfi_cache_free(c);
	}
	fixture_close(&fx);
}

TEST(architectures_without_the_step_get_no_cache)
{
	CHECK(ct_cfi_cache_new(NULL) == NULL);
	const struct ct_arch_info *arm = ct_arch_find(EM_ARM, ELFCLASS32);
	CHECK(arm != NULL);
	CHECK(ct_cfi_cache_new(arm) == NULL);
}

TEST_MAIN()
