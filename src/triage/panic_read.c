// Reading a panic's message and location from the dump (issue 16). Bounded scans of the panic
// frames' stack (above the live sp only), each candidate checked by the shape of what it points to.
//
// Rust (std 1.63, panic=abort): rust_panic_with_hook keeps a PanicInfo on its frame:
//   { payload: &dyn Any (data, vtable), message: Option<&fmt::Arguments>, location: &Location, … }
// and core::panic::Location is { file: &str (ptr, len), line: u32, col: u32 } in .rodata. The
// payload is a &str (StrPanicPayload) or { inner: &Arguments, string: Option<String> } whose String
// (ptr, cap, len) the default hook filled with the formatted message.
// Go: gopanic(e any) keeps the eface (type, data) on its frame; for runtime.errorString and string
// values data points to a string header (ptr, len).
#include <inttypes.h>
#include <stdio.h>
#include <elfutils/libdwfl.h>
#include <string.h>

#include "modules/symbolize.h"
#include "triage/gather.h"
#include "unwind/unwind.h"
#include "util/bytes.h"

/** Stack bytes scanned above a panic frame's sp. */
#define PANIC_SCAN_BYTES 2048
/** Longest message or file name read. */
#define PANIC_TEXT_MAX 512

/** A word from the dump, or from the module file for read-only data the core left out (.rodata). */
static bool word(const struct ct_triage_input *s, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	if (ct_core_read_word(s->core, addr, ret))
		return true;
	if (!ct_modules_read_code(s->mods, addr, b, sizeof(b)))
		return false;
	*ret = ct_load64(b, false); // Rust and Go targets read here are little-endian (x86-64, aarch64)
	return true;
}

/** Reads @p len bytes of printable UTF-8 text at @p addr into the pool, or NULL. */
static const char *text_at(const struct ct_triage_input *s, uint64_t addr, uint64_t len)
{
	char buf[PANIC_TEXT_MAX + 1];
	if (!addr || !len || len > PANIC_TEXT_MAX ||
	    (!ct_core_read_fast(s->core, addr, buf, (size_t)len) && !ct_modules_read_code(s->mods, addr, buf, (size_t)len)))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
			return NULL;
	}
	buf[len] = '\0';
	return ct_strpool_intern_len(s->out.strings, buf, (size_t)len);
}

static bool read_location(const struct ct_triage_input *s, uint64_t at, const char **file, int *line, int *col)
{
	uint64_t ptr, len, lc;
	if (!word(s, at, &ptr) || !word(s, at + 8, &len) || !word(s, at + 16, &lc))
		return false;
	const char *f = text_at(s, ptr, len);
	uint32_t l = (uint32_t)lc, c = (uint32_t)(lc >> 32);
	if (!f || len < 4 || strcmp(f + len - 3, ".rs") != 0 || l == 0 || l > 10000000 || c > 100000)
		return false;
	*file = f;
	*line = (int)l;
	*col = (int)c;
	return true;
}

/** Symbol of the first vtable entry (drop_in_place<T>) of a payload's vtable, or NULL. */
static const char *payload_drop_name(const struct ct_triage_input *s, uint64_t vtable)
{
	uint64_t drop;
	if (!word(s, vtable, &drop))
		return NULL;
	Dwfl_Module *mod = dwfl_addrmodule(s->mods->dwfl, drop);
	return mod ? dwfl_module_addrname(mod, drop) : NULL;
}

static void read_rust(const struct ct_triage_input *s, const struct ct_thread *t, struct ct_panic_facts *p)
{
	// Frames of the panic path from the innermost one outward, until user code.
	for (size_t i = (size_t)p->frame; i < t->num_frames && i < (size_t)p->frame + 16; i++) {
		const struct ct_frame *fr = &t->frames[i];
		if (!fr->has_sp || !ct_function_is_rust_panic(fr->function))
			continue;
		// The location is passed around in several slots; the PanicInfo is the one whose
		// neighbours are a payload and a message.
		for (uint64_t a = fr->sp; a < fr->sp + PANIC_SCAN_BYTES; a += 8) {
			uint64_t loc;
			const char *file;
			int line, col;
			if (!word(s, a, &loc) || !read_location(s, loc, &file, &line, &col))
				continue;
			if (!p->file) {
				p->file = file;
				p->line = line;
				p->column = col;
			}
			// PanicInfo: payload data, vtable, message, location.
			uint64_t data, vtable, msg, w0, w1, w2, w3 = 0;
			if (a < 24 || !word(s, a - 24, &data) || !word(s, a - 16, &vtable) || !word(s, a - 8, &msg) ||
			    !word(s, data, &w0) || !word(s, data + 8, &w1) || !word(s, data + 16, &w2))
				continue;
			word(s, data + 24, &w3);
			// The payload's type, from its vtable's drop_in_place symbol: a &str
			// (StrPanicPayload), the String the hook formatted (after payload.get()), or the
			// PanicPayload holding it next to the &Arguments (either field order).
			const char *drop = payload_drop_name(s, vtable);
			if (drop && strstr(drop, "StrPanicPayload"))
				p->message = text_at(s, w0, w1);
			else if (drop && (strstr(drop, "string..String") || strstr(drop, "string::String")))
				p->message = w2 <= w1 ? text_at(s, w0, w2) : NULL; // the formatted String itself
			else if (drop && strstr(drop, "PanicPayload"))
				p->message = w0 == msg ? (w3 <= w2 ? text_at(s, w1, w3) : NULL)
					     : w2 <= w1 ? text_at(s, w0, w2) : NULL;
			else
				p->message = text_at(s, w0, w1); // a &str-like payload
			if (p->message)
				return;
		}
	}
}

static void read_go(const struct ct_triage_input *s, const struct ct_thread *t, const struct ct_frame_fact *ff,
		    struct ct_panic_facts *p)
{
	// The facts' names: a stripped Go binary's come from its pclntab (gather.c), not the symbols.
	size_t i = (size_t)p->frame;
	while (i < t->num_frames && !(ff[i].function && strcmp(ff[i].function, "runtime.gopanic") == 0))
		i++;
	if (i >= t->num_frames || !t->frames[i].has_sp)
		return;
	// The caller's sp bounds gopanic's frame; a return address found by scanning between them (a
	// stripped binary has no CFI) is a stale word of the frame, not the caller.
	size_t c = i + 1;
	while (c < t->num_frames && t->frames[c].trust == CT_TRUST_SCAN && c < i + 4)
		c++;
	uint64_t lo = t->frames[i].sp, hi = c < t->num_frames && t->frames[c].has_sp ? t->frames[c].sp : lo;
	if (hi <= lo || hi - lo > PANIC_SCAN_BYTES)
		hi = lo + PANIC_SCAN_BYTES;
	// Go's register ABI spills the argument e to the caller's frame, just above gopanic's.
	hi += 16;
	// A bounds check (runtime.goPanicIndex, goPanicSlice*): e is a runtime.boundsError
	// { x int64, y int, signed bool, code uint8 } (runtime/error.go, Go 1.19), e spilled just
	// above gopanic's frame.
	uint64_t type, data, x, y, sc;
	if (p->raiser && strncmp(p->raiser, "runtime.goPanic", 15) == 0 && word(s, hi - 16, &type) &&
	    word(s, hi - 8, &data) && ct_modules_find(s->mods, type) && word(s, data, &x) && word(s, data + 8, &y) &&
	    word(s, data + 16, &sc) && (uint8_t)(sc >> 8) <= 8) {
		// runtime/error.go boundsErrorFmt, split around %x and %y.
		static const char *const parts[][3] = {
			{ "index out of range [", "] with length ", "" },
			{ "slice bounds out of range [:", "] with length ", "" },
			{ "slice bounds out of range [:", "] with capacity ", "" },
			{ "slice bounds out of range [", ":", "]" },
			{ "slice bounds out of range [:", "] with length ", "" },
			{ "slice bounds out of range [:", "] with capacity ", "" },
			{ "slice bounds out of range [:", ":", "]" },
			{ "slice bounds out of range [", ":", ":]" },
			{ "cannot convert slice with length ", " to array or pointer to array with length ", "" },
		};
		const char *const *pt = parts[(uint8_t)(sc >> 8)];
		char xs[24], ys[24];
		if (sc & 0xff)
			snprintf(xs, sizeof(xs), "%" PRId64, (int64_t)x);
		else
			snprintf(xs, sizeof(xs), "%" PRIu64, x);
		snprintf(ys, sizeof(ys), "%" PRId64, (int64_t)y);
		p->message = ct_strpool_printf(s->out.strings, "%s%s%s%s%s", pt[0], xs, pt[1], ys, pt[2]);
		return;
	}
	for (uint64_t a = lo; a + 16 <= hi; a += 8) {
		uint64_t ptr, len;
		if (!word(s, a, &type) || !word(s, a + 8, &data) || !ct_modules_find(s->mods, type) || !word(s, data, &ptr) ||
		    !word(s, data + 8, &len) || len < 4)
			continue;
		const struct ct_module_state *m = ct_modules_find(s->mods, ptr);
		const char *msg = m ? text_at(s, ptr, len) : NULL;
		if (msg) {
			p->message = msg;
			return;
		}
	}
}

/** Bytes of the interrupted g0 stack scanned for runtime.fatal's / runtime.throw's closure. */
#define GO_FATAL_SCAN_BYTES 4096

/**
 * The closure of runtime.fatal or runtime.throw whose code starts at @p fn, else NULL. Named by the
 * symbolizer: the symbol table, or a stripped Go binary's pclntab (modules/go_symbols.h).
 */
static const char *go_fatal_closure(const struct ct_triage_input *s, uint64_t fn)
{
	if (!ct_modules_is_code(s->mods, fn))
		return NULL;
	const struct ct_sym *syms;
	size_t n = ct_symbolize(s->mods, fn, &syms);
	// The outermost entry is the function itself (inlined calls come first).
	const char *name = syms[n - 1].function;
	if (!name || syms[n - 1].offset != 0)
		return NULL;
	return strcmp(name, "runtime.fatal.func1") == 0 ? "runtime.fatal"
	       : strcmp(name, "runtime.throw.func1") == 0 ? "runtime.throw" : NULL;
}

/*
 * Go (1.19: runtime/panic.go) throw(s) and fatal(s) run `systemstack(func() { print("fatal error: ",
 * s, "\n") })`: the closure does not escape, so it lies in their frame as { fn, s.ptr, s.len }. With
 * GOTRACEBACK=crash the runtime then raises SIGABRT on that g0 stack, its handler (runtime.sigtramp)
 * takes it on the signal stack and re-raises it: the crashing thread's signal frame holds the g0
 * sp. The string in RAX/RBX at the call is clobbered by then, and no global keeps it.
 */
void ct_go_fatal_read(const struct ct_triage_input *s, struct ct_facts *f)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	struct ct_go_fatal_facts *g = &f->go_fatal;
	size_t i = 0;
	if (!t || t->num_frames != f->num_frames)
		return;
	while (i < t->num_frames && !(f->frames[i].function && strcmp(f->frames[i].function, "runtime.sigtramp") == 0))
		i++;
	if (i >= t->num_frames)
		return; // not Go's signal handler: nothing to say
	g->why_not = "the Go signal handler's frame has no caller unwound";
	if (i + 1 >= t->num_frames || !t->frames[i + 1].has_sp)
		return;
	// The caller of sigtramp must be a sigreturn trampoline (Go's runtime.sigreturn__sigaction),
	// known by its code: then its sp is the kernel's ucontext.
	const struct ct_frame *tramp = &t->frames[i + 1];
	const struct ct_arch_sigframe *l = ct_unwind_sigframe_at(s->mods, tramp->pc);
	struct ct_sigframe_facts sf;
	g->why_not = "the return address of the Go signal handler is no sigreturn trampoline";
	if (!l)
		return;
	g->why_not = "the signal frame of the Go signal handler is not in the dump";
	if (!ct_sigframe_read(s->core, l, i + 1, tramp->sp, &sf) || !sf.sp)
		return;
	g->why_not = "no closure of runtime.fatal or runtime.throw on the interrupted stack";
	for (uint64_t a = sf.sp; a < sf.sp + GO_FATAL_SCAN_BYTES; a += 8) {
		uint64_t fn, ptr, len;
		if (!ct_core_read_word(s->core, a, &fn))
			return; // the end of the stack's mapping
		const char *which = fn ? go_fatal_closure(s, fn) : NULL;
		if (!which || !word(s, a + 8, &ptr) || !word(s, a + 16, &len) || !ct_modules_find(s->mods, ptr))
			continue;
		const char *msg = text_at(s, ptr, len);
		if (!msg)
			continue;
		g->message = msg;
		g->function = which;
		g->closure = a;
		g->why_not = NULL;
		return;
	}
}

void ct_panic_read(const struct ct_triage_input *s, struct ct_facts *f)
{
	const struct ct_thread *t = ct_stacks_crashed(s->stacks);
	struct ct_panic_facts *p = &f->panic;
	if (!t || !p->runtime || p->frame < 0 || (size_t)p->frame >= t->num_frames || t->num_frames != f->num_frames)
		return;
	if (strcmp(p->runtime, "rust") == 0)
		read_rust(s, t, p);
	else
		read_go(s, t, f->frames, p);
}
