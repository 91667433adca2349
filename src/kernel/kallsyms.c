// Kernel symbols without vmlinux: the kallsyms tables in the dump's memory, which VMCOREINFO names
// since Linux 6.0 (commit 5fd8fea935a1 "vmcoreinfo: include kallsyms symbols"). Decoded like
// kernel/kallsyms.c does: names are token-compressed, addresses are offsets from a base.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "util/bisect.h"
#include "util/bytes.h"
#include "util/cleanup.h"

// A 6.1 distribution kernel has ~190,000 symbols; 4 Mi bounds the tables a corrupt count asks for.
#define MAX_SYMS (4u << 20)
// KSYM_NAME_LEN is 512 since 6.1; the compressed stream stores at most that many tokens per name.
#define MAX_NAME 512
// kallsyms_names averages well under 16 bytes per symbol; this bounds the one read of the stream.
#define NAMES_BYTES_PER_SYM 32

static int cmp_sym(const void *a, const void *b)
{
	const struct ct_ksym *x = a, *y = b;
	return x->address < y->address ? -1 : x->address > y->address;
}

struct ct_error *ct_kallsyms_load(struct ct_vmcore *vm, struct ct_kallsyms *ret)
{
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

	struct ct_kallsyms ks = { 0 };
	ks.syms = calloc(num, sizeof(*ks.syms));
	// Each decoded name is at most MAX_NAME bytes plus NUL; most are far shorter, so grow as needed.
	size_t str_cap = (size_t)num * 24, str_len = 0;
	ks.names = malloc(str_cap);
	if (!ks.syms || !ks.names) {
		ct_kallsyms_deinit(&ks);
		return &ct_enomem;
	}
	size_t pos = 0, n = 0;
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
		char name[MAX_NAME * 8 + 1];
		size_t nl = 0;
		for (size_t t = 0; t < len; t++) {
			uint16_t ti = ct_load16(tok_index_raw + 2 * names[pos + t], false);
			for (const uint8_t *p = tok + ti; *p && nl < sizeof(name) - 1 && p < tok + tok_len; p++)
				name[nl++] = (char)*p;
		}
		pos += len;
		name[nl] = '\0';
		if (nl < 2)
			continue;
		if (str_len + nl + 1 > str_cap) {
			// The names are referenced by offset until the end, so a realloc is safe here.
			size_t ncap = str_cap * 2;
			char *t = realloc(ks.names, ncap);
			if (!t) {
				ct_kallsyms_deinit(&ks);
				return &ct_enomem;
			}
			ks.names = t;
			str_cap = ncap;
		}
		// CONFIG_KALLSYMS_BASE_RELATIVE with ABSOLUTE_PERCPU (the arch table says; x86-64 SMP): a
		// non-negative offset is an absolute per-CPU address, a negative one counts down from base - 1.
		// Without it (arm64) every offset is an unsigned distance from base (kallsyms_sym_address()).
		uint32_t raw = ct_load32(offsets + 4 * (size_t)i, big_endian);
		int32_t off = (int32_t)raw;
		uint64_t addr = !absolute_percpu ? base + raw : off >= 0 ? (uint64_t)off : base - 1 - (uint64_t)(int64_t)off;
		ks.syms[n].address = addr;
		ks.syms[n].type = name[0];
		ks.syms[n].name = (const char *)(uintptr_t)str_len; // fixed up below
		memcpy(ks.names + str_len, name + 1, nl);
		str_len += nl;
		n++;
	}
	if (n == 0) {
		ct_kallsyms_deinit(&ks);
		return ct_error_create(CT_ERROR_NODATA, "kallsyms tables are not in the dump");
	}
	ks.num_syms = n;
	for (size_t i = 0; i < n; i++)
		ks.syms[i].name = ks.names + (uintptr_t)ks.syms[i].name;
	// scripts/kallsyms writes the table sorted by address: sort only a table that is not (glibc's qsort is
	// a stable merge sort, so equal addresses keep their order either way).
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = ks.syms[i - 1].address <= ks.syms[i].address;
	if (!sorted)
		qsort(ks.syms, n, sizeof(*ks.syms), cmp_sym);
	uint64_t v;
	if (ct_kallsyms_find(&ks, "_stext", &v))
		ks.text_start = v;
	if (ct_kallsyms_find(&ks, "_etext", &v))
		ks.text_end = v;
	uint64_t a, b;
	if (ct_kallsyms_find(&ks, "__sched_text_start", &a) && ct_kallsyms_find(&ks, "__sched_text_end", &b) && a < b) {
		ks.sched_start = a;
		ks.sched_end = b;
	}
	if (ct_kallsyms_find(&ks, "__lock_text_start", &a) && ct_kallsyms_find(&ks, "__lock_text_end", &b) && a < b) {
		ks.lock_start = a;
		ks.lock_end = b;
	}
	*ret = ks;
	return NULL;
}

void ct_kallsyms_deinit(struct ct_kallsyms *ks)
{
	free(ks->syms);
	free(ks->names);
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

const struct ct_ksym *ct_kallsyms_lookup(const struct ct_kallsyms *ks, uint64_t addr)
{
	if (!ct_kallsyms_is_text(ks, addr))
		return NULL;
	size_t lo = ct_ksym_upper_bound(ks->syms, ks->num_syms, addr);
	// lo is the first symbol above addr; walk back over aliases and data symbols to a function.
	for (size_t i = lo; i-- > 0 && lo - i < 16;) {
		if (is_text_type(ks->syms[i].type))
			return &ks->syms[i];
	}
	return NULL;
}

bool ct_kallsyms_find(const struct ct_kallsyms *ks, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < ks->num_syms; i++) {
		if (strcmp(ks->syms[i].name, name) == 0) {
			*ret = ks->syms[i].address;
			return true;
		}
	}
	return false;
}
