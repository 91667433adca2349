// Prints the verdict and diagnostic-code tables, one entry a line ("class null-deref process",
// "rule kernel kernel-oops", "lock-kind mutex", "diag no-notes error"), for tests/check_tables.py.
#include <stdio.h>

#include "coretriage/report.h"
#include "kernel/vmcore.h"
#include "model/diag_codes.h"
#include "triage/facts.h"

int main(void)
{
	for (int i = 0; i < CT_CLASS_NUM_; i++) {
		unsigned s = ct_class_scope((enum ct_class)i);
		printf("class %s %s\n", ct_class_to_string((enum ct_class)i),
		       s == (CT_CLASS_SCOPE_PROCESS | CT_CLASS_SCOPE_KERNEL) ? "both"
		       : s == CT_CLASS_SCOPE_KERNEL			     ? "kernel"
									     : "process");
	}
	for (size_t i = 0; ct_rule_name(i); i++)
		printf("rule process %s\n", ct_rule_name(i));
	for (size_t i = 0; ct_kernel_rule_name(i); i++)
		printf("rule kernel %s\n", ct_kernel_rule_name(i));
	for (int i = 0; i < CT_ADDRESS_KIND_NUM_; i++)
		printf("address-kind %s\n", ct_address_kind_to_string((enum ct_address_kind)i));
	for (int i = 0; i < CT_CONFIDENCE_NUM_; i++)
		printf("confidence %s\n", ct_confidence_to_string((enum ct_confidence)i));
	for (int i = CT_ACCESS_READ; i < CT_ACCESS_NUM_; i++)
		printf("access %s\n", ct_access_to_string((enum ct_access)i));
	for (int i = CT_WAIT_OBJECT_NONE + 1; i < CT_WAIT_OBJECT_NUM_; i++)
		printf("wait-object %s\n", ct_wait_object_to_string((enum ct_wait_object)i));
	for (int i = 0; i < CT_LOCK_KIND_NUM_; i++)
		printf("lock-kind %s\n", ct_lock_kind_to_string((enum ct_lock_kind)i));
	for (int i = 0; i < CT_DIAG_NUM_; i++)
		printf("diag %s %s\n", ct_diag_code_to_string((enum ct_diag_code)i),
		       ct_severity_to_string(ct_diag_code_severity((enum ct_diag_code)i)));
	return 0;
}
