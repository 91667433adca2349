// The streaming JSON emitter of the report (json_emit.h): escaping, UTF-8 validation, numbers and
// the escaped-string cache.
#include "writers/json_emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// Byte classes of the escaper: 0 copied as is, 1 escaped (", \, control characters and the
// terminating NUL), 2 first byte of a possible multi-byte UTF-8 sequence (validated).
static const unsigned char escape_class[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 2,
};

static const char hex_lower[16] = "0123456789abcdef";
// jansson writes \u%04X: upper case.
static const char hex_upper[16] = "0123456789ABCDEF";

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

static inline bool cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

// RFC 3629 section 4 (the well-formed byte sequences table), as jansson's utf8_check_full checks:
// no overlong forms, no surrogates, nothing above U+10FFFF. A NUL is never a continuation byte, so
// the && chains stop at the end of the string.
size_t ct_json_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return cont(s[1]) ? 2 : 0;
	if (c < 0xf0) {
		if (!cont(s[1]) || !cont(s[2]))
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (!cont(s[1]) || !cont(s[2]) || !cont(s[3]))
		return 0;
	if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return 4;
}

// Copies one valid UTF-8 sequence from *s to *d, or writes U+FFFD for one invalid byte; advances both.
static void copy_utf8_char(const char **s, char **d)
{
	size_t k = ct_json_utf8_len(*s);
	if (k) {
		memcpy(*d, *s, k);
		*d += k;
		*s += k;
	} else {
		memcpy(*d, REPLACEMENT, 3);
		*d += 3;
		(*s)++;
	}
}

size_t ct_json_escape(char *dst, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	char *d = dst;
	for (;;) {
		unsigned char c = *s;
		switch (escape_class[c]) {
		case 0:
			*d++ = (char)c;
			s++;
			continue;
		case 2: {
			const char *p = (const char *)s;
			copy_utf8_char(&p, &d);
			s = (const unsigned char *)p;
			continue;
		}
		}
		if (!c)
			break;
		*d++ = '\\';
		switch (c) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '\b': *d++ = 'b'; break;
		case '\f': *d++ = 'f'; break;
		case '\n': *d++ = 'n'; break;
		case '\r': *d++ = 'r'; break;
		case '\t': *d++ = 't'; break;
		default:
			memcpy(d, "u00", 3);
			d[3] = hex_upper[c >> 4];
			d[4] = hex_upper[c & 15];
			d += 5;
			break;
		}
		s++;
	}
	return (size_t)(d - dst);
}

char *ct_json_utf8_sanitize(const char *str)
{
	size_t n = strlen(str);
	// Each invalid byte grows to 3.
	char *copy = malloc(3 * n + 1), *d = copy;
	if (!copy)
		return NULL;
	for (const char *s = str; *s;)
		copy_utf8_char(&s, &d);
	*d = '\0';
	return copy;
}

void ct_json_emit_init(struct ct_json_emit *e, FILE *out)
{
	// The 8 KiB buffer needs no clearing.
	e->out = out;
	e->len = 0;
	e->cache = NULL;
	e->cache_failed = false;
	e->scratch = NULL;
	e->scratch_cap = 0;
	e->failed = false;
	flockfile(out);
}

void ct_json_emit_flush(struct ct_json_emit *e)
{
	if (e->len)
		fwrite_unlocked(e->buf, 1, e->len, e->out);
	e->len = 0;
}

void ct_json_emit_raw_slow(struct ct_json_emit *e, const char *p, size_t n)
{
	ct_json_emit_flush(e);
	if (n < CT_JSON_EMIT_BUF) {
		memcpy(e->buf, p, n);
		e->len = n;
	} else {
		fwrite_unlocked(p, 1, n, e->out);
	}
}

void ct_json_emit_deinit(struct ct_json_emit *e)
{
	ct_json_emit_flush(e);
	funlockfile(e->out);
	free(e->cache);
	free(e->scratch);
	e->cache = NULL;
	e->scratch = NULL;
}

// Escapes "s" with its quotes into the scratch buffer; returns the length, or 0 when out of memory.
static size_t escape_quoted(struct ct_json_emit *e, const char *s)
{
	size_t n = strlen(s), need = 6 * n + 2;
	if (need > e->scratch_cap) {
		size_t cap = need < 256 ? 256 : need;
		char *p = realloc(e->scratch, cap);
		if (!p) {
			e->failed = true;
			errno = ENOMEM;
			return 0;
		}
		e->scratch = p;
		e->scratch_cap = cap;
	}
	e->scratch[0] = '"';
	size_t len = 1 + ct_json_escape(e->scratch + 1, s);
	e->scratch[len++] = '"';
	return len;
}

void ct_json_emit_string(struct ct_json_emit *e, const char *s)
{
	if (!s) {
		ct_json_emit_lit(e, "null");
		return;
	}
	size_t len = escape_quoted(e, s);
	if (len)
		ct_json_emit_raw(e, e->scratch, len);
	else
		ct_json_emit_lit(e, "null");
}

void ct_json_emit_string_cached(struct ct_json_emit *e, const char *s)
{
	if (!s) {
		ct_json_emit_lit(e, "null");
		return;
	}
	if (!e->cache && !e->cache_failed) {
		e->cache = calloc(CT_JSON_CACHE_SLOTS, sizeof(*e->cache));
		e->cache_failed = !e->cache;
	}
	if (!e->cache) {
		ct_json_emit_string(e, s);
		return;
	}
	// Fibonacci hashing of the pointer; the low bits are alignment.
	uint64_t h = (uint64_t)(uintptr_t)s * UINT64_C(0x9e3779b97f4a7c15);
	struct ct_json_cache_slot *slot = &e->cache[h >> (64 - __builtin_ctz(CT_JSON_CACHE_SLOTS))];
	if (slot->key == s) {
		ct_json_emit_raw(e, slot->text, slot->len);
		return;
	}
	size_t len = escape_quoted(e, s);
	if (!len) {
		ct_json_emit_lit(e, "null");
		return;
	}
	if (len <= CT_JSON_CACHE_TEXT) {
		slot->key = s;
		slot->len = (uint32_t)len;
		memcpy(slot->text, e->scratch, len);
	}
	ct_json_emit_raw(e, e->scratch, len);
}

// Room for n bytes (n <= CT_JSON_EMIT_BUF) at the end of the buffer, flushing it when needed.
static inline char *reserve(struct ct_json_emit *e, size_t n)
{
	if (n > CT_JSON_EMIT_BUF - e->len)
		ct_json_emit_flush(e);
	return e->buf + e->len;
}

void ct_json_emit_hex(struct ct_json_emit *e, uint64_t v)
{
	// Digits counted first so they are written in place, most significant first.
	unsigned digits = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *p = reserve(e, digits + 4);
	p[0] = '"';
	p[1] = '0';
	p[2] = 'x';
	for (unsigned i = digits; i; i--) {
		p[2 + i] = hex_lower[v & 15];
		v >>= 4;
	}
	p[3 + digits] = '"';
	e->len += digits + 4;
}

void ct_json_emit_int(struct ct_json_emit *e, long long v)
{
	// Negate as unsigned so LLONG_MIN works.
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	unsigned digits = 1;
	for (unsigned long long t = u; t >= 10; t /= 10)
		digits++;
	char *p = reserve(e, digits + 1);
	if (v < 0)
		*p++ = '-';
	for (unsigned i = digits; i; i--) {
		p[i - 1] = (char)('0' + u % 10);
		u /= 10;
	}
	e->len += digits + (v < 0);
}
