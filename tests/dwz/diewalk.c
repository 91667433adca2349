// Walks every DIE of a module's debug information as coretriage opens it (libdwfl with
// coretriage's find_debuginfo callback: the debug file and its shared dwz file) beside the same
// files opened directly with libdw (the debug file and the shared file the caller names, joined with
// dwarf_setalt), and checks that coretriage's readers agree with libdw's on each DIE:
//   - dwarf_diename, in every unit of the debug file and of the shared file (partial units too);
//   - ct_dwarf_function_name of every subprogram and inlined call;
//   - the DIE skipper's next sibling (die_skip.c) against dwarf_siblingof;
//   - each DW_TAG_imported_unit's target;
//   - the shared file coretriage took has the build-id the debug file's altlink names (.debug_sup:
//     the checksum, which the shared file's own .debug_sup repeats).
// DWARF 5 (`dwz -5`): libdw 0.188 resolves DW_FORM_ref_sup4/8 in the referring file (dwarf_ref.h),
// so names reached through an abstract origin there are read on both sides with ct_dwarf_diename; the
// oracle for those is the build without dwz (check_handmade.py), here each sup reference must land in
// the shared file on a DIE that has a tag.
// With --alt-missing the shared file must not be found: every name coretriage reads must then be
// NULL or libdw's (never another string), and the one dwz-file-missing diagnostic must name the
// altlink's path and build-id.
//
// usage: diewalk [--debug-dir DIR] [--cache-dir DIR] [--alt-missing] EXE DEBUGFILE ALTFILE
// Exit 0 all agree (counts on stdout), 1 a disagreement (each on stderr), 2 usage or setup.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules/altlink.h"
#include "modules/debugfile.h"
#include "modules/die_skip.h"
#include "modules/dwarf_name.h"
#include "modules/dwarf_ref.h"
#include "modules/modules.h"

/** DIE nesting followed (real files: < 30). */
#define MAX_DEPTH 256

struct counts {
	unsigned long dies, names, alt_names, functions, skips, imports, sup_refs, errors;
};

static bool alt_form(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	if (!dwarf_attr(die, DW_AT_name, &a))
		return false;
	unsigned f = dwarf_whatform(&a);
	return f == DW_FORM_GNU_strp_alt || f == DW_FORM_strp_sup;
}

static void bad(struct counts *c, Dwarf_Die *die, const char *what, const char *ours, const char *ref)
{
	if (c->errors++ < 20)
		fprintf(stderr, "DIE 0x%" PRIx64 ": %s: coretriage '%s', libdw '%s'\n", dwarf_dieoffset(die), what,
			ours ? ours : "(null)", ref ? ref : "(null)");
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

// Compares one DIE of coretriage's tree (@p o) with the same DIE of libdw's (@p r).
static void check_die(struct ct_strpool *pool, struct ct_die_skip *k, Dwarf_Die *o, Dwarf_Die *r, bool missing,
		      struct counts *c)
{
	c->dies++;
	if (dwarf_dieoffset(o) != dwarf_dieoffset(r) || dwarf_tag(o) != dwarf_tag(r)) {
		bad(c, o, "offset or tag", NULL, NULL);
		return;
	}
	Dwarf_Attribute ref;
	bool sup = (dwarf_attr(r, DW_AT_abstract_origin, &ref) || dwarf_attr(r, DW_AT_specification, &ref)) &&
		   (dwarf_whatform(&ref) == DW_FORM_ref_sup4 || dwarf_whatform(&ref) == DW_FORM_ref_sup8);
	if (sup) {
		Dwarf_Die target;
		c->sup_refs++;
		Dwarf *alt = dwarf_getalt(dwarf_cu_getdwarf(r->cu));
		if (!ct_dwarf_ref_die(&ref, &target) || dwarf_cu_getdwarf(target.cu) != alt || dwarf_tag(&target) <= 0)
			bad(c, r, "ref_sup target in the shared file", NULL, NULL);
	}
	const char *on = sup ? ct_dwarf_diename(o) : dwarf_diename(o), *rn = sup ? ct_dwarf_diename(r) : dwarf_diename(r);
	if (rn)
		c->names++;
	if (rn && alt_form(r))
		c->alt_names++;
	if (!(same(on, rn) || (missing && !on)))
		bad(c, o, "dwarf_diename", on, rn);
	int tag = dwarf_tag(o);
	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
		const char *of = ct_dwarf_function_name(pool, o), *rf = ct_dwarf_function_name(pool, r);
		c->functions++;
		if (!(same(of, rf) || (missing && !of)))
			bad(c, o, "ct_dwarf_function_name", of, rf);
	}
	if (tag == DW_TAG_imported_unit) {
		Dwarf_Attribute oa, ra;
		Dwarf_Die ot, rt;
		bool ok = dwarf_attr(r, DW_AT_import, &ra) && ct_dwarf_ref_die(&ra, &rt);
		bool ook = dwarf_attr(o, DW_AT_import, &oa) && ct_dwarf_ref_die(&oa, &ot);
		c->imports++;
		if (ok && !(ook && dwarf_dieoffset(&ot) == dwarf_dieoffset(&rt) &&
			    dwarf_cu_getdwarf(ot.cu) != NULL) && !(missing && !ook))
			bad(c, o, "DW_AT_import target", NULL, NULL);
	}
	Dwarf_Die child, next;
	if (k && dwarf_haschildren(o) && dwarf_child(o, &child) == 0) {
		int a = ct_die_skip_sibling(k, o, &next);
		Dwarf_Die lib;
		int b = dwarf_siblingof(r, &lib);
		c->skips++;
		if (a >= 0 && (a != b || (a == 0 && dwarf_dieoffset(&next) != dwarf_dieoffset(&lib)))) {
			char x[32], y[32];
			snprintf(x, sizeof(x), "%d 0x%" PRIx64, a, a == 0 ? dwarf_dieoffset(&next) : 0);
			snprintf(y, sizeof(y), "%d 0x%" PRIx64, b, b == 0 ? dwarf_dieoffset(&lib) : 0);
			bad(c, o, "die_skip sibling", x, y);
		}
	}
}

// Walks the unit trees under @p o and @p r in step.
static void walk(struct ct_strpool *pool, struct ct_die_skip *k, Dwarf_Die *o, Dwarf_Die *r, bool missing,
		 struct counts *c)
{
	Dwarf_Die os[MAX_DEPTH], rs[MAX_DEPTH];
	int depth = 0;
	os[0] = *o;
	rs[0] = *r;
	for (;;) {
		check_die(pool, k, &os[depth], &rs[depth], missing, c);
		Dwarf_Die oc, rc;
		int a = dwarf_child(&os[depth], &oc), b = dwarf_child(&rs[depth], &rc);
		if (a != b) {
			bad(c, &os[depth], "dwarf_child", NULL, NULL);
			return;
		}
		if (a == 0 && depth + 1 < MAX_DEPTH) {
			os[++depth] = oc;
			rs[depth] = rc;
			continue;
		}
		for (;;) {
			if (depth == 0)
				return;
			a = dwarf_siblingof(&os[depth], &os[depth]);
			b = dwarf_siblingof(&rs[depth], &rs[depth]);
			if (a != b) {
				bad(c, &os[depth], "dwarf_siblingof", NULL, NULL);
				return;
			}
			if (a == 0)
				break;
			depth--;
		}
	}
}

static void walk_units(struct ct_strpool *pool, Dwarf *ours, Dwarf *ref, bool missing, struct counts *c)
{
	Dwarf_CU *ocu = NULL, *rcu = NULL;
	Dwarf_Die odie, rdie;
	uint8_t ut;
	Dwarf_Half v;
	for (;;) {
		int a = dwarf_get_units(ours, ocu, &ocu, &v, &ut, &odie, NULL);
		int b = dwarf_get_units(ref, rcu, &rcu, &v, &ut, &rdie, NULL);
		if (a != b) {
			fprintf(stderr, "unit lists differ\n");
			c->errors++;
			return;
		}
		if (a != 0)
			return;
		struct ct_die_skip *k = ct_die_skip_create(&odie);
		walk(pool, k, &odie, &rdie, missing, c);
		ct_die_skip_destroy(k);
	}
}

static Dwarf *open_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	if (!dw) {
		fprintf(stderr, "%s: %s\n", path, dwarf_errmsg(-1));
		exit(2);
	}
	return dw; // the descriptor stays open for libdw until exit
}

static bool elf_has_build_id(Elf *elf, const uint8_t *id, size_t len)
{
	const void *bid = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bid) : -1;
	uint8_t sum[CT_ALTLINK_MAX_ID];
	size_t sum_len = 0;
	return (n == (ssize_t)len && memcmp(bid, id, len) == 0) ||
	       (n <= 0 && ct_altlink_sup_checksum(elf, sum, &sum_len) && sum_len == len && memcmp(sum, id, len) == 0);
}

int main(int argc, char **argv)
{
	const char *dirs[8];
	struct ct_options opts = { .debug_dirs = dirs, .debuginfod = false };
	bool missing = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--debug-dir") == 0 && i + 1 < argc && opts.num_debug_dirs < 8)
			dirs[opts.num_debug_dirs++] = argv[++i];
		else if (strcmp(argv[i], "--cache-dir") == 0 && i + 1 < argc)
			opts.cache_dir = argv[++i];
		else if (strcmp(argv[i], "--alt-missing") == 0)
			missing = true;
		else
			break;
	}
	if (argc - i != 3) {
		fprintf(stderr, "usage: diewalk [--debug-dir DIR] [--cache-dir DIR] [--alt-missing] EXE DEBUG ALT\n");
		return 2;
	}
	const char *exe = argv[i], *debug = argv[i + 1], *alt = argv[i + 2];
	elf_version(EV_CURRENT);

	struct ct_strpool pool;
	ct_strpool_init(&pool);
	struct ct_diagnostics diags = { 0 };
	struct ct_module_set s = { .opts = &opts, .out = { .strings = &pool, .diagnostics = &diags } };
	char *debuginfo_path = NULL;
	Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = ct_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, "exe", exe, -1) : NULL;
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		fprintf(stderr, "%s: %s\n", exe, dwfl_errmsg(-1));
		return 2;
	}
	// The module's state, where the callback records what it found (modules.h).
	struct ct_module_state state = { .name = (char *)"exe", .dwfl_module = mod };
	s.modules = &state;
	s.num_modules = 1;
	ct_debugfile_attach(&s, mod);
	Dwarf_Addr bias;
	Dwarf *ours = dwfl_module_getdwarf(mod, &bias);
	if (!ours) {
		fprintf(stderr, "%s: coretriage found no DWARF: %s\n", exe, dwfl_errmsg(-1));
		return 2;
	}
	// libdwfl never looks for a .debug_sup file: coretriage does, as symbolize.c does first.
	ct_debugfile_sup(&s, mod, ours);
	Dwarf *ref = open_dwarf(debug);
	struct ct_altlink link;
	if (!ct_altlink_read(dwarf_getelf(ref), &link)) {
		fprintf(stderr, "%s: no .gnu_debugaltlink or .debug_sup\n", debug);
		return 2;
	}
	Dwarf *ref_alt = open_dwarf(alt);
	if (!elf_has_build_id(dwarf_getelf(ref_alt), link.id, link.id_len)) {
		fprintf(stderr, "%s: not the shared file %s names\n", alt, debug);
		return 2;
	}
	dwarf_setalt(ref, ref_alt);

	struct counts c = { 0 };
	Dwarf *ours_alt = dwarf_getalt(ours);
	if (missing) {
		size_t found = 0;
		char hex[2 * CT_ALTLINK_MAX_ID + 1];
		ct_build_id_hex(link.id, link.id_len, hex);
		for (size_t d = 0; d < diags.count; d++) {
			const char *m = diags.items[d].message;
			found += strcmp(diags.items[d].code, "dwz-file-missing") == 0 && strstr(m, link.name) &&
				 strstr(m, hex);
		}
		if (found != 1) {
			fprintf(stderr, "%zu dwz-file-missing diagnostics naming %s and %s, want 1\n", found, link.name,
				hex);
			c.errors++;
		}
		if (ours_alt && !elf_has_build_id(dwarf_getelf(ours_alt), link.id, link.id_len)) {
			fprintf(stderr, "libdw took a shared file of another build-id\n");
			c.errors++;
		}
	} else if (!ours_alt || !elf_has_build_id(dwarf_getelf(ours_alt), link.id, link.id_len)) {
		fprintf(stderr, "coretriage's shared file is %s, not the one with the altlink's build-id\n",
			ours_alt ? "another file" : "missing");
		c.errors++;
	}
	walk_units(&pool, ours, ref, missing, &c);
	if (ours_alt && !missing)
		walk_units(&pool, ours_alt, ref_alt, false, &c);
	printf("%s: %lu DIEs, %lu names (%lu from the shared file), %lu functions, %lu skips, %lu imported units, "
	       "%lu sup references, %lu disagreements\n",
	       exe, c.dies, c.names, c.alt_names, c.functions, c.skips, c.imports, c.sup_refs, c.errors);
	if (c.dies == 0 || (!missing && c.alt_names == 0)) {
		fprintf(stderr, "nothing was compared\n");
		c.errors++;
	}
	dwarf_end(ref_alt);
	dwarf_end(ref);
	dwfl_end(dwfl);
	if (state.sup_dwarf) {
		dwarf_end(state.sup_dwarf);
		elf_end(state.sup_elf);
		close(state.sup_fd);
	}
	free(debuginfo_path);
	free(state.debug_found);
	free(diags.items);
	ct_strpool_deinit(&pool);
	return c.errors ? 1 : 0;
}
