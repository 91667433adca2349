/**
 * @file cleanup.h
 * Scope guards (__attribute__((cleanup))) in the systemd style.
 */
#ifndef CT_CLEANUP_H
#define CT_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>

static inline void ct_freep(void *p)
{
	free(*(void **)p);
}

static inline void ct_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(ct_freep)
#define _cleanup_close_ _cleanup_(ct_closep)

/** Takes ownership out of a guarded variable: the guard then frees nothing. */
#define TAKE_PTR(p) ({ __typeof__(p) p_ = (p); (p) = NULL; p_; })

#endif
