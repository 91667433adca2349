/**
 * @file json_emit.h
 * A small streaming JSON emitter for the hot part of the JSON report (threads and frames).
 *
 * It appends to its own buffer, handed to the locked FILE with one fwrite_unlocked() per 8 KiB (a
 * frame is ~20 pieces; one stdio call per piece cost more than the rest of the writer), with
 * one string escaper shared by the whole report (ct_json_escape()), hex and decimal without
 * printf, and a pointer-keyed cache of the escaped text of repeated strings: the report interns
 * its strings (report.h), so the same function, module or file is the same pointer in every frame.
 *
 * Escaping is byte-compatible with jansson's json_dumpf() (which writes the small sections):
 * `"` and `\` escaped, \b \f \n \r \t short forms, other control characters as \u00XX with upper-case
 * hex, DEL and valid UTF-8 passed through. A byte that does not start a valid UTF-8 sequence (stray
 * continuation, overlong form, surrogate, above U+10FFFF, truncated sequence) becomes U+FFFD, one
 * per byte; valid multi-byte sequences are kept unchanged.
 */
#ifndef CT_JSON_EMIT_H
#define CT_JSON_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/** Slots of the escaped-string cache (power of two): deep stacks cycle through few strings. */
#define CT_JSON_CACHE_SLOTS 256
/** Longest escaped text (quotes included) a slot keeps; longer strings are escaped every time. */
#define CT_JSON_CACHE_TEXT 256
/** Output buffer: twice stdio's usual 4 KiB, so a full buffer bypasses stdio's own copy. */
#define CT_JSON_EMIT_BUF 8192

struct ct_json_cache_slot {
	const char *key; /**< borrowed: the string whose escaped text this is; NULL when empty */
	uint32_t len;
	char text[CT_JSON_CACHE_TEXT];
};

/**
 * Emitter state; embed it and use ct_json_emit_init()/ct_json_emit_deinit(). Output is buffered:
 * call ct_json_emit_flush() before writing to the stream any other way.
 */
struct ct_json_emit {
	FILE *out; /**< borrowed; locked (flockfile) between init and deinit */
	size_t len; /**< bytes used in buf */
	char buf[CT_JSON_EMIT_BUF];
	struct ct_json_cache_slot *cache; /**< owned, allocated on first use; NULL: no caching */
	bool cache_failed; /**< the cache could not be allocated: escape every time */
	char *scratch; /**< owned buffer for escaping */
	size_t scratch_cap;
	bool failed; /**< an allocation failed (errno ENOMEM) */
};

/** Locks @p out (flockfile) for the emitter's lifetime; @p out is borrowed. Cannot fail. */
void ct_json_emit_init(struct ct_json_emit *e, FILE *out);
/** Flushes the buffer (ct_json_emit_flush()), unlocks the stream, frees the cache and scratch
 * buffer. Does not fflush or close @p out. */
void ct_json_emit_deinit(struct ct_json_emit *e);

/** Hands the buffered bytes to the stream (fwrite_unlocked); stream errors show in ferror(). */
void ct_json_emit_flush(struct ct_json_emit *e);

/** Slow path of ct_json_emit_raw(): flushes, then buffers or writes @p p directly. */
void ct_json_emit_raw_slow(struct ct_json_emit *e, const char *p, size_t n);

/** Appends @p n raw bytes. */
static inline void ct_json_emit_raw(struct ct_json_emit *e, const char *p, size_t n)
{
	if (n <= CT_JSON_EMIT_BUF - e->len) {
		memcpy(e->buf + e->len, p, n);
		e->len += n;
	} else {
		ct_json_emit_raw_slow(e, p, n);
	}
}

/** Appends a string literal raw. */
#define ct_json_emit_lit(e, s) ct_json_emit_raw((e), "" s, sizeof(s) - 1)

/** Appends one raw byte. */
static inline void ct_json_emit_char(struct ct_json_emit *e, char c)
{
	if (e->len == CT_JSON_EMIT_BUF)
		ct_json_emit_flush(e);
	e->buf[e->len++] = c;
}

/** Writes `true` or `false`. */
static inline void ct_json_emit_bool(struct ct_json_emit *e, bool b)
{
	if (b)
		ct_json_emit_lit(e, "true");
	else
		ct_json_emit_lit(e, "false");
}

/** Writes @p s as a quoted, escaped JSON string, or `null` when @p s is NULL. */
void ct_json_emit_string(struct ct_json_emit *e, const char *s);
/**
 * Same as ct_json_emit_string(), remembering the escaped text by the pointer @p s: @p s must stay
 * valid and unchanged for the emitter's lifetime (pooled report strings do).
 */
void ct_json_emit_string_cached(struct ct_json_emit *e, const char *s);
/** Writes @p v as a quoted lower-case hex string: `"0x1f"` (no padding, as "0x%" PRIx64). */
void ct_json_emit_hex(struct ct_json_emit *e, uint64_t v);
/** Writes a decimal integer (as "%lld"). */
void ct_json_emit_int(struct ct_json_emit *e, long long v);

/**
 * Escapes the NUL-terminated @p s for inside JSON quotes (rules in the file comment) into @p dst,
 * which must hold 6 * strlen(s) bytes; no quotes and no NUL are added. Returns the length written.
 */
size_t ct_json_escape(char *dst, const char *s);

/**
 * Length of the valid UTF-8 sequence starting at @p s (1 to 4; 1 for ASCII including NUL), or 0
 * when the byte at @p s does not start a valid sequence. Never reads past a NUL.
 */
size_t ct_json_utf8_len(const char *s);

/**
 * A copy of @p s with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD,
 * nothing else changed (for strings handed to jansson). Returns a malloc'd string the caller owns,
 * or NULL when out of memory.
 */
char *ct_json_utf8_sanitize(const char *s);

#endif
