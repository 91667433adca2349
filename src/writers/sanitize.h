/**
 * @file sanitize.h
 * The one sanitizer for untrusted text: every string that came from a dump or a file (comm, psargs,
 * paths, symbol names, the abort message, the kernel log, file names of a batch) goes through it
 * on its way to any output, with the output's rule. The rules live in one table in sanitize.c:
 *
 * | rule | control characters | invalid UTF-8 byte | other |
 * |---|---|---|---|
 * | TERMINAL (text report, batch table, stderr) | visible: `\n` `\t` `\r` `\xNN` | `\xNN` | C1 controls, bidi overrides and line separators visible as `\uNNNN` |
 * | MD_INLINE (Markdown prose) | visible `\\xNN` | U+FFFD | Markdown and HTML metacharacters escaped; C1/bidi as `\\uNNNN` |
 * | MD_CODE / MD_CELL (code span / in a table) | visible `\xNN` | U+FFFD | backtick → `'`; in a cell `|` → `\|`; C1/bidi as `\uNNNN` |
 * | MD_BLOCK (fenced block) | visible `\xNN` | U+FFFD | C1/bidi as `\uNNNN` |
 * | XML (SVG text and attributes) | visible `\xNN` | U+FFFD | `& < > "` as entities; U+FFFE/U+FFFF → U+FFFD; C1/bidi as `\uNNNN` |
 * | FOLDED (folded stacks) | space | U+FFFD | `;` → `:`; C1 controls → space |
 * | UTF8 (strings handed to jansson: JSON, SARIF) | kept (JSON escapes them) | U+FFFD | — |
 *
 * Nothing is ever interpreted: an escape sequence arrives on a terminal as the letters `\x1b[2J`.
 * Valid characters are kept in every rule, so one bad byte never costs the rest of a name. Cuts
 * (max_chars) fall on character boundaries: a multi-byte character is never split.
 */
#ifndef CT_REPORT_SANITIZE_H
#define CT_REPORT_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ct_text_rule {
	CT_TEXT_TERMINAL,
	CT_TEXT_MD_INLINE,
	CT_TEXT_MD_CODE,
	CT_TEXT_MD_CELL,
	CT_TEXT_MD_BLOCK,
	CT_TEXT_XML,
	CT_TEXT_FOLDED,
	CT_TEXT_UTF8,
	CT_TEXT_RULE_NUM_
};

/** Longest rendering of one input character (an escaped control, an entity, a 4-byte character,
 * "\\U000e0041" for a tag character in Markdown prose). */
#define CT_TEXT_PIECE_MAX 12

/**
 * Renders the next character of *@p s (a valid UTF-8 sequence, or one invalid byte) under @p rule
 * into @p piece and advances *@p s past it. Returns the length written (no NUL), 0 at the end of
 * the string.
 */
size_t ct_text_next(const char **s, enum ct_text_rule rule, char piece[CT_TEXT_PIECE_MAX]);

/**
 * Writes @p s (NULL writes nothing) to @p out under @p rule, at most @p max_chars characters of
 * the input (SIZE_MAX for all). Returns true when the string was cut.
 */
bool ct_text_put(FILE *out, const char *s, enum ct_text_rule rule, size_t max_chars);

/**
 * Renders @p s under @p rule into @p buf (always NUL-terminated when @p size > 0), stopping before
 * the first character that does not fit or after @p max_chars characters. Returns the display
 * width written (one column per character, escapes counted by their letters).
 */
size_t ct_text_format(char *buf, size_t size, const char *s, enum ct_text_rule rule, size_t max_chars);

/** A malloc'd rendering of @p s under @p rule; NULL when @p s is NULL or out of memory. */
char *ct_text_dup(const char *s, enum ct_text_rule rule);

/** Characters in @p s: valid UTF-8 sequences and invalid bytes, one each. */
size_t ct_text_chars(const char *s);

/** True when ct_text_dup(s, rule) would return a copy equal to @p s (nothing to replace). */
bool ct_text_is_clean(const char *s, enum ct_text_rule rule);

#endif
