// Kernel symbols without vmlinux: the kallsyms tables in the dump's memory, which VMCOREINFO names
// since Linux 6.0 (commit 5fd8fea935a1 "vmcoreinfo: include kallsyms symbols"). Decoded like
// kernel/kallsyms.c does: names are token-compressed, addresses are offsets from a base.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "util/bisect.h"
#include "util/bytes.h"
#include "util/cleanup.h"
#include "util/keyhash.h"

// A 6.1 distribution kernel has ~190,000 symbols; 4 Mi bounds the tables a corrupt count asks for.
#define MAX_SYMS (4u << 20)
// KSYM_NAME_LEN is 512 since 6.1; the compressed stream stores at most that many tokens per name.
#define MAX_NAME 512
// kallsyms_names averages well under 16 bytes per symbol; this bounds the one read of the stream.
#define NAMES_BYTES_PER_SYM 32
// The decoded names of a 6.1 kernel are ~2.5 MiB; a hostile token table could make each stream byte
// thousands of characters, so the table ends where its names would pass this.
#define MAX_NAMES_BYTES (64u << 20)

/** Where the decoder builds the arrays (ct_kallsyms' layout) before they are handed over. */
struct table {
	uint64_t *addrs;
	char *types;
	uint32_t *name_offs;
	char *names;
	size_t n, names_len, names_cap;
	bool full; /**< the names reached MAX_NAMES_BYTES: the table ends there */
};

static void table_free(struct table *t)
{
	free(t->addrs);
	free(t->types);
	free(t->name_offs);
	free(t->names);
}

/* The expanded tokens (kallsyms_token_table/index): where each of the 256 starts and how long it is. */
struct tokens {
	const uint8_t *at[256];
	uint16_t len[256];
};

static void index_tokens(const uint8_t *tok, size_t tok_len, const uint8_t *index_raw, struct tokens *ret)
{
	for (int i = 0; i < 256; i++) {
		uint16_t ti = ct_load16(index_raw + 2 * i, false);
		// tok[tok_len] is NUL, so strnlen stops in the buffer even for an index past the table.
		size_t at = ti < tok_len ? ti : tok_len;
		ret->at[i] = tok + at;
		ret->len[i] = (uint16_t)strnlen((const char *)tok + at, tok_len - at);
	}
}

/* Appends the name of @p len tokens at @p codes; false out of memory. The first character is the type
 * letter; names longer than MAX_NAME * 8 are cut there (a corrupt stream; a real one is ≤ 512). */
static bool add_name(struct table *t, const struct tokens *tk, const uint8_t *codes, size_t len, uint64_t addr,
		     bool absolute)
{
	char name[MAX_NAME * 8 + 1];
	size_t nl = 0;
	for (size_t i = 0; i < len && nl < sizeof(name) - 1; i++) {
		size_t l = tk->len[codes[i]];
		if (l > sizeof(name) - 1 - nl)
			l = sizeof(name) - 1 - nl;
		memcpy(name + nl, tk->at[codes[i]], l);
		nl += l;
	}
	if (nl < 2)
		return true;
	if (t->names_len + nl > MAX_NAMES_BYTES) {
		t->full = true;
		return true;
	}
	if (t->names_len + nl > t->names_cap) {
		size_t ncap = t->names_cap * 2 > t->names_len + nl ? t->names_cap * 2 : t->names_len + nl;
		char *p = realloc(t->names, ncap);
		if (!p)
			return false;
		t->names = p;
		t->names_cap = ncap;
	}
	t->addrs[t->n] = addr;
	t->types[t->n] = (char)(((unsigned char)name[0] & ~CT_KSYM_ABSOLUTE) | (absolute ? CT_KSYM_ABSOLUTE : 0));
	t->name_offs[t->n] = (uint32_t)t->names_len;
	memcpy(t->names + t->names_len, name + 1, nl - 1);
	t->names[t->names_len + nl - 1] = '\0';
	t->names_len += nl;
	t->n++;
	return true;
}

static int cmp_index(const void *a, const void *b, void *arg)
{
	const uint64_t *addrs = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (addrs[x] != addrs[y])
		return addrs[x] < addrs[y] ? -1 : 1;
	return x < y ? -1 : x > y; // equal addresses keep the table's order
}

/* scripts/kallsyms writes the table sorted by address: only a table that is not gets sorted. */
static bool sort_by_address(struct table *t)
{
	bool sorted = true;
	for (size_t i = 1; i < t->n && sorted; i++)
		sorted = t->addrs[i - 1] <= t->addrs[i];
	if (sorted)
		return true;
	uint32_t *perm = malloc(t->n * sizeof(*perm));
	uint64_t *addrs = malloc(t->n * sizeof(*addrs));
	char *types = malloc(t->n);
	uint32_t *offs = malloc(t->n * sizeof(*offs));
	if (!perm || !addrs || !types || !offs) {
		free(perm);
		free(addrs);
		free(types);
		free(offs);
		return false;
	}
	for (size_t i = 0; i < t->n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, t->n, sizeof(*perm), cmp_index, t->addrs);
	for (size_t i = 0; i < t->n; i++) {
		addrs[i] = t->addrs[perm[i]];
		types[i] = t->types[perm[i]];
		offs[i] = t->name_offs[perm[i]];
	}
	free(perm);
	free(t->addrs);
	free(t->types);
	free(t->name_offs);
	t->addrs = addrs;
	t->types = types;
	t->name_offs = offs;
	return true;
}

/* The first slot of @p name's probe path in a table of @p mask + 1 slots hashed with @p key. */
static size_t first_slot(const char *name, uint64_t key, size_t mask)
{
	return (size_t)ct_hash_bytes(name, strlen(name), key) & mask;
}

/* The name hash over the sorted table, keyed (util/keyhash.h) so that a dump cannot make its names
 * collide. A name's first entry is its lowest address; a repeated name (static functions of one name
 * in many files, or a hostile table of one name) is not entered again, so lookups return the first
 * and no probe path grows with the repeats. */
static uint32_t *hash_names(const struct table *t, uint64_t key, size_t *num_slots)
{
	size_t slots = 1024;
	while (slots < t->n + t->n / 2)
		slots *= 2;
	uint32_t *h = calloc(slots, sizeof(*h));
	if (!h)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const char *name = t->names + t->name_offs[i];
		size_t at = first_slot(name, key, slots - 1);
		while (h[at] && strcmp(t->names + t->name_offs[h[at] - 1], name) != 0)
			at = (at + 1) & (slots - 1);
		if (!h[at])
			h[at] = (uint32_t)i + 1;
	}
	*num_slots = slots;
	return h;
}

struct ct_error *ct_kallsyms_load(struct ct_vmcore *vm, struct ct_kallsyms *ret)
{
	*ret = (struct ct_kallsyms){ 0 };
	const struct ct_vmcoreinfo *vi = &vm->vmcoreinfo;
	bool absolute_percpu = !vm->arch || vm->arch->kallsyms_absolute_percpu;
	bool big_endian = vm->arch && vm->arch->big_endian;
	uint64_t names_a, num_a, tok_table_a, tok_index_a, offsets_a, base_a;
	if (!ct_vmcoreinfo_symbol(vi, "kallsyms_names", &names_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_num_syms", &num_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_token_table", &tok_table_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_token_index", &tok_index_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_offsets", &offsets_a) ||
	    !ct_vmcoreinfo_symbol(vi, "kallsyms_relative_base", &base_a))
		return ct_error_create(CT_ERROR_NOT_FOUND, "VMCOREINFO does not name the kallsyms tables (Linux < 6.0)");
	uint32_t num;
	uint64_t base;
	struct ct_error *err;
	if ((err = ct_vmcore_read_u32(vm, num_a, &num)) || (err = ct_vmcore_read_u64(vm, base_a, &base)))
		return ct_error_wrap(err, "kallsyms");
	if (num == 0 || num > MAX_SYMS)
		return ct_error_create(CT_ERROR_CORRUPT, "kallsyms_num_syms %" PRIu32 " is implausible", num);
	// kallsyms_token_index: 256 u16 offsets into kallsyms_token_table (NUL-terminated tokens).
	uint8_t tok_index_raw[512];
	if ((err = ct_vmcore_read(vm, tok_index_a, tok_index_raw, sizeof(tok_index_raw))))
		return ct_error_wrap(err, "kallsyms_token_index");
	uint16_t max_tok = 0;
	for (int i = 0; i < 256; i++) {
		uint16_t t = ct_load16(tok_index_raw + 2 * i, false);
		if (t > max_tok)
			max_tok = t;
	}
	// The table ends after the last token; a token is short, 256 bytes past the last start is ample.
	size_t tok_len = (size_t)max_tok + 256;
	_cleanup_free_ uint8_t *tok = malloc(tok_len + 1);
	_cleanup_free_ uint8_t *names = NULL, *offsets = NULL;
	if (!tok)
		return &ct_enomem;
	if ((err = ct_vmcore_read(vm, tok_table_a, tok, tok_len)))
		return ct_error_wrap(err, "kallsyms_token_table");
	tok[tok_len] = '\0';
	struct tokens tk;
	index_tokens(tok, tok_len, tok_index_raw, &tk);
	size_t names_len = (size_t)num * NAMES_BYTES_PER_SYM;
	// scripts/kallsyms.c emits kallsyms_markers and then the token table right after the names, so
	// the stream cannot extend past the token table: read no more than that.
	if (tok_table_a > names_a && tok_table_a - names_a < names_len)
		names_len = tok_table_a - names_a;
	names = malloc(names_len);
	offsets = malloc((size_t)num * 4);
	if (!names || !offsets)
		return &ct_enomem;
	// The names stream is read in one piece, but may end before names_len: read page by page at the
	// end, stopping at the first page that is not in the dump.
	size_t have = 0;
	while (have < names_len) {
		size_t chunk = names_len - have < 65536 ? names_len - have : 65536;
		if (!ct_vmcore_try_read(vm, names_a + have, names + have, chunk))
			break;
		have += chunk;
	}
	if ((err = ct_vmcore_read(vm, offsets_a, offsets, (size_t)num * 4)))
		return ct_error_wrap(err, "kallsyms_offsets");

	// Most names are far shorter than 16 bytes; the blob grows when they are not.
	struct table t = { .names_cap = (size_t)num * 16 };
	t.addrs = malloc((size_t)num * sizeof(*t.addrs));
	t.types = malloc(num);
	t.name_offs = malloc((size_t)num * sizeof(*t.name_offs));
	t.names = malloc(t.names_cap);
	if (!t.addrs || !t.types || !t.name_offs || !t.names) {
		table_free(&t);
		return &ct_enomem;
	}
	size_t pos = 0;
	for (uint32_t i = 0; i < num; i++) {
		if (pos >= have)
			break;
		size_t len = names[pos++];
		// Linux 6.1 commit 73bbb94466fd ("kallsyms: support "big" kernel symbols"): a set top bit
		// means a two-byte ULEB128 length.
		if (len & 0x80) {
			if (pos >= have)
				break;
			len = (len & 0x7f) | ((size_t)names[pos++] << 7);
		}
		if (len > MAX_NAME || pos + len > have)
			break;
		// CONFIG_KALLSYMS_BASE_RELATIVE with ABSOLUTE_PERCPU (the arch table says; x86-64 SMP): a
		// non-negative offset is an absolute per-CPU address, a negative one counts down from base - 1.
		// Without it (arm64) every offset is an unsigned distance from base (kallsyms_sym_address()).
		uint32_t raw = ct_load32(offsets + 4 * (size_t)i, big_endian);
		int32_t off = (int32_t)raw;
		bool absolute = absolute_percpu && off >= 0;
		uint64_t addr = !absolute_percpu ? base + raw : off >= 0 ? (uint64_t)off : base - 1 - (uint64_t)(int64_t)off;
		if (!add_name(&t, &tk, names + pos, len, addr, absolute)) {
			table_free(&t);
			return &ct_enomem;
		}
		pos += len;
		if (t.full)
			break;
	}
	if (t.n == 0) {
		table_free(&t);
		return ct_error_create(CT_ERROR_NODATA, "kallsyms tables are not in the dump");
	}
	size_t num_slots = 0;
	uint64_t key = ct_hash_key(&t);
	uint32_t *slots = sort_by_address(&t) ? hash_names(&t, key, &num_slots) : NULL;
	if (!slots) {
		table_free(&t);
		return &ct_enomem;
	}
	*ret = (struct ct_kallsyms){ .num_syms = t.n, .addrs = t.addrs, .types = t.types, .name_offs = t.name_offs,
				     .names = t.names, .names_size = t.names_len, .slots = slots, .num_slots = num_slots,
				     .hash_key = key,
				     .names_stream_len = pos,
				     .owned = { t.addrs, t.types, t.name_offs, t.names, slots } };
	ct_kallsyms_find_sections(ret);
	return NULL;
}

void ct_kallsyms_find_sections(struct ct_kallsyms *ks)
{
	uint64_t v;
	if (ct_kallsyms_find(ks, "_stext", &v))
		ks->text_start = v;
	if (ct_kallsyms_find(ks, "_etext", &v))
		ks->text_end = v;
	uint64_t a, b;
	if (ct_kallsyms_find(ks, "__sched_text_start", &a) && ct_kallsyms_find(ks, "__sched_text_end", &b) && a < b) {
		ks->sched_start = a;
		ks->sched_end = b;
	}
	if (ct_kallsyms_find(ks, "__lock_text_start", &a) && ct_kallsyms_find(ks, "__lock_text_end", &b) && a < b) {
		ks->lock_start = a;
		ks->lock_end = b;
	}
}

void ct_kallsyms_deinit(struct ct_kallsyms *ks)
{
	for (size_t i = 0; i < sizeof(ks->owned) / sizeof(ks->owned[0]); i++)
		free(ks->owned[i]);
	if (ks->map)
		munmap(ks->map, ks->map_len);
	memset(ks, 0, sizeof(*ks));
}

bool ct_kallsyms_is_sched(const struct ct_kallsyms *ks, uint64_t addr)
{
	return (addr >= ks->sched_start && addr < ks->sched_end) || (addr >= ks->lock_start && addr < ks->lock_end);
}

bool ct_kallsyms_is_text(const struct ct_kallsyms *ks, uint64_t addr)
{
	return ks->text_start && addr >= ks->text_start && addr < ks->text_end;
}

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

struct ksym_key {
	const struct ct_ksym *syms;
	uint64_t addr;
};

static bool ksym_at_or_below(const void *ctx, size_t i)
{
	const struct ksym_key *k = ctx;
	return k->syms[i].address <= k->addr;
}

size_t ct_ksym_upper_bound(const struct ct_ksym *syms, size_t n, uint64_t addr)
{
	return ct_bisect(n, ksym_at_or_below, &(struct ksym_key){ syms, addr });
}

struct addr_key {
	const uint64_t *addrs;
	uint64_t addr;
};

static bool addr_at_or_below(const void *ctx, size_t i)
{
	const struct addr_key *k = ctx;
	return k->addrs[i] <= k->addr;
}

bool ct_kallsyms_lookup(const struct ct_kallsyms *ks, uint64_t addr, struct ct_ksym *ret)
{
	if (!ct_kallsyms_is_text(ks, addr))
		return false;
	size_t lo = ct_bisect(ks->num_syms, addr_at_or_below, &(struct addr_key){ ks->addrs, addr });
	// lo is the first symbol above addr; walk back over aliases and data symbols to a function.
	for (size_t i = lo; i-- > 0 && lo - i < 16;) {
		char type = (char)(ks->types[i] & ~CT_KSYM_ABSOLUTE);
		if (is_text_type(type)) {
			*ret = (struct ct_ksym){ .address = ks->addrs[i], .name = ks->names + ks->name_offs[i], .type = type };
			return true;
		}
	}
	return false;
}

bool ct_kallsyms_find(const struct ct_kallsyms *ks, const char *name, uint64_t *ret)
{
	if (!ks->num_slots)
		return false;
	size_t mask = ks->num_slots - 1;
	// Bounded by the slots: the table always has empty ones (at most 2/3 full), a kept index's too
	// (kindex.c checks), but a full one still ends after one round.
	for (size_t at = first_slot(name, ks->hash_key, mask), probes = 0; ks->slots[at] && probes < ks->num_slots;
	     at = (at + 1) & mask, probes++) {
		size_t i = ks->slots[at] - 1;
		if (i < ks->num_syms && strcmp(ks->names + ks->name_offs[i], name) == 0) {
			*ret = ks->addrs[i];
			return true;
		}
	}
	return false;
}
