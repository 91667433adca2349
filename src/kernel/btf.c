// The dumped kernel's own type information: the .BTF section (CONFIG_DEBUG_INFO_BTF) lies in kernel memory
// between __start_BTF and __stop_BTF (kallsyms); libbpf parses it. This is the only file that talks to
// libbpf: the rest of src/kernel/ asks for member offsets and type sizes by name.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"

#if CT_HAVE_LIBBPF
#include <bpf/btf.h>

// vmlinux BTF of a distribution kernel is 4-6 MiB; 64 MiB bounds a corrupt __stop_BTF.
#define MAX_BTF_SIZE (64u << 20)
// Anonymous struct/union nesting followed when looking a member up (task_struct has 2-3 levels).
#define MAX_NESTING 8

struct ct_kbtf {
	struct btf *btf;
	void *raw;
};

struct ct_error *ct_kbtf_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf **ret)
{
	*ret = NULL;
	uint64_t start, stop;
	if (!ct_kallsyms_find(ks, "__start_BTF", &start) || !ct_kallsyms_find(ks, "__stop_BTF", &stop))
		return ct_error_create(CT_ERROR_NOT_FOUND, "no __start_BTF/__stop_BTF in kallsyms (kernel built without "
				       "CONFIG_DEBUG_INFO_BTF, or without CONFIG_KALLSYMS_ALL as Debian's arm64 one?)");
	if (stop <= start || stop - start > MAX_BTF_SIZE)
		return ct_error_create(CT_ERROR_CORRUPT, "implausible .BTF bounds 0x%llx..0x%llx", (unsigned long long)start,
				       (unsigned long long)stop);
	size_t size = (size_t)(stop - start);
	void *raw = malloc(size);
	if (!raw)
		return ct_error_create(CT_ERROR_NO_MEMORY, "%zu bytes for .BTF", size);
	struct ct_error *err = ct_vmcore_read(vm, start, raw, size);
	if (err) {
		free(raw);
		return ct_error_wrap(err, ".BTF at 0x%llx", (unsigned long long)start);
	}
	struct btf *btf = btf__new(raw, (uint32_t)size);
	if (!btf) {
		int e = errno;
		free(raw);
		return ct_error_create(CT_ERROR_CORRUPT, ".BTF (%zu bytes) does not parse: %s", size, strerror(e));
	}
	struct ct_kbtf *k = calloc(1, sizeof(*k));
	if (!k) {
		btf__free(btf);
		free(raw);
		return ct_error_create(CT_ERROR_NO_MEMORY, "BTF handle");
	}
	k->btf = btf;
	k->raw = raw;
	*ret = k;
	return NULL;
}

void ct_kbtf_free(struct ct_kbtf *k)
{
	if (!k)
		return;
	btf__free(k->btf);
	free(k->raw);
	free(k);
}

static int32_t find_composite(const struct btf *btf, const char *name)
{
	int32_t id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	return id > 0 ? id : btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
}

/* Follows typedefs and qualifiers to the real type. */
static const struct btf_type *resolve(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	for (int i = 0; t && i < 16 && (btf_is_typedef(t) || btf_is_mod(t)); i++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/* Member @p name of composite @p id, looking into anonymous members; offset in bits. */
static bool find_member(const struct btf *btf, uint32_t id, const char *name, size_t name_len, int depth,
			uint64_t *bit_off, uint32_t *member_type)
{
	const struct btf_type *t = resolve(btf, &id);
	if (!t || !btf_is_composite(t) || depth > MAX_NESTING)
		return false;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint64_t off = btf_member_bit_offset(t, i);
		if (mn && *mn) {
			if (strlen(mn) == name_len && memcmp(mn, name, name_len) == 0) {
				*bit_off = off;
				*member_type = m->type;
				return true;
			}
			continue;
		}
		uint64_t inner;
		if (find_member(btf, m->type, name, name_len, depth + 1, &inner, member_type)) {
			*bit_off = off + inner;
			return true;
		}
	}
	return false;
}

bool ct_kbtf_member(const struct ct_kbtf *k, const char *type, const char *path, uint64_t *offset, uint64_t *size)
{
	if (!k)
		return false;
	int32_t id = find_composite(k->btf, type);
	if (id <= 0)
		return false;
	uint64_t total = 0;
	uint32_t cur = (uint32_t)id;
	for (const char *p = path; *p;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		uint64_t bits;
		uint32_t mt;
		if (!find_member(k->btf, cur, p, n, 0, &bits, &mt) || bits % 8 != 0)
			return false;
		total += bits / 8;
		cur = mt;
		p = dot ? dot + 1 : p + n;
	}
	if (size) {
		int64_t s = btf__resolve_size(k->btf, cur);
		if (s < 0)
			return false;
		*size = (uint64_t)s;
	}
	*offset = total;
	return true;
}

bool ct_kbtf_size(const struct ct_kbtf *k, const char *type, uint64_t *size)
{
	if (!k)
		return false;
	int32_t id = find_composite(k->btf, type);
	if (id <= 0)
		return false;
	int64_t s = btf__resolve_size(k->btf, (uint32_t)id);
	if (s <= 0)
		return false;
	*size = (uint64_t)s;
	return true;
}

bool ct_kbtf_enum_value(const struct ct_kbtf *k, const char *name, int64_t *ret)
{
	if (!k)
		return false;
	uint32_t n = btf__type_cnt(k->btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		if (!t || !btf_is_enum(t))
			continue;
		const struct btf_enum *e = btf_enum(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, e++) {
			const char *en = btf__name_by_offset(k->btf, e->name_off);
			if (en && strcmp(en, name) == 0) {
				*ret = e->val;
				return true;
			}
		}
	}
	return false;
}
#else
// Built without libbpf: every dump is a dump without BTF (the report says so with a diagnostic).
struct ct_error *ct_kbtf_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf **ret)
{
	(void)vm;
	(void)ks;
	*ret = NULL;
	return ct_error_create(CT_ERROR_UNSUPPORTED, "built without libbpf: the dump's BTF is not read");
}

void ct_kbtf_free(struct ct_kbtf *btf)
{
	(void)btf;
}

bool ct_kbtf_member(const struct ct_kbtf *btf, const char *type, const char *path, uint64_t *offset, uint64_t *size)
{
	(void)btf, (void)type, (void)path, (void)offset, (void)size;
	return false;
}

bool ct_kbtf_size(const struct ct_kbtf *btf, const char *type, uint64_t *size)
{
	(void)btf, (void)type, (void)size;
	return false;
}

bool ct_kbtf_enum_value(const struct ct_kbtf *btf, const char *name, int64_t *ret)
{
	(void)btf, (void)name, (void)ret;
	return false;
}
#endif
