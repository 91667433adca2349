// A program outside the tree that uses the installed library: analyzes a core, prints its class
// and thread count (built against coretriage.pc and against the CMake package by check_install.py).
#include <coretriage/coretriage.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: consumer CORE [EXECUTABLE]\n");
		return 64;
	}
	struct ct_options opts;
	ct_options_init(&opts);
	opts.core_path = argv[1];
	opts.executable = argc == 3 ? argv[2] : NULL;
	struct ct_report report;
	if (!ct_report_init(&report))
		return 70;
	struct ct_error *err = ct_analyze(&opts, &report);
	int rc = 0;
	if (err) {
		fprintf(stderr, "consumer: %s\n", ct_error_message(err));
		ct_error_destroy(err);
		rc = 1;
	} else {
		printf("class %s, %zu threads\n", ct_class_to_string(report.crash.cls), report.num_threads);
	}
	ct_report_deinit(&report);
	return rc;
}
