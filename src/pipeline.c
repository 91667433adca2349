// ct_pipeline_run(): dump → facts → modules → unwind every thread or CPU → runtime → triage →
// signature → report, the same sequence for every kind of dump; what differs is the kind's stages.
#include "pipeline.h"

struct ct_error *ct_pipeline_run(const struct ct_dump_kind *kind, const struct ct_dump_env *env)
{
	void *s = NULL;
	const struct ct_dump *dump = NULL;
	struct ct_error *err = kind->open(env, &s, &dump);
	if (!err && kind->facts)
		err = kind->facts(s);
	if (!err && kind->modules)
		err = kind->modules(s);
	bool ok = !err;
	if (ok) {
		// Every thread of a process, every CPU of a kernel dump; the dump's caps already apply.
		for (size_t i = 0; i < dump->num_threads; i++) {
			if (!kind->unwind(s, i))
				break;
		}
		if (kind->stacks_done)
			kind->stacks_done(s);
		if (kind->runtime)
			kind->runtime(s);
		if (kind->triage)
			kind->triage(s);
		if (kind->signature)
			kind->signature(s);
		if (kind->late_stacks)
			kind->late_stacks(s);
	}
	if (s) {
		kind->finish(s, ok);
		kind->close(s);
	}
	return err;
}
