// Loaded kernel modules, read from the dump: the `modules` list of struct module, whose layout the dump's
// BTF gives. For each module its text ranges (core_layout/init_layout of Linux 4.x–6.3, mem[MOD_TEXT] /
// mem[MOD_INIT_TEXT] of 6.4+), its symbols (mod->kallsyms: the ELF symtab and strtab the kernel keeps)
// and its ORC tables (mod->arch.orc_unwind_ip …), so module frames are unwound and named like vmlinux's.
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"
#include "util/addr_set.h"
#include "util/budget.h"
#include "util/bytes.h"

// A kernel has a few hundred modules at most; a corrupt list must not loop for ever. The visited
// set holds every node walked (half its slots): a list that loops ends where it comes back.
#define MAX_MODULES 4096
#define NODE_SLOTS (2u * MAX_MODULES)
// Symbols kept per module (the largest, amdgpu, has ~20,000).
#define MAX_MODULE_SYMS 100000
#define MAX_STRTAB (8u << 20)
// All modules together: a corrupt list of 4096 "modules" must not read gigabytes.
#define MAX_TOTAL_SYMS (1u << 20)
#define MAX_TOTAL_STRTAB (64u << 20)
// sizeof(struct module) is ~1 KiB; refuse a BTF that says otherwise by orders of magnitude.
#define MAX_MODULE_STRUCT (64u * 1024)
#define ELF64_SYM_SIZE 24

struct layout {
	uint64_t size, list, name, name_size, state;
	bool old_layout; /**< core_layout/init_layout (before 6.4) instead of mem[] */
	uint64_t core_base, core_text_size, init_base, init_text_size; /* old */
	uint64_t mem, mem_size, mem_base, mem_msize, text_idx, init_text_idx; /* new */
	bool has_kallsyms, has_orc;
	uint64_t kallsyms, ks_symtab, ks_num, ks_strtab;
	uint64_t orc_ip, orc, num_orcs;
};

static bool learn(struct ct_kbtf *b, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	if (!ct_kbtf_size(b, "module", &l->size) || l->size > MAX_MODULE_STRUCT ||
	    !ct_kbtf_member(b, "module", "list", &l->list, NULL) || !ct_kbtf_member(b, "module", "name", &l->name, &l->name_size) ||
	    !ct_kbtf_member(b, "module", "state", &l->state, NULL))
		return false;
	if (ct_kbtf_member(b, "module", "core_layout.base", &l->core_base, NULL) &&
	    ct_kbtf_member(b, "module", "core_layout.text_size", &l->core_text_size, NULL) &&
	    ct_kbtf_member(b, "module", "init_layout.base", &l->init_base, NULL) &&
	    ct_kbtf_member(b, "module", "init_layout.text_size", &l->init_text_size, NULL)) {
		l->old_layout = true;
	} else {
		int64_t t, it;
		if (!ct_kbtf_member(b, "module", "mem", &l->mem, NULL) || !ct_kbtf_size(b, "module_memory", &l->mem_size) ||
		    !ct_kbtf_member(b, "module_memory", "base", &l->mem_base, NULL) ||
		    !ct_kbtf_member(b, "module_memory", "size", &l->mem_msize, NULL) || !ct_kbtf_enum_value(b, "MOD_TEXT", &t) ||
		    !ct_kbtf_enum_value(b, "MOD_INIT_TEXT", &it) || t < 0 || it < 0 || t > 16 || it > 16)
			return false;
		l->text_idx = (uint64_t)t;
		l->init_text_idx = (uint64_t)it;
	}
	l->has_kallsyms = ct_kbtf_member(b, "module", "kallsyms", &l->kallsyms, NULL) &&
			  ct_kbtf_member(b, "mod_kallsyms", "symtab", &l->ks_symtab, NULL) &&
			  ct_kbtf_member(b, "mod_kallsyms", "num_symtab", &l->ks_num, NULL) &&
			  ct_kbtf_member(b, "mod_kallsyms", "strtab", &l->ks_strtab, NULL);
	l->has_orc = ct_kbtf_member(b, "module", "arch.orc_unwind_ip", &l->orc_ip, NULL) &&
		     ct_kbtf_member(b, "module", "arch.orc_unwind", &l->orc, NULL) &&
		     ct_kbtf_member(b, "module", "arch.num_orcs", &l->num_orcs, NULL);
	return true;
}

static uint64_t u64_at(const uint8_t *buf, uint64_t size, uint64_t off)
{
	struct ct_bytes b = { .data = buf, .size = size };
	return ct_bytes_uint_or0(&b, off, 8);
}

static uint64_t u32_at(const uint8_t *buf, uint64_t size, uint64_t off)
{
	struct ct_bytes b = { .data = buf, .size = size };
	return ct_bytes_uint_or0(&b, off, 4);
}

/* module_init()/module_exit() add the aliases init_module/cleanup_module: the real name is better. */
static bool is_alias(const char *name)
{
	return strcmp(name, "init_module") == 0 || strcmp(name, "cleanup_module") == 0;
}

/* By address; at one address the aliases first, so the lookup (the last at or below) finds the real name. */
static int cmp_sym(const void *a, const void *b)
{
	const struct ct_ksym *x = a, *y = b;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return (int)is_alias(y->name) - (int)is_alias(x->name);
}

static bool in_text(const struct ct_kmodule *m, uint64_t a)
{
	return (a >= m->text_start && a < m->text_end) || (a >= m->init_start && a < m->init_end);
}

/* mod->kallsyms: Elf64_Sym[num_symtab] and the string table; text symbols only. */
struct budget {
	uint64_t syms, strtab; /**< what is left of MAX_TOTAL_SYMS / MAX_TOTAL_STRTAB */
};

static void load_symbols(struct ct_vmcore *vm, const struct layout *l, const uint8_t *buf, struct ct_kmodule *m,
			 struct budget *left)
{
	uint64_t ks = u64_at(buf, l->size, l->kallsyms);
	uint8_t hdr[64];
	uint64_t need = l->ks_strtab + 8 > l->ks_num + 4 ? l->ks_strtab + 8 : l->ks_num + 4;
	if (!ks || need > sizeof(hdr) || !ct_vmcore_try_read(vm, ks, hdr, need))
		return;
	uint64_t symtab = u64_at(hdr, need, l->ks_symtab), num = u32_at(hdr, need, l->ks_num),
		 strtab = u64_at(hdr, need, l->ks_strtab);
	if (!symtab || !strtab || num == 0 || num > MAX_MODULE_SYMS || num > left->syms)
		return;
	left->syms -= num;
	uint8_t *syms = malloc(num * ELF64_SYM_SIZE);
	if (!syms || !ct_vmcore_try_read(vm, symtab, syms, num * ELF64_SYM_SIZE)) {
		free(syms);
		return;
	}
	// The string table has no recorded size: it ends after the largest st_name's string.
	uint64_t max_name = 0;
	for (uint64_t i = 0; i < num; i++) {
		uint64_t nm = u32_at(syms, num * ELF64_SYM_SIZE, i * ELF64_SYM_SIZE);
		if (nm > max_name)
			max_name = nm;
	}
	uint64_t strsize = max_name + 256 < MAX_STRTAB ? max_name + 256 : MAX_STRTAB;
	if (strsize > left->strtab) {
		free(syms);
		return;
	}
	left->strtab -= strsize;
	char *str = malloc(strsize + 1);
	m->syms = calloc(num, sizeof(*m->syms));
	// The last string may end within the 256 bytes read past it, at a page that is not in the dump.
	while (str && strsize > max_name && !ct_vmcore_try_read(vm, strtab, str, strsize))
		strsize = strsize - 64 > max_name ? strsize - 64 : max_name;
	if (!str || !m->syms || strsize <= max_name) {
		free(syms);
		free(str);
		free(m->syms);
		m->syms = NULL;
		return;
	}
	str[strsize] = '\0';
	for (uint64_t i = 0; i < num; i++) {
		const uint8_t *s = syms + i * ELF64_SYM_SIZE;
		uint64_t nm = u32_at(s, ELF64_SYM_SIZE, 0), value = u64_at(s, ELF64_SYM_SIZE, 8);
		if (nm == 0 || nm >= strsize || !in_text(m, value) || !str[nm])
			continue;
		m->syms[m->num_syms++] = (struct ct_ksym){ .address = value, .name = str + nm, .type = 't' };
	}
	m->names = str;
	free(syms);
	qsort(m->syms, m->num_syms, sizeof(*m->syms), cmp_sym);
}

struct ct_error *ct_kmodules_load(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_kbtf *btf,
				  struct ct_budget *budget, struct ct_kmodules *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct layout l;
	uint64_t head;
	if (!learn(btf, &l))
		return ct_error_create(CT_ERROR_UNSUPPORTED, "struct module: the BTF lacks list/name/state or the text layout");
	if (!ct_kallsyms_find(ks, "modules", &head))
		return ct_error_create(CT_ERROR_NOT_FOUND, "no `modules` list head in kallsyms");
	struct ct_addr_set nodes;
	uint8_t *buf = malloc(l.size);
	if (!buf || !ct_addr_set_init(&nodes, NODE_SLOTS)) {
		free(buf);
		return ct_error_create(CT_ERROR_NO_MEMORY, "struct module buffer");
	}
	uint64_t node;
	struct ct_error *err = ct_vmcore_read_u64(vm, head, &node);
	size_t cap = 0;
	struct budget left = { MAX_TOTAL_SYMS, MAX_TOTAL_STRTAB };
	// Bounded by the visited set (MAX_MODULES nodes) and the budget.
	while (!err && node != head) {
		// A node met before: the list loops without returning to its head (a corrupt or hostile
		// dump); the modules up to there are kept, and the caller says where it looped.
		int added = node ? ct_addr_set_add(&nodes, node) : 1;
		if (added == 0) {
			ret->loop_node = node;
			break;
		}
		if (added < 0 || !ct_budget_take(budget, CT_BUDGET_NODES, 1)) {
			ret->cut = true;
			break;
		}
		uint64_t mod = node - l.list;
		err = ct_vmcore_read(vm, mod, buf, l.size);
		if (err)
			break;
		node = u64_at(buf, l.size, l.list);
		// MODULE_STATE_UNFORMED (3): still being set up, its fields are not valid yet.
		if (u32_at(buf, l.size, l.state) == 3)
			continue;
		if (ret->num == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct ct_kmodule *t = realloc(ret->mods, ncap * sizeof(*t));
			if (!t)
				break;
			ret->mods = t;
			cap = ncap;
		}
		struct ct_kmodule *m = &ret->mods[ret->num++];
		memset(m, 0, sizeof(*m));
		size_t nl = l.name_size < sizeof(m->name) ? l.name_size : sizeof(m->name) - 1;
		memcpy(m->name, buf + l.name, nl);
		m->name[nl < sizeof(m->name) ? nl : sizeof(m->name) - 1] = '\0';
		m->name[sizeof(m->name) - 1] = '\0';
		if (l.old_layout) {
			m->text_start = u64_at(buf, l.size, l.core_base);
			m->text_end = m->text_start + u32_at(buf, l.size, l.core_text_size);
			m->init_start = u64_at(buf, l.size, l.init_base);
			m->init_end = m->init_start ? m->init_start + u32_at(buf, l.size, l.init_text_size) : 0;
		} else {
			uint64_t t = l.mem + l.text_idx * l.mem_size, it = l.mem + l.init_text_idx * l.mem_size;
			m->text_start = u64_at(buf, l.size, t + l.mem_base);
			m->text_end = m->text_start + u32_at(buf, l.size, t + l.mem_msize);
			m->init_start = u64_at(buf, l.size, it + l.mem_base);
			m->init_end = m->init_start ? m->init_start + u32_at(buf, l.size, it + l.mem_msize) : 0;
		}
		if (l.has_orc) {
			m->orc_ip = u64_at(buf, l.size, l.orc_ip);
			m->orc_entries = u64_at(buf, l.size, l.orc);
			m->num_orcs = u32_at(buf, l.size, l.num_orcs);
		}
		if (l.has_kallsyms)
			load_symbols(vm, &l, buf, m, &left);
	}
	free(buf);
	ct_addr_set_deinit(&nodes);
	if (err) {
		// A list cut by a missing page still gives the modules before it.
		if (ret->num)
			ct_error_destroy(err);
		else
			return ct_error_wrap(err, "module list");
		err = NULL;
	}
	return NULL;
}

void ct_kmodules_deinit(struct ct_kmodules *mods)
{
	for (size_t i = 0; i < mods->num; i++) {
		free(mods->mods[i].syms);
		free(mods->mods[i].names);
	}
	free(mods->mods);
	memset(mods, 0, sizeof(*mods));
}

const struct ct_kmodule *ct_kmodules_find(const struct ct_kmodules *mods, uint64_t addr)
{
	for (size_t i = 0; mods && i < mods->num; i++) {
		if (in_text(&mods->mods[i], addr))
			return &mods->mods[i];
	}
	return NULL;
}

const struct ct_ksym *ct_kmodule_lookup(const struct ct_kmodule *m, uint64_t addr)
{
	size_t i = ct_ksym_upper_bound(m->syms, m->num_syms, addr);
	return i ? &m->syms[i - 1] : NULL;
}
