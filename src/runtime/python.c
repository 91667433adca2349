// CPython's threads and frames, read from the dump (docs/runtimes.md). Every pointer is the dump's:
// each read is bounded and checked (a code object must have PyCode_Type as its type, a string
// PyUnicode_Type), chains are capped and checked for loops, and what does not hold together cuts
// that thread's stack with a diagnostic, never the analysis.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "runtime/python.h"
#include "util/bytes.h"
#include "util/budget.h"

/** CPython's PyASCIIObject.state bits (Include/cpython/unicodeobject.h, 3.11). */
#define STATE_KIND(s) (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s) (((s) >> 6) & 1)

/** What the walk needs, found once: the layout, the runtime's address, the type objects. */
struct walk {
	const struct ct_runtime_input *in;
	const struct ct_py_layout *l;
	bool be;
	uint64_t runtime;
	uint64_t code_type, unicode_type, bytes_type; /**< 0 when not found: that check is skipped */
	/** The diagnostic for an unreadable piece is said once per thread, then counted. */
	size_t unreadable;
	uint8_t *linetable; /**< scratch, CT_PY_MAX_LINETABLE bytes (owned) */
};

static bool rd(const struct walk *w, uint64_t addr, void *buf, size_t len)
{
	return ct_core_read_fast(w->in->core, addr, buf, len);
}

static bool rd_ptr(const struct walk *w, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	if (!rd(w, addr, b, w->l->pointer_size))
		return false;
	*ret = w->l->pointer_size == 8 ? ct_load64(b, w->be) : ct_load32(b, w->be);
	return true;
}

static bool rd_u32(const struct walk *w, uint64_t addr, uint32_t *ret)
{
	uint8_t b[4];
	if (!rd(w, addr, b, 4))
		return false;
	*ret = ct_load32(b, w->be);
	return true;
}

// The object's type is @p type (when the type object was found in the symbols).
static bool has_type(const struct walk *w, uint64_t obj, uint64_t type)
{
	uint64_t t;
	return obj && rd_ptr(w, obj + w->l->ob_type, &t) && (!type || t == type);
}

// Appends code point @p cp as UTF-8 (no surrogates: those become U+FFFD).
static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp >= 0xd800 && cp < 0xe000)
		cp = 0xfffd;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 63));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 63));
		out[2] = (char)(0x80 | (cp & 63));
		return 3;
	}
	if (cp > 0x10ffff)
		cp = 0xfffd;
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 63));
	out[2] = (char)(0x80 | ((cp >> 6) & 63));
	out[3] = (char)(0x80 | (cp & 63));
	return 4;
}

// A compact str object as pooled UTF-8 (cut at CT_PY_MAX_STRING bytes), NULL when unreadable.
static const char *read_str(struct walk *w, uint64_t obj)
{
	const struct ct_py_layout *l = w->l;
	uint64_t length;
	uint32_t state;
	if (!has_type(w, obj, w->unicode_type) || !rd_ptr(w, obj + l->str_length, &length) ||
	    !rd_u32(w, obj + l->str_state, &state) || !STATE_COMPACT(state))
		return NULL;
	unsigned kind = STATE_ASCII(state) ? 1 : STATE_KIND(state);
	if (kind != 1 && kind != 2 && kind != 4)
		return NULL;
	uint64_t data = obj + (STATE_ASCII(state) ? l->str_ascii_data : l->str_compact_data);
	// Each code point is at most 4 bytes of UTF-8; the cut keeps whole characters.
	bool cut = length > CT_PY_MAX_STRING / 4;
	size_t n = cut ? CT_PY_MAX_STRING / 4 : (size_t)length;
	uint8_t raw[CT_PY_MAX_STRING];
	char text[CT_PY_MAX_STRING + 8];
	// A compact string ends in a NUL after its length (CPython keeps one): a length that is not
	// the string's (a hostile or torn object) is refused, and a long one is cut, not read whole.
	uint8_t nul[4];
	if (length > UINT64_MAX / 8 || !rd(w, data, raw, n * kind) || !rd(w, data + length * kind, nul, kind))
		return NULL;
	for (unsigned k = 0; k < kind; k++) {
		if (nul[k])
			return NULL;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = kind == 1 ? raw[i] : kind == 2 ? ct_load16(raw + 2 * i, w->be) : ct_load32(raw + 4 * i, w->be);
		o += put_utf8(text + o, cp ? cp : 0xfffd);
	}
	if (cut) {
		memcpy(text + o, "\xe2\x80\xa6", 3); // "…"
		o += 3;
	}
	text[o] = '\0';
	if (!ct_budget_take(w->in->budget, CT_BUDGET_TEXT, o))
		return NULL;
	return ct_strpool_intern_len(w->in->out.strings, text, o);
}

static void unreadable(struct walk *w, int tid, const char *what, uint64_t addr);

// The line of the instruction at @p prev_instr of code object @p code, 0 when it has none.
static int code_line(struct walk *w, int tid, uint64_t code, uint64_t prev_instr)
{
	const struct ct_py_layout *l = w->l;
	uint32_t first;
	uint64_t table = 0, size;
	if (!rd_u32(w, code + l->co_firstlineno, &first) || !rd_ptr(w, code + l->co_linetable, &table) ||
	    !has_type(w, table, w->bytes_type) || !rd_ptr(w, table + l->ob_size, &size) || size > CT_PY_MAX_LINETABLE ||
	    !rd(w, table + l->bytes_sval, w->linetable, (size_t)size)) {
		unreadable(w, tid, "line table (co_linetable)", table);
		return 0;
	}
	// CPython's _PyInterpreterFrame_LASTI: prev_instr counts code units from co_code_adaptive; a
	// frame that has not run its first instruction is at -1, which is the first line.
	int64_t addrq = (int64_t)(prev_instr - (code + l->co_code_adaptive));
	int line = ct_py_linetable_line(w->linetable, (size_t)size, (int)first, addrq);
	return line > 0 ? line : 0;
}

// A frame that has not reached its first traceable instruction (CPython's _PyFrame_IsIncomplete):
// being set up, it is not shown, as traceback does not show it. Generator frames always are complete.
static bool incomplete(const struct walk *w, uint64_t code, uint64_t prev_instr, uint8_t owner)
{
	uint32_t first_traceable;
	if (owner == 1 /* FRAME_OWNED_BY_GENERATOR */ || !rd_u32(w, code + w->l->co_firsttraceable, &first_traceable))
		return false;
	return prev_instr < code + w->l->co_code_adaptive + (uint64_t)first_traceable * 2;
}

static void unreadable(struct walk *w, int tid, const char *what, uint64_t addr)
{
	if (w->unreadable++ == 0)
		ct_sink_diag(&w->in->out, CT_SEVERITY_WARNING, tid, CT_DIAG_RUNTIME_UNREADABLE,
			     "thread %d: Python %s at 0x%" PRIx64 " is not in the dump or not what it should be; what it holds is left out",
			     tid, what, addr);
}

// Brent's loop check over a pointer chain: true when @p p was seen (bounded memory, no visited set).
struct loop_check {
	uint64_t saved;
	size_t steps, power;
};

static bool loops(struct loop_check *c, uint64_t p)
{
	if (c->steps && p == c->saved)
		return true;
	if (++c->steps == c->power || !c->power) {
		c->saved = p;
		c->power = c->power ? c->power * 2 : 2;
	}
	return false;
}

static struct ct_runtime_frame *add_frame(struct ct_runtime_thread *t, size_t *cap)
{
	if (t->num_frames == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct ct_runtime_frame *f = realloc(t->frames, n * sizeof(*f));
		if (!f)
			return NULL;
		t->frames = f;
		*cap = n;
	}
	struct ct_runtime_frame *f = &t->frames[t->num_frames++];
	*f = (struct ct_runtime_frame){ .native_frame = -1 };
	return f;
}

/**
 * Matches the evaluation-loop frames of the native stack with the Python frames: each native call
 * of _PyEval_EvalFrameDefault runs the frames down to (and with) one that is an entry frame, so the
 * k-th group of Python frames belongs to the k-th such native frame. When the counts differ (a
 * native stack cut short, an interpreter without symbols) nothing is decided.
 */
static void merge_native(const struct ct_thread *nt, struct ct_runtime_thread *t, const bool *entry, size_t n)
{
	size_t groups = 0;
	for (size_t i = 0; i < n; i++)
		groups += entry[i];
	if (n && !entry[n - 1])
		groups++; // the outermost frames' own entry may be one the walk skipped
	size_t evals = 0;
	for (size_t i = 0; i < nt->num_frames; i++)
		evals += nt->frames[i].function && strcmp(nt->frames[i].function, "_PyEval_EvalFrameDefault") == 0;
	if (!groups || groups != evals || nt->truncated)
		return;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		while (k < nt->num_frames &&
		       !(nt->frames[k].function && strcmp(nt->frames[k].function, "_PyEval_EvalFrameDefault") == 0))
			k++;
		t->frames[i].native_frame = (long)k;
		if (entry[i])
			k++;
	}
}

// Whether the native thread waits for the GIL: in take_gil (symbols), or in a futex call on the
// GIL's condition variable or mutex (the dump's registers, without symbols). The switch_cond
// after them is not one: a thread that dropped the GIL waits there for another to take it.
static bool waits_for_gil(const struct walk *w, const struct ct_core_thread *ct, const struct ct_thread *nt)
{
	for (size_t i = 0; nt && i < nt->num_frames && i < 16; i++) {
		if (nt->frames[i].function && strcmp(nt->frames[i].function, "take_gil") == 0)
			return true;
	}
	const struct ct_arch_info *a = w->in->core->arch;
	if (!ct || !a || !ct->has_regs || a->syscall_nr_index < 0 || a->syscall_arg_index[0] < 0 || !a->syscalls)
		return false;
	if ((size_t)a->syscall_nr_index >= ct->num_values || (size_t)a->syscall_arg_index[0] >= ct->num_values)
		return false;
	if (ct_syscall_lookup(a->syscalls, *a->num_syscalls, ct->values[a->syscall_nr_index], NULL) != CT_SYS_FUTEX)
		return false;
	uint64_t addr = ct->values[a->syscall_arg_index[0]];
	uint64_t sync = w->runtime + w->l->rt_gil_sync;
	return addr >= sync && addr < sync + w->l->rt_gil_sync_size;
}

static const struct ct_core_thread *core_thread(const struct ct_core *core, int tid)
{
	for (size_t i = 0; i < core->num_threads; i++) {
		if (core->threads[i].tid == tid)
			return &core->threads[i];
	}
	return NULL;
}

// One thread state's frames, innermost first.
static void walk_thread(struct walk *w, uint64_t ts, uint64_t gil_holder, bool gil_locked, struct ct_runtime_thread *t)
{
	const struct ct_py_layout *l = w->l;
	uint64_t tid = 0, cframe = 0, frame = 0;
	rd_ptr(w, ts + l->ts_native_thread_id, &tid);
	t->tid = (int)tid;
	w->unreadable = 0;
	const struct ct_core_thread *ct = core_thread(w->in->core, t->tid);
	const struct ct_thread *nt = ct_stacks_find(w->in->stacks, t->tid);
	t->in_dump = ct != NULL;
	if (gil_locked && ts == gil_holder)
		t->gil = CT_GIL_HELD;
	else if (waits_for_gil(w, ct, nt))
		t->gil = CT_GIL_WAITING;
	else if (ct)
		t->gil = CT_GIL_RELEASED;
	if (!rd_ptr(w, ts + l->ts_cframe, &cframe) || (cframe && !rd_ptr(w, cframe + l->cf_current_frame, &frame))) {
		unreadable(w, t->tid, "thread state", ts);
		t->truncated = true;
		return;
	}
	size_t cap = 0, n = 0;
	bool *entry = NULL;
	struct loop_check lc = { 0 };
	for (; frame; n++) {
		if (n >= CT_PY_MAX_FRAMES || loops(&lc, frame) || !ct_budget_take(w->in->budget, CT_BUDGET_FRAMES, 1)) {
			if (n < CT_PY_MAX_FRAMES && lc.steps)
				unreadable(w, t->tid, "frame chain (a loop)", frame);
			t->truncated = true;
			break;
		}
		uint64_t code, prev, instr;
		uint8_t flags[2];
		if (!rd_ptr(w, frame + l->fr_code, &code) || !rd_ptr(w, frame + l->fr_previous, &prev) ||
		    !rd_ptr(w, frame + l->fr_prev_instr, &instr) || !rd(w, frame + l->fr_is_entry, &flags[0], 1) ||
		    !rd(w, frame + l->fr_owner, &flags[1], 1) || !has_type(w, code, w->code_type)) {
			unreadable(w, t->tid, "frame", frame);
			t->truncated = true;
			break;
		}
		bool is_entry = flags[0] != 0;
		frame = prev;
		if (incomplete(w, code, instr, (uint8_t)flags[1])) {
			// Its entry mark still ends a native call's group: it moves to the frame shown before it.
			if (is_entry && t->num_frames)
				entry[t->num_frames - 1] = true;
			continue;
		}
		size_t before = cap;
		struct ct_runtime_frame *f = add_frame(t, &cap);
		if (cap != before) {
			bool *e = realloc(entry, cap * sizeof(*e));
			if (!e) {
				t->num_frames--;
				f = NULL;
			} else {
				entry = e;
			}
		}
		if (!f) {
			ct_sink_diag(&w->in->out, CT_SEVERITY_ERROR, t->tid, CT_DIAG_NO_MEMORY, "out of memory reading Python frames");
			t->truncated = true;
			break;
		}
		entry[t->num_frames - 1] = is_entry;
		uint64_t name = 0, file = 0;
		if (rd_ptr(w, code + l->co_name, &name) && !(f->function = read_str(w, name)))
			unreadable(w, t->tid, "name (co_name)", name);
		if (rd_ptr(w, code + l->co_qualname, &name))
			f->qualname = read_str(w, name);
		if (rd_ptr(w, code + l->co_filename, &file) && !(f->file = read_str(w, file)))
			unreadable(w, t->tid, "file name (co_filename)", file);
		f->line = code_line(w, t->tid, code, instr);
	}
	if (nt && t->num_frames)
		merge_native(nt, t, entry, t->num_frames);
	free(entry);
}

/** The symbols the stage reads, found in one pass over the interpreter's symbol table. */
enum { SYM_RUNTIME, SYM_VERSION, SYM_CODE_TYPE, SYM_UNICODE_TYPE, SYM_BYTES_TYPE, SYM_ANCHORS,
       SYM_NUM = SYM_ANCHORS + CT_PY_NUM_ANCHORS };

// The module holding _PyRuntime (the executable: Debian links libpython into it; or a libpython)
// with the stage's symbols in @p addrs and @p found.
static const struct ct_module_state *find_runtime(const struct ct_module_set *mods, uint64_t *addrs, bool *found)
{
	const char *names[SYM_NUM] = { [SYM_RUNTIME] = "_PyRuntime", [SYM_VERSION] = "Py_Version",
				       [SYM_CODE_TYPE] = "PyCode_Type", [SYM_UNICODE_TYPE] = "PyUnicode_Type",
				       [SYM_BYTES_TYPE] = "PyBytes_Type" };
	for (size_t i = 0; i < CT_PY_NUM_ANCHORS; i++)
		names[SYM_ANCHORS + i] = ct_py_dwarf_anchors[i];
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < mods->num_modules; i++) {
			const struct ct_module_state *m = &mods->modules[i];
			bool libpython = m->name && strncmp(m->name, "libpython", 9) == 0;
			if ((pass == 0 ? m->is_main : libpython) && ct_modules_symbols(m, names, SYM_NUM, addrs, found) &&
			    found[SYM_RUNTIME])
				return m;
		}
	}
	return NULL;
}

// "3.11.2", "3.12.0rc1" from PY_VERSION_HEX (0xMMmmppLS: level a, b, c (rc), f (final), serial).
static const char *version_text(const struct ct_runtime_input *in, uint64_t hex)
{
	unsigned level = (hex >> 4) & 15, serial = hex & 15;
	static const char *const levels[] = { [0xa] = "a", [0xb] = "b", [0xc] = "rc" };
	const char *suffix = level >= 0xa && level <= 0xc ? levels[level] : NULL;
	if (suffix)
		return ct_strpool_printf(in->out.strings, "%u.%u.%u%s%u", (unsigned)(hex >> 24) & 255,
					 (unsigned)(hex >> 16) & 255, (unsigned)(hex >> 8) & 255, suffix, serial);
	return ct_strpool_printf(in->out.strings, "%u.%u.%u", (unsigned)(hex >> 24) & 255, (unsigned)(hex >> 16) & 255,
				 (unsigned)(hex >> 8) & 255);
}

static bool add_thread(struct ct_runtime *rt, size_t *cap)
{
	if (rt->num_threads == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct ct_runtime_thread *t = realloc(rt->threads, n * sizeof(*t));
		if (!t)
			return false;
		rt->threads = t;
		*cap = n;
	}
	rt->threads[rt->num_threads++] = (struct ct_runtime_thread){ 0 };
	return true;
}

void ct_runtime_python(const struct ct_runtime_input *in, struct ct_runtime *ret)
{
	*ret = (struct ct_runtime){ 0 };
	struct walk w = { .in = in, .be = in->core->big_endian };
	uint64_t sym[SYM_NUM] = { 0 };
	bool found[SYM_NUM];
	const struct ct_module_state *m = find_runtime(in->mods, sym, found);
	if (!m)
		return;
	w.runtime = sym[SYM_RUNTIME];
	// 0 when not found: that type check is skipped.
	w.code_type = found[SYM_CODE_TYPE] ? sym[SYM_CODE_TYPE] : 0;
	w.unicode_type = found[SYM_UNICODE_TYPE] ? sym[SYM_UNICODE_TYPE] : 0;
	w.bytes_type = found[SYM_BYTES_TYPE] ? sym[SYM_BYTES_TYPE] : 0;
	// The version is the interpreter's own constant Py_Version (3.11+, read-only data: from the
	// dump, or from the file when the dump left it out); the layout is chosen only by it.
	uint64_t hex = 0;
	uint8_t vb[8];
	unsigned psize = in->core->arch ? in->core->arch->pointer_size : 8;
	if (!found[SYM_VERSION] || !ct_modules_read_code(in->mods, sym[SYM_VERSION], vb, 4)) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_NO_LAYOUT,
			     "Python in %s has no readable Py_Version (before 3.11): no layout; its stacks are not read",
			     m->name ? m->name : "?");
		return;
	}
	hex = ct_load32(vb, w.be);
	const char *version = version_text(in, hex);
	unsigned major = (hex >> 24) & 255, minor = (hex >> 16) & 255;
	// The table says which versions are understood; the interpreter's DWARF, when there is
	// some, says where the fields of that version lie in this build.
	const struct ct_py_layout *table = ct_py_layout_find(major, minor, psize);
	struct ct_py_layout dwarf;
	bool from_dwarf = table && ct_py_layout_dwarf(m, sym + SYM_ANCHORS, found + SYM_ANCHORS, major, minor, psize, &dwarf);
	w.l = from_dwarf ? &dwarf : table;
	if (!w.l) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_NO_LAYOUT,
			     "Python %s: no layout; its stacks are not read", version ? version : "?");
		return;
	}
	w.linetable = malloc(CT_PY_MAX_LINETABLE);
	if (!w.linetable) {
		ct_sink_diag(&in->out, CT_SEVERITY_ERROR, 0, CT_DIAG_NO_MEMORY, "out of memory reading Python's state");
		return;
	}
	ret->present = true;
	ret->language = ct_strpool_intern(in->out.strings, "python");
	ret->version = version;
	ret->layout = ct_strpool_intern(in->out.strings, from_dwarf ? "dwarf" : "table");
	const struct ct_py_layout *l = w.l;
	uint64_t interp = 0, holder = 0;
	uint32_t locked = 0;
	if (!rd_ptr(&w, w.runtime + l->rt_interpreters_head, &interp)) {
		ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
			     "Python's _PyRuntime at 0x%" PRIx64 " is not in the dump: no Python stacks", w.runtime);
		free(w.linetable);
		return;
	}
	rd_ptr(&w, w.runtime + l->rt_gil_last_holder, &holder);
	rd_u32(&w, w.runtime + l->rt_gil_locked, &locked);
	size_t cap = 0;
	struct loop_check li = { 0 };
	for (size_t ni = 0; interp; ni++) {
		if (ni >= CT_PY_MAX_INTERPRETERS || loops(&li, interp)) {
			ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
				     "Python interpreter list %s: cut after %zu interpreters",
				     ni >= CT_PY_MAX_INTERPRETERS ? "is too long" : "loops", ni);
			break;
		}
		uint64_t ts = 0, next = 0;
		if (!rd_ptr(&w, interp + l->is_threads_head, &ts) || !rd_ptr(&w, interp + l->is_next, &next)) {
			ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
				     "Python interpreter state at 0x%" PRIx64 " is not in the dump", interp);
			break;
		}
		struct loop_check lt = { 0 };
		for (size_t nt = 0; ts; nt++) {
			if (nt >= CT_PY_MAX_THREADS || loops(&lt, ts)) {
				ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
					     "Python thread state list at 0x%" PRIx64 " %s: cut after %zu thread states", ts,
					     nt >= CT_PY_MAX_THREADS ? "is too long" : "loops", nt);
				break;
			}
			if (!add_thread(ret, &cap)) {
				ct_sink_diag(&in->out, CT_SEVERITY_ERROR, 0, CT_DIAG_NO_MEMORY, "out of memory reading Python threads");
				break;
			}
			walk_thread(&w, ts, holder, locked != 0, &ret->threads[ret->num_threads - 1]);
			if (!rd_ptr(&w, ts + l->ts_next, &ts)) {
				ct_sink_diag(&in->out, CT_SEVERITY_WARNING, 0, CT_DIAG_RUNTIME_UNREADABLE,
					     "Python thread state list is cut: a thread state is not in the dump");
				break;
			}
		}
		interp = next;
	}
	free(w.linetable);
}

void ct_runtime_to_report(struct ct_runtime *rt, struct ct_report *report)
{
	ct_runtime_free(&report->runtime);
	report->runtime = *rt;
	*rt = (struct ct_runtime){ 0 };
}
