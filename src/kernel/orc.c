// The kernel's ORC tables, read from the dump: the sorted table of s32 ip offsets (each relative to its
// own address) is binary-searched with 4-byte reads, so nothing proportional to the table size is read.
#include "kernel/orc.h"

#include <string.h>

#include "kernel/vmcore.h"
#include "util/bisect.h"

// vmlinux of a 6.1 distribution kernel has about 500,000 ORC entries; 2M bounds a corrupt table.
#define MAX_ORC_ENTRIES (2u * 1024 * 1024)

bool ct_orc_init(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_orc *ret)
{
	memset(ret, 0, sizeof(*ret));
	uint64_t ip_start, ip_stop, u_start;
	if (!ks->text_start || !ct_kallsyms_find(ks, "__start_orc_unwind_ip", &ip_start) ||
	    !ct_kallsyms_find(ks, "__stop_orc_unwind_ip", &ip_stop) ||
	    !ct_kallsyms_find(ks, "__start_orc_unwind", &u_start))
		return false;
	if (ip_stop <= ip_start || (ip_stop - ip_start) % 4 != 0 || (ip_stop - ip_start) / 4 > MAX_ORC_ENTRIES)
		return false;
	ret->ip_table = ip_start;
	ret->entries = u_start;
	ret->num = (ip_stop - ip_start) / 4;
	ret->text_start = ks->text_start;
	ret->text_end = ks->text_end;
	ret->modules = ks->modules;
	// .init.text has ORC entries too (the boot CPU's idle task returns into start_kernel).
	uint64_t a, b;
	if (ct_kallsyms_find(ks, "_sinittext", &a) && ct_kallsyms_find(ks, "_einittext", &b) && a < b) {
		ret->init_start = a;
		ret->init_end = b;
	}
	// The table must be in the dump (a filtered dump keeps kernel data, but check one entry).
	uint32_t probe;
	if (!ct_vmcore_try_read(vm, ip_start, &probe, sizeof(probe)))
		return false;
	(void)vm;
	return true;
}

static bool orc_ip(struct ct_vmcore *vm, const struct ct_orc *orc, uint64_t i, uint64_t *ret)
{
	uint8_t b[4];
	uint64_t addr = orc->ip_table + 4 * i;
	if (!ct_vmcore_try_read(vm, addr, b, sizeof(b)))
		return false;
	int32_t off = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
	*ret = addr + (uint64_t)(int64_t)off;
	return true;
}

struct orc_key {
	struct ct_vmcore *vm;
	const struct ct_orc *t;
	uint64_t ip;
};

static enum ct_bisect_answer orc_at_or_below(const void *ctx, size_t i)
{
	const struct orc_key *k = ctx;
	uint64_t a;
	if (!orc_ip(k->vm, k->t, i, &a))
		return CT_BISECT_ERROR;
	return a <= k->ip ? CT_BISECT_BEFORE : CT_BISECT_AFTER;
}

/* The entry of the table at @p ip_table / @p entries (@p num entries) covering @p ip. */
static bool table_find(struct ct_vmcore *vm, const struct ct_orc *t, uint64_t ip, struct ct_orc_entry *ret)
{
	// Rightmost entry whose ip <= ip (arch/x86/kernel/unwind_orc.c __orc_find).
	size_t upper;
	if (!ct_bisect_try((size_t)t->num, orc_at_or_below, &(struct orc_key){ vm, t, ip }, &upper) || upper == 0)
		return false;
	size_t found = upper - 1;
	uint8_t e[CT_ORC_ENTRY_SIZE];
	if (!ct_vmcore_try_read(vm, t->entries + CT_ORC_ENTRY_SIZE * found, e, sizeof(e)))
		return false;
	ct_orc_entry_decode(e, ret);
	return true;
}

static bool find_uncached(struct ct_vmcore *vm, const struct ct_orc *orc, uint64_t ip, struct ct_orc_entry *ret)
{
	bool core = ip >= orc->text_start && ip < orc->text_end, init = ip >= orc->init_start && ip < orc->init_end;
	if (core || init)
		return orc->num && table_find(vm, orc, ip, ret);
	// A module's own tables (struct module arch.orc_unwind_ip …, sorted by the kernel at load time).
	const struct ct_kmodule *m = ct_kmodules_find(orc->modules, ip);
	if (!m || !m->num_orcs || m->num_orcs > MAX_ORC_ENTRIES || !m->orc_ip || !m->orc_entries)
		return false;
	struct ct_orc t = { .ip_table = m->orc_ip, .entries = m->orc_entries, .num = m->num_orcs };
	return table_find(vm, &t, ip, ret);
}

bool ct_orc_find(struct ct_vmcore *vm, struct ct_orc *orc, uint64_t ip, struct ct_orc_entry *ret)
{
	struct ct_orc_memo *m = &orc->memo[(ip ^ ip >> 9 ^ ip >> 17) % CT_ORC_MEMO_SLOTS];
	if (m->state && m->ip == ip) {
		if (m->state == 1)
			*ret = m->entry;
		return m->state == 1;
	}
	bool found = find_uncached(vm, orc, ip, &m->entry);
	m->ip = ip;
	m->state = found ? 1 : 2;
	if (found)
		*ret = m->entry;
	return found;
}
