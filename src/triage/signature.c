// The bucket key (docs/signature.md): "class[/subclass]|f1|f2|f3" over the blamed frames, versioned,
// hashed with FNV-1a 64.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/hang.h"
#include "triage/triage.h"

/** Frames in the key: enough to tell callers apart, few enough that unrelated callers do not split a bug. */
#define SIGNATURE_FRAMES 3

void ct_fnv1a64_hex(const char *s, char buf[17])
{
	uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL; // FNV 64 prime
	}
	snprintf(buf, 17, "%016" PRIx64, h);
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
	bool overflow = r->cls == CT_CLASS_STACK_OVERFLOW;
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
 * cycle does not matter. Writes "|a|b" into @p text at @p used. Returns the new length.
 */
static size_t cycle_key(const struct ct_facts *f, struct ct_verdict *r, char *text, size_t size, size_t used)
{
	size_t n = f->stack.cycle_length, start = f->stack.cycle_start, best = 0;
	char buf[128], bestbuf[128] = "";
	for (size_t k = 0; k < n; k++) {
		const char *key = frame_key(&f->frames[start + k], buf, sizeof(buf));
		if (key && (!bestbuf[0] || strcmp(key, bestbuf) < 0)) {
			snprintf(bestbuf, sizeof(bestbuf), "%s", key);
			best = k;
		}
	}
	for (size_t k = 0; k < n && used < size; k++) {
		const struct ct_frame_fact *fr = &f->frames[start + (best + k) % n];
		const char *key = frame_key(fr, buf, sizeof(buf));
		if (key && !fr->signal_frame)
			used += (size_t)snprintf(text + used, size - used, "|%s", key);
	}
	return used;
}

void ct_signature_build(const struct ct_facts *f, struct ct_verdict *r)
{
	// A deadlock is keyed by its cycle: the functions taking the locks, and the locks (docs/signature.md).
	const char *cycle = r->cls == CT_CLASS_DEADLOCK ? ct_hang_signature(r) : NULL;
	if (cycle) {
		char hash[17];
		ct_fnv1a64_hex(cycle, hash);
		r->signature.present = true;
		r->signature.version = CT_SIGNATURE_VERSION;
		r->signature.text = cycle;
		r->signature.hash = ct_strpool_intern(r->strings, hash);
		return;
	}
	char text[1024];
	size_t used = (size_t)snprintf(text, sizeof(text), "%s%s%s", ct_class_to_string(r->cls), r->crash.subclass ? "/" : "",
				       r->crash.subclass ? r->crash.subclass : "");
	const char *taken[SIGNATURE_FRAMES];
	size_t ntaken = 0;
	// Stack overflow through recursion: the cycle is the bug, wherever the overflow cut it.
	bool overflow = r->cls == CT_CLASS_STACK_OVERFLOW;
	if (overflow && f->stack.recursion_depth >= 2 && f->stack.cycle_length <= SIGNATURE_FRAMES * 4 &&
	    f->stack.cycle_start + f->stack.cycle_length <= f->num_frames) {
		used = cycle_key(f, r, text, sizeof(text), used);
		ntaken = SIGNATURE_FRAMES;
	}
	// Own frames from the blamed one outward; with none, library frames without delivery noise.
	long blame = ct_effective_blame(f, r);
	bool own_only = blame >= 0;
	size_t start = own_only ? (size_t)blame : 0;
	for (size_t i = start; i < f->num_frames && ntaken < SIGNATURE_FRAMES && used < sizeof(text); i++) {
		const struct ct_frame_fact *fr = &f->frames[i];
		if (own_only && !fr->own)
			continue;
		if (fr->signal_frame)
			continue;
		char buf[128];
		const char *key = frame_key(fr, buf, sizeof(buf));
		if (!key || (!own_only && is_noise(key)))
			continue;
		// Recursion: a function already in the key adds nothing (depth differs between cores).
		bool dup = false;
		for (size_t j = 0; j < ntaken; j++)
			dup = dup || strcmp(taken[j], key) == 0;
		if (dup)
			continue;
		const char *pooled = ct_strpool_intern(r->strings, key);
		if (!pooled)
			break;
		taken[ntaken++] = pooled;
		used += (size_t)snprintf(text + used, sizeof(text) - used, "|%s", pooled);
	}
	ct_signature_set_text(&r->signature, r->strings, text);
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
