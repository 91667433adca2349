// VMCOREINFO: the "KEY=value" lines the kernel leaves for dump tools (kernel/crash_core.c). Parsed
// once into a table; typed getters know each key family's number format.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"

// 6.1 writes ~200 lines (3.3 KB); the caps leave a wide margin and bound a corrupt note.
#define MAX_VMCOREINFO_BYTES (1u << 20)
#define MAX_VMCOREINFO_LINES 8192

struct ct_error *ct_vmcoreinfo_parse(const char *raw, size_t len, struct ct_vmcoreinfo *ret)
{
	if (len > MAX_VMCOREINFO_BYTES)
		len = MAX_VMCOREINFO_BYTES;
	char *text = malloc(len + 1);
	if (!text)
		return &ct_enomem;
	memcpy(text, raw, len);
	text[len] = '\0';
	size_t cap = 0, n = 0;
	struct ct_vmcoreinfo_entry *entries = NULL;
	char *line = text;
	while (line && *line && n < MAX_VMCOREINFO_LINES) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *eq = strchr(line, '=');
		if (eq && eq != line) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct ct_vmcoreinfo_entry *tmp = realloc(entries, ncap * sizeof(*tmp));
				if (!tmp) {
					free(entries);
					free(text);
					return &ct_enomem;
				}
				entries = tmp;
				cap = ncap;
			}
			*eq = '\0';
			entries[n].key = line;
			entries[n].value = eq + 1;
			n++;
		}
		line = nl ? nl + 1 : NULL;
	}
	ret->text = text;
	ret->entries = entries;
	ret->num_entries = n;
	return NULL;
}

void ct_vmcoreinfo_deinit(struct ct_vmcoreinfo *vi)
{
	free(vi->entries);
	free(vi->text);
	memset(vi, 0, sizeof(*vi));
}

const char *ct_vmcoreinfo_get(const struct ct_vmcoreinfo *vi, const char *key)
{
	// Linear: ~200 entries, and the analysis asks for a few dozen keys once.
	for (size_t i = 0; i < vi->num_entries; i++) {
		if (strcmp(vi->entries[i].key, key) == 0)
			return vi->entries[i].value;
	}
	return NULL;
}

static const char *get_fmt(const struct ct_vmcoreinfo *vi, const char *family, const char *name)
{
	char key[256];
	if (snprintf(key, sizeof(key), "%s(%s)", family, name) >= (int)sizeof(key))
		return NULL;
	return ct_vmcoreinfo_get(vi, key);
}

static bool parse_u64(const char *s, int base, uint64_t *ret)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

bool ct_vmcoreinfo_symbol(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret)
{
	// SYMBOL() values are hex without "0x" (crash_core.c: "SYMBOL(%s)=%lx").
	return parse_u64(get_fmt(vi, "SYMBOL", name), 16, ret);
}

bool ct_vmcoreinfo_offset(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret)
{
	return parse_u64(get_fmt(vi, "OFFSET", name), 10, ret);
}

bool ct_vmcoreinfo_size(const struct ct_vmcoreinfo *vi, const char *name, uint64_t *ret)
{
	return parse_u64(get_fmt(vi, "SIZE", name), 10, ret);
}

bool ct_vmcoreinfo_number(const struct ct_vmcoreinfo *vi, const char *name, int64_t *ret)
{
	// NUMBER() is "%ld": signed decimal, e.g. NUMBER(phys_base)=-322961408 under KASLR.
	const char *s = get_fmt(vi, "NUMBER", name);
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

bool ct_vmcoreinfo_crash_time(const struct ct_vmcoreinfo *vi, int64_t *ret)
{
	const char *s = ct_vmcoreinfo_get(vi, "CRASHTIME");
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	// strtoll saturates on overflow (ERANGE): kept, so an absurd time is reported, not hidden.
	long long v = strtoll(s, &end, 10);
	if (end == s || (*end && *end != ' ' && *end != '\r'))
		return false;
	*ret = v;
	return true;
}
