// perf JIT maps (perfmap.h).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/perfmap.h"
#include "util/cleanup.h"
#include "util/readfile.h"

/** Parses a hex number without prefix; false when there is none or it overflows. */
static bool hex(const char **p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	const char *start = s;
	for (; s < end; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : -1;
		if (d < 0)
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (s == start)
		return false;
	*p = s;
	*ret = v;
	return true;
}

void ct_perfmap_parse(struct ct_strpool *strings, const char *text, size_t len, struct ct_perfmap *ret)
{
	*ret = (struct ct_perfmap){ 0 };
	size_t cap = 0;
	for (const char *line = text, *end = text + len; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end;
		const char *p = line;
		uint64_t start, size;
		if (hex(&p, le, &start) && p < le && *p == ' ' && (p++, hex(&p, le, &size)) && p < le && *p == ' ' &&
		    size && start + size > start && ret->num_entries < CT_PERFMAP_MAX_ENTRIES) {
			p++;
			size_t nlen = (size_t)(le - p);
			while (nlen && (p[nlen - 1] == '\r' || p[nlen - 1] == ' '))
				nlen--;
			if (ret->num_entries == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct ct_perfmap_entry *e = realloc(ret->entries, ncap * sizeof(*e));
				if (!e)
					break;
				ret->entries = e;
				cap = ncap;
			}
			ret->entries[ret->num_entries++] = (struct ct_perfmap_entry){
				.start = start, .size = size, .name = nlen ? ct_strpool_intern_len(strings, p, nlen) : NULL
			};
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

void ct_perfmap_read(struct ct_strpool *strings, int pid, struct ct_perfmap *ret)
{
	*ret = (struct ct_perfmap){ 0 };
	if (pid <= 0)
		return;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	size_t got;
	_cleanup_free_ char *buf = ct_read_file_bounded(AT_FDCWD, path, CT_PERFMAP_MAX_BYTES, &got);
	if (!buf)
		return;
	ct_perfmap_parse(strings, buf, got, ret);
	ret->path = ct_strpool_intern(strings, path);
}

const struct ct_perfmap_entry *ct_perfmap_find(const struct ct_perfmap *map, uint64_t addr)
{
	for (size_t i = map->num_entries; i-- > 0;) {
		const struct ct_perfmap_entry *e = &map->entries[i];
		if (addr >= e->start && addr - e->start < e->size)
			return e;
	}
	return NULL;
}

void ct_perfmap_deinit(struct ct_perfmap *map)
{
	free(map->entries);
	*map = (struct ct_perfmap){ 0 };
}
