// The one signature module of every dump (docs/signature.md): the key "class[/subclass]|f1|f2|f3",
// built by struct ct_signature_key, versioned and hashed with FNV-1a 64. Process cores key their
// blamed frames (ct_signature_build), kernel dumps a list of functions (ct_signature_from_functions,
// chosen by kernel/ksignature.c), batch's fallback the folded frames of a report without a signature
// (cli/meta.c, unversioned); only which names go in differs.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/hang.h"
#include "triage/triage.h"


void ct_fnv1a64_hex(const char *s, char buf[17])
{
	uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL; // FNV 64 prime
	}
	snprintf(buf, 17, "%016" PRIx64, h);
}

void ct_signature_key_start(struct ct_signature_key *k, size_t cap, const char *class_word, const char *subclass)
{
	k->cap = cap < sizeof(k->text) ? cap : sizeof(k->text);
	k->ntaken = 0;
	k->used = (size_t)snprintf(k->text, k->cap, "%s%s%s", class_word ? class_word : "unknown", subclass ? "/" : "",
				   subclass ? subclass : "");
}

bool ct_signature_key_full(const struct ct_signature_key *k)
{
	return k->ntaken >= CT_SIGNATURE_FRAMES || k->used >= k->cap;
}

bool ct_signature_key_has(const struct ct_signature_key *k, const char *name)
{
	for (size_t j = 0; j < k->ntaken; j++) {
		if (strcmp(k->taken[j], name) == 0)
			return true;
	}
	return false;
}

void ct_signature_key_append(struct ct_signature_key *k, const char *name)
{
	if (k->used < k->cap)
		k->used += (size_t)snprintf(k->text + k->used, k->cap - k->used, "|%s", name);
}

void ct_signature_key_add(struct ct_signature_key *k, const char *name)
{
	if (ct_signature_key_full(k))
		return;
	k->taken[k->ntaken++] = name;
	ct_signature_key_append(k, name);
}


// Frames that say how a signal was delivered, not where the bug is.
static const char *const noise[] = {
	"raise", "abort", "pthread_kill", "__pthread_kill_implementation", "__pthread_kill_internal",
	"__libc_message", "__restore_rt", "__libc_start_call_main", "__libc_start_main", "_start", "__libc_start_main_impl",
	NULL,
};

static bool is_noise(const char *fn)
{
	for (const char *const *n = noise; *n; n++) {
		if (strcmp(fn, *n) == 0)
			return true;
	}
	return false;
}

/**
 * A frame's key: its function, or for a frame without a symbol its module and the start of its
 * function ("libfoo.so!0x1230"), never the pc's offset (it moves with the path taken in the
 * function); "libfoo.so!?" when not even an FDE covers it.
 */
static const char *frame_key(const struct ct_frame_fact *fr, char *buf, size_t size)
{
	if (fr->function)
		return fr->function;
	if (fr->module && fr->has_function_start) {
		snprintf(buf, size, "%s!0x%" PRIx64, fr->module, fr->function_start);
		return buf;
	}
	if (fr->module) {
		snprintf(buf, size, "%s!?", fr->module);
		return buf;
	}
	return NULL;
}

long ct_effective_blame(const struct ct_facts *f, const struct ct_verdict *r)
{
	bool overflow = r->crash.cls == CT_CLASS_STACK_OVERFLOW;
	if (!overflow || f->stack.recursion_depth < 2 || f->stack.cycle_start >= f->num_frames)
		return f->blame;
	size_t end = f->stack.cycle_start + f->stack.cycle_length;
	for (size_t i = f->stack.cycle_start; i < end && i < f->num_frames; i++) {
		if (f->frames[i].own)
			return (long)i;
	}
	return f->blame;
}

/**
 * A recursion cycle's key: its functions from the smallest name, so that where the overflow cut the
 * cycle does not matter. Appends "|a|b" to @p key, then counts it full.
 */
static void cycle_key(const struct ct_facts *f, struct ct_signature_key *key)
{
	size_t n = f->stack.cycle_length, start = f->stack.cycle_start, best = 0;
	char buf[128], bestbuf[128] = "";
	for (size_t k = 0; k < n; k++) {
		const char *name = frame_key(&f->frames[start + k], buf, sizeof(buf));
		if (name && (!bestbuf[0] || strcmp(name, bestbuf) < 0)) {
			snprintf(bestbuf, sizeof(bestbuf), "%s", name);
			best = k;
		}
	}
	for (size_t k = 0; k < n && key->used < key->cap; k++) {
		const struct ct_frame_fact *fr = &f->frames[start + (best + k) % n];
		const char *name = frame_key(fr, buf, sizeof(buf));
		if (name && !fr->signal_frame)
			ct_signature_key_append(key, name);
	}
	key->ntaken = CT_SIGNATURE_FRAMES;
}

void ct_signature_build(const struct ct_facts *f, const char *runtime_frame, struct ct_verdict *r)
{
	// A deadlock is keyed by its cycle: the functions taking the locks, and the locks (docs/signature.md).
	const char *cycle = r->crash.cls == CT_CLASS_DEADLOCK ? ct_hang_signature(r) : NULL;
	if (cycle) {
		char hash[17];
		ct_fnv1a64_hex(cycle, hash);
		r->signature.present = true;
		r->signature.version = CT_SIGNATURE_VERSION;
		r->signature.text = cycle;
		r->signature.hash = ct_strpool_intern(r->strings, hash);
		return;
	}
	struct ct_signature_key key;
	ct_signature_key_start(&key, CT_SIGNATURE_KEY_BYTES, ct_class_to_string(r->crash.cls), r->crash.subclass);
	// Stack overflow through recursion: the cycle is the bug, wherever the overflow cut it.
	bool overflow = r->crash.cls == CT_CLASS_STACK_OVERFLOW;
	bool by_cycle = overflow && f->stack.recursion_depth >= 2 && f->stack.cycle_length <= CT_SIGNATURE_FRAMES * 4 &&
		     f->stack.cycle_start + f->stack.cycle_length <= f->num_frames;
	if (by_cycle)
		cycle_key(f, &key);
	// Own frames from the blamed one outward; with none, library frames without delivery noise.
	long blame = ct_effective_blame(f, r);
	bool own_only = blame >= 0;
	size_t start = own_only ? (size_t)blame : 0;
	for (size_t i = start; i < f->num_frames && !ct_signature_key_full(&key); i++) {
		const struct ct_frame_fact *fr = &f->frames[i];
		if (own_only && !fr->own)
			continue;
		if (fr->signal_frame)
			continue;
		char buf[128];
		const char *name = frame_key(fr, buf, sizeof(buf));
		if (!name || (!own_only && is_noise(name)))
			continue;
		// Recursion: a function already in the key adds nothing (depth differs between cores).
		if (ct_signature_key_has(&key, name))
			continue;
		const char *pooled = ct_strpool_intern(r->strings, name);
		if (!pooled)
			break;
		ct_signature_key_add(&key, pooled);
	}
	// Version 3: the Python code the native crash ran under tells apart bugs whose native frames are
	// the interpreter's and an extension's, the same for every caller. Not for a recursion cycle:
	// where the overflow cut it does not matter.
	if (runtime_frame && !by_cycle)
		ct_signature_key_append(&key, runtime_frame);
	ct_signature_set_text(&r->signature, r->strings, key.text);
}

void ct_signature_from_functions(struct ct_signature *sig, struct ct_strpool *strings, const char *class_id,
				 const char *subclass, const char *const *functions, size_t n)
{
	struct ct_signature_key key;
	ct_signature_key_start(&key, CT_SIGNATURE_KEY_BYTES, class_id, subclass);
	for (size_t i = 0; i < n && !ct_signature_key_full(&key); i++) {
		const char *fn = functions[i] ? ct_normalize_function(strings, functions[i]) : NULL;
		if (fn && !ct_signature_key_has(&key, fn))
			ct_signature_key_add(&key, fn);
	}
	ct_signature_set_text(sig, strings, key.text);
}

void ct_signature_set_text(struct ct_signature *sig, struct ct_strpool *strings, const char *text)
{
	char hash[17];
	ct_fnv1a64_hex(text, hash);
	sig->present = true;
	sig->version = CT_SIGNATURE_VERSION;
	sig->text = ct_strpool_intern(strings, text);
	sig->hash = ct_strpool_intern(strings, hash);
}
