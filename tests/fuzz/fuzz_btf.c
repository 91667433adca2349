// libFuzzer target: the dump's BTF as the kernel readers use it (issue 22): libbpf parses the raw
// bytes, then the task list's layout (every member ct_ktasks_collect() reads), struct module's
// sizes and enumerators, and member paths through anonymous members, on the node budget of --safe.
// A BTF whose anonymous members nest into their own type must end within that budget.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "kernel/vmcore.h"
#include "util/budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_options opts;
	memset(&opts, 0, sizeof(opts));
	opts.safe = true;
	struct ct_budget budget;
	ct_budget_init(&budget, &opts);
	struct ct_kbtf *btf;
	struct ct_error *err = ct_kbtf_from_bytes(data, size, &budget, &btf);
	if (err) {
		ct_error_destroy(err);
		return 0;
	}
	const char *missing;
	(void)ct_ktasks_layout(btf, &missing);
	uint64_t off, sz;
	int64_t v;
	static const char *const paths[] = { "thread_info.cpu", "thread.sp", "se.run_node", "a.b.c.d" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		(void)ct_kbtf_member(btf, "task_struct", paths[i], &off, &sz);
	(void)ct_kbtf_size(btf, "module", &sz);
	(void)ct_kbtf_enum_value(btf, "MOD_TEXT", &v);
	uint32_t num_types;
	(void)ct_kbtf_budget_stop(btf, &num_types);
	ct_kbtf_free(btf);
	return 0;
}
