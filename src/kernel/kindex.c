// A kernel's kept index: kallsyms decoded and the raw .BTF, under the build-id (kindex.h).
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kindex.h"
#include "modules/cache_trim.h"
#include "util/writefile.h"

#define MAGIC "CTKIDX2\n"
/** Written in the host's byte order: a file from a host of the other order does not match. */
#define BYTE_ORDER_MARK 0x01020304u
#define MAX_BUILD_ID 80
#define NUM_SAMPLES 8
#define SAMPLE_BYTES 32
/** Bounds of what a kept file may ask to map; the decoder's own bounds are lower. */
#define MAX_FILE_BYTES (256u << 20)
#define MAX_SYMS (4u << 20)
#define MAX_NAMES (64u << 20)
#define MAX_BTF (64u << 20)

enum sample_table { SAMPLE_NONE, SAMPLE_NAMES, SAMPLE_OFFSETS, SAMPLE_BTF };

/** 32 bytes of one of the dump's tables, at an offset from its start (KASLR moves the start only). */
struct sample {
	uint32_t table; /**< enum sample_table */
	uint32_t pad;
	uint64_t offset;
	uint8_t bytes[SAMPLE_BYTES];
};

struct header {
	char magic[8];
	uint32_t byte_order, header_size;
	char build_id[MAX_BUILD_ID + 8];
	uint64_t raw_num_syms; /**< kallsyms_num_syms */
	uint64_t relative_base; /**< kallsyms_relative_base of the boot the index was made from */
	uint64_t num_syms, names_size, num_slots, names_stream_len, btf_size;
	uint64_t addrs_off, name_offs_off, slots_off, types_off, names_off, btf_off, file_size;
	uint64_t hash_key; /**< the key the slots were hashed with (ct_kallsyms.hash_key) */
	uint8_t token_index[512];
	struct sample samples[NUM_SAMPLES];
};

/** Where the dump keeps the kallsyms tables (VMCOREINFO), and the two numbers the index depends on. */
struct source {
	uint64_t names, offsets, token_index;
	uint32_t num_syms;
	uint64_t relative_base;
	uint8_t token_index_bytes[512];
};

static bool read_source(struct ct_vmcore *vm, struct source *src)
{
	const struct ct_vmcoreinfo *vi = &vm->vmcoreinfo;
	uint64_t num_a, base_a;
	if (!ct_vmcoreinfo_symbol(vi, "kallsyms_names", &src->names) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_offsets", &src->offsets) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_token_index", &src->token_index) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_num_syms", &num_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_relative_base", &base_a))
		return false;
	struct ct_error *err = ct_vmcore_read_u32(vm, num_a, &src->num_syms);
	if (!err)
		err = ct_vmcore_read_u64(vm, base_a, &src->relative_base);
	if (err) {
		ct_error_destroy(err);
		return false;
	}
	return ct_vmcore_try_read(vm, src->token_index, src->token_index_bytes, sizeof(src->token_index_bytes));
}

static bool valid_build_id(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n > MAX_BUILD_ID)
		return false;
	for (const char *p = id; *p; p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	}
	return true;
}

static char *index_path(const char *cache_dir, const char *build_id)
{
	char *path = NULL;
	return asprintf(&path, "%s/kernel/%s.kidx", cache_dir, build_id) < 0 ? NULL : path;
}

/* Do the samples of @p table (which starts at @p base in the dump) read back the same? */
static bool samples_match(const struct header *h, struct ct_vmcore *vm, uint32_t table, uint64_t base)
{
	for (int i = 0; i < NUM_SAMPLES; i++) {
		const struct sample *s = &h->samples[i];
		if (s->table != table)
			continue;
		uint8_t now[SAMPLE_BYTES];
		if (!base || s->offset > UINT64_MAX - base || !ct_vmcore_try_read(vm, base + s->offset, now, sizeof(now)) ||
		    memcmp(now, s->bytes, sizeof(now)) != 0)
			return false;
	}
	return true;
}

static bool array_fits(uint64_t off, uint64_t count, uint64_t elem, uint64_t align, uint64_t file_size)
{
	return off % align == 0 && off >= sizeof(struct header) && count <= (file_size - off) / elem && off <= file_size;
}

/* The header's own consistency: every array inside the file, every count within the decoder's bounds. */
static bool header_sane(const struct header *h, size_t len, const char *build_id)
{
	if (memcmp(h->magic, MAGIC, sizeof(h->magic)) != 0 || h->byte_order != BYTE_ORDER_MARK ||
	    h->header_size != sizeof(*h) || h->file_size != len || memchr(h->build_id, '\0', sizeof(h->build_id)) == NULL ||
	    strcmp(h->build_id, build_id) != 0)
		return false;
	if (h->num_syms == 0 || h->num_syms > MAX_SYMS || h->names_size == 0 || h->names_size > MAX_NAMES ||
	    h->btf_size > MAX_BTF || h->num_slots < h->num_syms + 1 || h->num_slots > 4 * (uint64_t)MAX_SYMS ||
	    (h->num_slots & (h->num_slots - 1)) != 0)
		return false;
	return array_fits(h->addrs_off, h->num_syms, 8, 8, len) && array_fits(h->name_offs_off, h->num_syms, 4, 4, len) &&
	       array_fits(h->slots_off, h->num_slots, 4, 4, len) && array_fits(h->types_off, h->num_syms, 1, 1, len) &&
	       array_fits(h->names_off, h->names_size, 1, 1, len) && array_fits(h->btf_off, h->btf_size, 1, 1, len);
}

/* The arrays as the decoder makes them: addresses sorted, names inside the blob and ended, slots
 * naming symbols. One pass each; a file that fails is ignored. */
static bool arrays_sane(const struct header *h, const uint8_t *base)
{
	const uint64_t *addrs = (const uint64_t *)(base + h->addrs_off);
	const uint32_t *offs = (const uint32_t *)(base + h->name_offs_off);
	const uint32_t *slots = (const uint32_t *)(base + h->slots_off);
	const char *names = (const char *)(base + h->names_off);
	if (names[h->names_size - 1] != '\0')
		return false;
	for (uint64_t i = 0; i < h->num_syms; i++) {
		if ((i && addrs[i - 1] > addrs[i]) || offs[i] >= h->names_size)
			return false;
	}
	uint64_t empty = 0;
	for (uint64_t i = 0; i < h->num_slots; i++) {
		if (slots[i] > h->num_syms)
			return false;
		empty += slots[i] == 0;
	}
	return empty > 0;
}

/* Do the names VMCOREINFO gives addresses of resolve to the same addresses in @p ks? At least one must
 * be found: this runs the name hash, the names and the addresses of a table end to end. Only symbols
 * whose VMCOREINFO value is their address (mem_section's is the pointer it holds). */
static bool agrees_with_vmcoreinfo(const struct ct_kallsyms *ks, const struct ct_vmcoreinfo *vi)
{
	static const char *const names[] = { "_stext", "init_uts_ns", "swapper_pg_dir", "init_top_pgt", "prb",
					     "printk_rb_static", "clear_seq", "vmap_area_list", "node_online_map" };
	size_t found = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t want, got;
		if (!ct_vmcoreinfo_symbol(vi, names[i], &want) || !ct_kallsyms_find(ks, names[i], &got))
			continue;
		if (got != want)
			return false;
		found++;
	}
	return found > 0;
}

/* The addresses of this boot: KASLR moved every address that is not absolute by the change of
 * kallsyms_relative_base. NULL when the order would change (then the index is not used). */
static uint64_t *relocate(const uint64_t *addrs, const char *types, uint64_t n, uint64_t delta)
{
	uint64_t *out = malloc(n * sizeof(*out));
	if (!out)
		return NULL;
	for (uint64_t i = 0; i < n; i++) {
		out[i] = addrs[i] + ((unsigned char)types[i] & CT_KSYM_ABSOLUTE ? 0 : delta);
		if (i && out[i - 1] > out[i]) {
			free(out);
			return NULL;
		}
	}
	return out;
}

bool ct_kindex_view(const void *map, size_t len, const char *build_id, struct ct_kallsyms *ks, const void **btf,
		    size_t *btf_size)
{
	const struct header *h = map;
	if (len < sizeof(*h) || !header_sane(h, len, build_id) || !arrays_sane(h, map))
		return false;
	const uint8_t *base = map;
	*ks = (struct ct_kallsyms){ .num_syms = h->num_syms,
				    .addrs = (const uint64_t *)(base + h->addrs_off),
				    .types = (const char *)(base + h->types_off),
				    .name_offs = (const uint32_t *)(base + h->name_offs_off),
				    .names = (const char *)(base + h->names_off),
				    .names_size = h->names_size,
				    .slots = (const uint32_t *)(base + h->slots_off),
				    .num_slots = h->num_slots,
				    .hash_key = h->hash_key,
				    .names_stream_len = h->names_stream_len };
	*btf = h->btf_size ? base + h->btf_off : NULL;
	*btf_size = h->btf_size;
	return true;
}

bool ct_kindex_load(const char *cache_dir, const char *build_id, struct ct_vmcore *vm, struct ct_kallsyms *ks,
		    struct ct_kindex *ix)
{
	*ix = (struct ct_kindex){ 0 };
	if (!cache_dir || !*cache_dir || !build_id || !valid_build_id(build_id))
		return false;
	char *path = index_path(cache_dir, build_id);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	free(path);
	if (fd < 0)
		return false;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(struct header) &&
	    st.st_size <= (off_t)MAX_FILE_BYTES)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED)
		ct_cache_touch(fd); // used now: the last to go when the kept indexes are trimmed
	close(fd);
	if (map == MAP_FAILED)
		return false;
	size_t len = (size_t)st.st_size;
	const struct header *h = map;
	struct ct_kallsyms view;
	struct source src;
	if (!ct_kindex_view(map, len, build_id, &view, &ix->btf, &ix->btf_size) || !read_source(vm, &src) ||
	    src.num_syms != h->raw_num_syms || memcmp(src.token_index_bytes, h->token_index, sizeof(h->token_index)) != 0 ||
	    !samples_match(h, vm, SAMPLE_NAMES, src.names) || !samples_match(h, vm, SAMPLE_OFFSETS, src.offsets))
		goto mismatch;
	uint64_t *moved = NULL;
	if (src.relative_base != h->relative_base) {
		moved = relocate(view.addrs, view.types, view.num_syms, src.relative_base - h->relative_base);
		if (!moved)
			goto mismatch;
		view.addrs = moved;
	}
	view.owned[0] = moved;
	if (!agrees_with_vmcoreinfo(&view, &vm->vmcoreinfo)) {
		free(moved);
		goto mismatch;
	}
	view.map = map;
	view.map_len = len;
	*ks = view;
	ct_kallsyms_find_sections(ks);
	ix->map = map;
	ix->len = len;
	return true;
mismatch:
	*ix = (struct ct_kindex){ 0 };
	munmap(map, len);
	return false;
}

bool ct_kindex_btf_matches(const struct ct_kindex *ix, struct ct_vmcore *vm, const struct ct_kallsyms *ks)
{
	uint64_t start, stop;
	if (!ix->btf || !ct_kallsyms_find(ks, "__start_BTF", &start) || !ct_kallsyms_find(ks, "__stop_BTF", &stop) ||
	    stop < start || stop - start != ix->btf_size)
		return false;
	return samples_match(ix->map, vm, SAMPLE_BTF, start);
}

/* Takes a sample of @p table (at @p base in the dump, @p size bytes long) at @p offset into the next
 * free slot. */
static void take_sample(struct header *h, int *next, struct ct_vmcore *vm, uint32_t table, uint64_t base, uint64_t size,
			uint64_t offset)
{
	if (*next >= NUM_SAMPLES || size < SAMPLE_BYTES)
		return;
	if (offset > size - SAMPLE_BYTES)
		offset = size - SAMPLE_BYTES;
	struct sample *s = &h->samples[*next];
	if (ct_vmcore_try_read(vm, base + offset, s->bytes, sizeof(s->bytes))) {
		s->table = table;
		s->offset = offset;
		++*next;
	}
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

void ct_kindex_save(const char *cache_dir, const char *build_id, struct ct_vmcore *vm, const struct ct_kallsyms *ks,
		    const void *btf, size_t btf_size)
{
	struct source src;
	uint64_t btf_start = 0, stop;
	if (!cache_dir || !*cache_dir || !build_id || !valid_build_id(build_id) || !ks->num_syms ||
	    !read_source(vm, &src) || btf_size > MAX_BTF || !agrees_with_vmcoreinfo(ks, &vm->vmcoreinfo))
		return;
	if (btf && (!ct_kallsyms_find(ks, "__start_BTF", &btf_start) || !ct_kallsyms_find(ks, "__stop_BTF", &stop) ||
		    stop - btf_start != btf_size))
		btf = NULL;
	struct header *h = calloc(1, sizeof(*h));
	if (!h)
		return;
	memcpy(h->magic, MAGIC, sizeof(h->magic));
	h->byte_order = BYTE_ORDER_MARK;
	h->header_size = sizeof(*h);
	snprintf(h->build_id, sizeof(h->build_id), "%s", build_id);
	h->raw_num_syms = src.num_syms;
	h->relative_base = src.relative_base;
	memcpy(h->token_index, src.token_index_bytes, sizeof(h->token_index));
	h->num_syms = ks->num_syms;
	h->names_size = ks->names_size;
	h->num_slots = ks->num_slots;
	h->hash_key = ks->hash_key;
	h->names_stream_len = ks->names_stream_len;
	h->btf_size = btf ? btf_size : 0;
	h->addrs_off = align_up(sizeof(*h), 8);
	h->name_offs_off = h->addrs_off + 8 * h->num_syms;
	h->slots_off = h->name_offs_off + 4 * h->num_syms;
	h->types_off = h->slots_off + 4 * h->num_slots;
	h->names_off = h->types_off + h->num_syms;
	h->btf_off = align_up(h->names_off + h->names_size, 8);
	h->file_size = h->btf_off + h->btf_size;
	int next = 0;
	take_sample(h, &next, vm, SAMPLE_NAMES, src.names, ks->names_stream_len, 0);
	take_sample(h, &next, vm, SAMPLE_NAMES, src.names, ks->names_stream_len, ks->names_stream_len / 2);
	take_sample(h, &next, vm, SAMPLE_OFFSETS, src.offsets, 4 * (uint64_t)src.num_syms, 0);
	take_sample(h, &next, vm, SAMPLE_OFFSETS, src.offsets, 4 * (uint64_t)src.num_syms, 2 * (uint64_t)src.num_syms);
	for (uint64_t q = 0; btf && q < 4; q++)
		take_sample(h, &next, vm, SAMPLE_BTF, btf_start, btf_size, btf_size / 4 * q);

	char *dir = NULL, *path = index_path(cache_dir, build_id), *tmp = NULL;
	int fd = -1;
	if (!path || asprintf(&dir, "%s/kernel", cache_dir) < 0 || asprintf(&tmp, "%s/.%s.XXXXXX", dir, build_id) < 0)
		goto out;
	if ((mkdir(cache_dir, 0700) != 0 && errno != EEXIST) || (mkdir(dir, 0700) != 0 && errno != EEXIST))
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	static const uint8_t zeros[8];
	bool ok = ct_write_all(fd, h, sizeof(*h)) && ct_write_all(fd, zeros, h->addrs_off - sizeof(*h)) &&
		  ct_write_all(fd, ks->addrs, 8 * h->num_syms) && ct_write_all(fd, ks->name_offs, 4 * h->num_syms) &&
		  ct_write_all(fd, ks->slots, 4 * h->num_slots) && ct_write_all(fd, ks->types, h->num_syms) &&
		  ct_write_all(fd, ks->names, h->names_size) &&
		  ct_write_all(fd, zeros, h->btf_off - (h->names_off + h->names_size)) &&
		  (!h->btf_size || ct_write_all(fd, btf, h->btf_size));
	// On disk before it has its name: a torn file after a crash would still pass the size checks.
	ok = ok && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && rename(tmp, path) == 0)
		ct_cache_trim(dir, ".kidx", CT_KINDEX_CACHE_SIZE, strrchr(path, '/') + 1);
	else
		unlink(tmp);
out:
	free(h);
	free(dir);
	free(path);
	free(tmp);
}
