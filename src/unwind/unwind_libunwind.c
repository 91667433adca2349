// Second, independent unwinder over libunwind (issue #2): not built yet.
#include "unwind/unwind.h"

struct ct_error *ct_unwind_thread_libunwind(struct ct_session *s, const struct ct_core_thread *t,
					    struct ct_raw_stack *out)
{
	return ct_error_create(CT_ERROR_UNSUPPORTED, "the libunwind unwinder is not available in this build");
}
