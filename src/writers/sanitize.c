// The sanitizer of untrusted text (sanitize.h): one character at a time, each output's rule in one
// switch, so a new writer picks a rule instead of growing its own escaping.
#include "writers/sanitize.h"

#include <stdlib.h>
#include <string.h>

#include "writers/json_emit.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

static const char hexd[16] = "0123456789abcdef";

static size_t put_hex_byte(char *p, const char *prefix, unsigned char b)
{
	size_t n = strlen(prefix);
	memcpy(p, prefix, n);
	p[n] = hexd[b >> 4];
	p[n + 1] = hexd[b & 15];
	return n + 2;
}

// "\uNNNN" for a code point of the BMP, "\UNNNNNNNN" beyond it (the tag characters).
static size_t put_u(char *p, uint32_t cp)
{
	int digits = cp > 0xffff ? 8 : 4;
	p[0] = '\\';
	p[1] = cp > 0xffff ? 'U' : 'u';
	for (int i = 0; i < digits; i++)
		p[2 + i] = hexd[(cp >> (4 * (digits - 1 - i))) & 15];
	return 2 + (size_t)digits;
}

static uint32_t decode(const unsigned char *s, size_t k)
{
	switch (k) {
	case 1: return s[0];
	case 2: return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	case 3: return (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	default:
		return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
		       (s[3] & 0x3f);
	}
}

// Characters a terminal acts on, or that reorder, hide or break the line it shows, beyond C0 and
// DEL (docs/security.md lists them): C1 controls (U+009B is CSI); every bidirectional control —
// the Arabic letter mark U+061C, the marks U+200E/F, the embeddings and overrides U+202A–E, the
// isolates U+2066–9 — since a name could otherwise display as a different name ("Trojan Source");
// line and paragraph separators; the zero-width and invisible characters (U+180E, U+200B–D, U+2060–4,
// U+206A–F, U+FEFF), which make two different names look the same; and the tag characters
// U+E0000–E007F, invisible text a terminal does not show.
static bool is_format_control(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xe0000 && cp <= 0xe007f);
}

static size_t control(enum ct_text_rule rule, unsigned char c, char *p)
{
	switch (rule) {
	case CT_TEXT_UTF8: p[0] = (char)c; return 1;
	case CT_TEXT_FOLDED: p[0] = ' '; return 1;
	case CT_TEXT_MD_INLINE: return put_hex_byte(p, "\\\\x", c);
	case CT_TEXT_TERMINAL:
		if (c == '\n' || c == '\t' || c == '\r') {
			p[0] = '\\';
			p[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			return 2;
		}
		return put_hex_byte(p, "\\x", c);
	default: return put_hex_byte(p, "\\x", c);
	}
}

static size_t ascii(enum ct_text_rule rule, char c, char *p)
{
	const char *rep = NULL;
	switch (rule) {
	case CT_TEXT_MD_INLINE:
		switch (c) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#': case '~':
			p[0] = '\\';
			p[1] = c;
			return 2;
		}
		break;
	case CT_TEXT_MD_CELL:
		if (c == '|')
			rep = "\\|";
		else if (c == '`')
			rep = "'";
		break;
	case CT_TEXT_MD_CODE:
		// A backtick cannot be escaped inside a code span.
		if (c == '`')
			rep = "'";
		break;
	case CT_TEXT_XML:
		switch (c) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '"': rep = "&quot;"; break;
		}
		break;
	case CT_TEXT_FOLDED:
		// ';' separates frames in a folded line.
		if (c == ';')
			rep = ":";
		break;
	default: break;
	}
	if (rep) {
		size_t n = strlen(rep);
		memcpy(p, rep, n);
		return n;
	}
	p[0] = c;
	return 1;
}

size_t ct_text_next(const char **sp, enum ct_text_rule rule, char p[CT_TEXT_PIECE_MAX])
{
	const unsigned char *s = (const unsigned char *)*sp;
	if (!*s)
		return 0;
	size_t k = ct_json_utf8_len((const char *)s);
	if (!k) {
		// One invalid byte: visible on a terminal (it may be a C1 control in an 8-bit locale),
		// U+FFFD everywhere else.
		(*sp)++;
		if (rule == CT_TEXT_TERMINAL)
			return put_hex_byte(p, "\\x", *s);
		memcpy(p, REPLACEMENT, 3);
		return 3;
	}
	*sp += k;
	if (k == 1)
		return *s < 0x20 || *s == 0x7f ? control(rule, *s, p) : ascii(rule, (char)*s, p);
	uint32_t cp = decode(s, k);
	if (is_format_control(cp)) {
		switch (rule) {
		case CT_TEXT_UTF8: break;
		case CT_TEXT_FOLDED:
			if (cp > 0x9f)
				break;
			p[0] = ' ';
			return 1;
		case CT_TEXT_MD_INLINE:
			p[0] = '\\';
			return 1 + put_u(p + 1, cp);
		default: return put_u(p, cp);
		}
	}
	// XML 1.0's Char production excludes U+FFFE and U+FFFF.
	if (rule == CT_TEXT_XML && (cp == 0xfffe || cp == 0xffff)) {
		memcpy(p, REPLACEMENT, 3);
		return 3;
	}
	memcpy(p, s, k);
	return k;
}

bool ct_text_put(FILE *out, const char *s, enum ct_text_rule rule, size_t max_chars)
{
	if (!s)
		return false;
	char piece[CT_TEXT_PIECE_MAX];
	size_t n, chars = 0;
	while (*s) {
		if (chars++ >= max_chars)
			return true;
		n = ct_text_next(&s, rule, piece);
		fwrite(piece, 1, n, out);
	}
	return false;
}

static size_t piece_width(const char *piece, size_t n)
{
	// A multi-byte character is one column; an escape is as wide as its letters.
	return (unsigned char)piece[0] >= 0x80 ? 1 : n;
}

size_t ct_text_format(char *buf, size_t size, const char *s, enum ct_text_rule rule, size_t max_chars)
{
	if (!size)
		return 0;
	size_t len = 0, width = 0, chars = 0;
	char piece[CT_TEXT_PIECE_MAX];
	while (s && *s && chars++ < max_chars) {
		size_t n = ct_text_next(&s, rule, piece);
		if (len + n >= size)
			break;
		memcpy(buf + len, piece, n);
		len += n;
		width += piece_width(piece, n);
	}
	buf[len] = '\0';
	return width;
}

char *ct_text_dup(const char *s, enum ct_text_rule rule)
{
	if (!s)
		return NULL;
	size_t cap = 0;
	char piece[CT_TEXT_PIECE_MAX];
	for (const char *p = s; *p;)
		cap += ct_text_next(&p, rule, piece);
	char *out = malloc(cap + 1), *d = out;
	if (!out)
		return NULL;
	for (const char *p = s; *p;) {
		size_t n = ct_text_next(&p, rule, piece);
		memcpy(d, piece, n);
		d += n;
	}
	*d = '\0';
	return out;
}

bool ct_text_is_clean(const char *s, enum ct_text_rule rule)
{
	char piece[CT_TEXT_PIECE_MAX];
	for (const char *p = s; p && *p;) {
		const char *at = p;
		size_t n = ct_text_next(&p, rule, piece);
		if (n != (size_t)(p - at) || memcmp(piece, at, n) != 0)
			return false;
	}
	return true;
}

size_t ct_text_chars(const char *s)
{
	size_t n = 0;
	for (; s && *s; n++) {
		size_t k = ct_json_utf8_len(s);
		s += k ? k : 1;
	}
	return n;
}
