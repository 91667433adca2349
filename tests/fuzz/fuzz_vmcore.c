// libFuzzer target: the kernel-dump front door: the vmcore probe (ELF notes, kdump headers), the
// VMCOREINFO parser and the kernel-log panic parser, each on the raw input.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "arch/arch.h"
#include "dump/format.h"
#include "kernel/vmcore.h"
#include "triage/triage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ct_dump_probe(data, size, ~0u);

	struct ct_vmcoreinfo vi;
	struct ct_error *err = ct_vmcoreinfo_parse((const char *)data, size, &vi);
	if (!err) {
		uint64_t v;
		int64_t n;
		ct_vmcoreinfo_get(&vi, "OSRELEASE");
		ct_vmcoreinfo_symbol(&vi, "prb", &v);
		ct_vmcoreinfo_offset(&vi, "printk_info.text_len", &v);
		ct_vmcoreinfo_size(&vi, "printk_info", &v);
		ct_vmcoreinfo_number(&vi, "phys_base", &n);
		ct_vmcoreinfo_deinit(&vi);
	}
	ct_error_destroy(err);

	char *log = malloc(size + 1);
	struct ct_report report;
	if (log && ct_report_init(&report)) {
		memcpy(log, data, size);
		log[size] = '\0';
		struct ct_panic_record rec;
		memset(&rec, 0, sizeof(rec));
		ct_panic_parse(&report.strings, log, &rec);
		struct ct_verdict verdict;
		ct_verdict_init(&verdict, &report.strings);
		ct_kernel_classify(&verdict, &ct_arch_x86_64, &rec);
		ct_verdict_move_to_report(&verdict, &report);
		ct_panic_record_deinit(&rec);
		ct_report_deinit(&report);
	}
	free(log);
	return 0;
}
