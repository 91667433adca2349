// The bucket key (docs/signature.md): "class[/subclass]|f1|f2|f3" over the blamed frames, versioned,
// hashed with FNV-1a 64.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/hang.h"

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

static const char *frame_key(const struct ct_frame_fact *fr, char *buf, size_t size)
{
	if (fr->function)
		return fr->function;
	if (fr->module && fr->has_module_offset) {
		snprintf(buf, size, "%s+0x%" PRIx64, fr->module, fr->module_offset);
		return buf;
	}
	return NULL;
}

void ct_signature_build(const struct ct_facts *f, struct ct_report *r)
{
	// A deadlock is keyed by its cycle: the functions taking the locks, and the locks (docs/signature.md).
	const char *cycle = r->crash.class_id && !strcmp(r->crash.class_id, "deadlock") ? ct_hang_signature(r) : NULL;
	if (cycle) {
		char hash[17];
		ct_fnv1a64_hex(cycle, hash);
		r->signature.present = true;
		r->signature.version = CT_SIGNATURE_VERSION;
		r->signature.text = cycle;
		r->signature.hash = ct_report_strdup(r, hash);
		return;
	}
	char text[1024];
	size_t used = (size_t)snprintf(text, sizeof(text), "%s%s%s", r->crash.class_id ? r->crash.class_id : "unknown",
				       r->crash.subclass ? "/" : "", r->crash.subclass ? r->crash.subclass : "");
	const char *taken[SIGNATURE_FRAMES];
	size_t ntaken = 0;
	// Own frames from the blamed one outward; with none, library frames without delivery noise.
	bool own_only = f->blame >= 0;
	size_t start = own_only ? (size_t)f->blame : 0;
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
		const char *pooled = ct_report_strdup(r, key);
		if (!pooled)
			break;
		taken[ntaken++] = pooled;
		used += (size_t)snprintf(text + used, sizeof(text) - used, "|%s", pooled);
	}
	char hash[17];
	ct_fnv1a64_hex(text, hash);
	r->signature.present = true;
	r->signature.version = CT_SIGNATURE_VERSION;
	r->signature.text = ct_report_strdup(r, text);
	r->signature.hash = ct_report_strdup(r, hash);
}
