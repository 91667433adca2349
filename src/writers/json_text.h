/**
 * @file json_text.h
 * Untrusted strings as jansson values for every JSON the program writes (report sections, SARIF,
 * batch summaries and worker results).
 */
#ifndef CT_REPORT_JSON_TEXT_H
#define CT_REPORT_JSON_TEXT_H

#include <jansson.h>

/**
 * A JSON string of @p s, or null when @p s is NULL. jansson refuses invalid UTF-8: such bytes
 * become U+FFFD one by one and the valid rest is kept (CT_TEXT_UTF8 of writers/sanitize.h), never
 * the whole string lost. null only when out of memory.
 */
json_t *ct_json_text(const char *s);

#endif
