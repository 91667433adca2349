/**
 * @file profile.h
 * The model of `coretriage sample` (docs/live.md): whole-process stack samples of a live process,
 * each thread's stack rooted at its state (on a CPU, or the system call it is blocked in), merged
 * into weighted stacks and states. Filled by src/process/sample.c, rendered by src/writers/profile.c
 * (text summary), folded.c and flamegraph.c.
 */
#ifndef CORETRIAGE_PROFILE_H
#define CORETRIAGE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One distinct stack: the state first, then the outermost frame … the innermost. */
struct ct_profile_stack {
	char **frames; /**< owned, each owned */
	size_t num_frames;
	uint64_t count;
};

/** A futex wait's object and holder, as its root frame names them ("futex(mutex 0x… owned by thread N)"). */
struct ct_profile_futex {
	/** "mutex", "rwlock", "condition", "semaphore", …, NULL for a raw futex (static strings). */
	const char *object;
	/** The object's address (the futex word for a raw futex). */
	uint64_t address;
	/** Its holder as glibc recorded it (a mutex's __owner, a rwlock's __cur_writer). */
	bool has_owner;
	int owner;
	/** The holder was a thread of the process when sampled. */
	bool owner_in_process;
	/** The holder's name (/proc/PID/task/TID/comm after the sampling), "" when gone. */
	char owner_name[17];
};

/** A thread state (the stacks' root frame) and how many thread samples were in it. */
struct ct_profile_state {
	char *state; /**< owned: "on-CPU", "read(fd 3 → pipe:[1234])", "futex(mutex 0x… owned by thread N)", … */
	bool on_cpu;
	/** A futex wait whose object the sample named: what the text summary says of it. */
	bool is_futex;
	struct ct_profile_futex futex;
	uint64_t count;
};

struct ct_profile {
	int pid;
	char command[17];
	unsigned rate_hz;
	/** Wall time sampled, seconds. */
	double duration_s;
	/** Ticks taken (each stops every thread once) and thread samples (ticks × threads). */
	size_t ticks;
	uint64_t samples;
	/** The stop per tick: mean and maximum, milliseconds. */
	double stop_ms_mean, stop_ms_max;
	/** Most samples first. */
	struct ct_profile_stack *stacks; /**< owned */
	size_t num_stacks;
	struct ct_profile_state *states; /**< owned */
	size_t num_states;
	/** Why sampling ended early or lost samples (the process exited, the budget), NULL when it did not. Owned. */
	char *note;
};

/** Frees what @p p owns. */
void ct_profile_free(struct ct_profile *p);

#endif
