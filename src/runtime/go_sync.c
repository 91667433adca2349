// Which call of Go's sync package a parked goroutine waits in, and the lock it waits for
// (docs/hangs.md "Go"). Go 1.19 parks every sync wait but sync.Cond's with the one wait reason
// "semacquire" (Go 1.20 names Mutex and RWMutex waits, 1.22 WaitGroup's): the innermost sync
// function on the goroutine's stack tells them apart, as the newer runtimes' reasons do. The lock's
// address is the semaphore's (runtime.semacquire1's first argument, read by the unwinder) minus
// the semaphore field's offset in its struct.
#include <string.h>

#include "runtime/go.h"

// sync/mutex.go and sync/rwmutex.go, unchanged from Go 1.9 to 1.22: Mutex{state int32; sema
// uint32}, RWMutex{w Mutex; writerSem uint32; readerSem uint32; …}. A writer waits on w first
// (Mutex.lockSlow under RWMutex.Lock), then on writerSem for the readers to leave.
static const struct {
	const char *function; /**< the innermost sync function of the stack */
	const char *call; /**< what it is waiting in, in the words of Go 1.20+'s wait reasons */
	const char *object; /**< the lock, NULL when the call waits for no lock */
	uint64_t sema_offset; /**< where the semaphore it sleeps on lies in that lock */
} calls[] = {
	{ "sync.(*Mutex).lockSlow", "sync.Mutex.Lock", "sync.Mutex", 4 },
	{ "sync.(*Mutex).Lock", "sync.Mutex.Lock", "sync.Mutex", 4 },
	{ "sync.(*RWMutex).RLock", "sync.RWMutex.RLock", "sync.RWMutex", 12 },
	{ "sync.(*RWMutex).Lock", "sync.RWMutex.Lock", "sync.RWMutex", 8 },
	{ "sync.(*WaitGroup).Wait", "sync.WaitGroup.Wait", NULL, 0 },
	{ "sync.(*Cond).Wait", "sync.Cond.Wait", NULL, 0 },
};

// Whether the sync frames just above frame @p k are RWMutex.Lock's (its rw.w.Lock()).
static bool rw_lock_above(const struct ct_goroutine *g, size_t k)
{
	for (size_t j = k + 1; j < g->num_frames; j++) {
		const char *fn = g->frames[j].function;
		if (!fn || strncmp(fn, "sync.", 5) != 0)
			return false;
		if (strcmp(fn, "sync.(*RWMutex).Lock") == 0)
			return true;
	}
	return false;
}

void ct_go_sync_wait(struct ct_goroutine *g)
{
	for (size_t k = 0; k < g->num_frames; k++) {
		const char *fn = g->frames[k].function;
		// sync.runtime_SemacquireMutex and its like are the runtime's, linked into sync.
		if (!fn || strncmp(fn, "sync.", 5) != 0 || strncmp(fn, "sync.runtime_", 13) == 0)
			continue;
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
			if (strcmp(fn, calls[i].function) != 0)
				continue;
			// RWMutex.Lock waits for its writers' Mutex w (at offset 0) first: the lock the
			// program took is the RWMutex (Go 1.20+'s wait reason says sync.Mutex.Lock there).
			if (calls[i].sema_offset == 4 && rw_lock_above(g, k)) {
				g->sync = "sync.RWMutex.Lock";
				g->sync_object = "sync.RWMutex";
				if (g->has_sema && g->sema >= 4) {
					g->has_object = true;
					g->object = g->sema - 4;
				}
				return;
			}
			g->sync = calls[i].call;
			g->sync_object = calls[i].object;
			if (calls[i].object && g->has_sema && g->sema >= calls[i].sema_offset) {
				g->has_object = true;
				g->object = g->sema - calls[i].sema_offset;
			}
			return;
		}
		return; // another sync function (sync.(*Pool).Get …): not a wait of its own
	}
}
