/**
 * @file syscalls.h
 * The system calls a thread can be blocked in, independent of the architecture, and each ABI's
 * numbers for them (src/arch/syscalls.c). Wait-state analysis (src/triage/waitstate.c) reads the
 * interrupted call's number and arguments from the registers the arch table names.
 */
#ifndef CT_ARCH_SYSCALLS_H
#define CT_ARCH_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Blocking system calls we describe (the rest are reported by number). */
enum ct_syscall {
	CT_SYS_UNKNOWN,
	CT_SYS_READ,
	CT_SYS_WRITE,
	CT_SYS_READV,
	CT_SYS_WRITEV,
	CT_SYS_PREAD64,
	CT_SYS_PWRITE64,
	CT_SYS_RECVFROM,
	CT_SYS_RECVMSG,
	CT_SYS_RECVMMSG,
	CT_SYS_SENDTO,
	CT_SYS_SENDMSG,
	CT_SYS_ACCEPT,
	CT_SYS_ACCEPT4,
	CT_SYS_CONNECT,
	CT_SYS_POLL,
	CT_SYS_PPOLL,
	CT_SYS_SELECT,
	CT_SYS_PSELECT6,
	CT_SYS_EPOLL_WAIT,
	CT_SYS_EPOLL_PWAIT,
	CT_SYS_EPOLL_PWAIT2,
	CT_SYS_NANOSLEEP,
	CT_SYS_CLOCK_NANOSLEEP,
	CT_SYS_FUTEX,
	CT_SYS_FUTEX_WAITV,
	CT_SYS_WAIT4,
	CT_SYS_WAITID,
	CT_SYS_PAUSE,
	CT_SYS_RT_SIGSUSPEND,
	CT_SYS_RT_SIGTIMEDWAIT,
	CT_SYS_FLOCK,
	CT_SYS_FCNTL,
	CT_SYS_MSGRCV,
	CT_SYS_SEMOP,
	CT_SYS_SEMTIMEDOP,
	CT_SYS_IO_GETEVENTS,
	/** A call interrupted by a stop (ptrace, SIGSTOP) and resumed: a sleep goes on in it. */
	CT_SYS_RESTART_SYSCALL,
	CT_SYS_NUM_
};
const char *ct_syscall_to_string(enum ct_syscall sys);

/** The call's time argument uses 64-bit time_t on a 32-bit ABI (the *_time64 calls). */
#define CT_SYSCALL_TIME64 1u

/** One entry of an ABI's table: number → call. */
struct ct_syscall_nr {
	uint16_t nr;
	uint8_t sys; /**< enum ct_syscall */
	uint8_t flags; /**< CT_SYSCALL_TIME64 */
};

/** Per-ABI tables, sorted by number. */
extern const struct ct_syscall_nr ct_syscalls_x86_64[], ct_syscalls_i386[], ct_syscalls_generic[];
extern const size_t ct_num_syscalls_x86_64, ct_num_syscalls_i386, ct_num_syscalls_generic;

/** Looks @p nr up in @p table (sorted); CT_SYS_UNKNOWN and flags 0 when absent. */
enum ct_syscall ct_syscall_lookup(const struct ct_syscall_nr *table, size_t n, uint64_t nr, unsigned *flags_ret);

/**
 * A system call's return register at a stop inside it: -EINTR or one of the kernel's restart codes
 * (include/linux/errno.h: ERESTARTSYS 512, ERESTARTNOINTR 513, ERESTARTNOHAND 514,
 * ERESTART_RESTARTBLOCK 516), i.e. the call was interrupted, not finished.
 */
bool ct_syscall_ret_interrupted(int64_t ret);

/* futex(2) commands (include/uapi/linux/futex.h). */
#define CT_FUTEX_CMD_MASK 0x7f
#define CT_FUTEX_WAIT 0
#define CT_FUTEX_LOCK_PI 6
#define CT_FUTEX_WAIT_BITSET 9
#define CT_FUTEX_WAIT_REQUEUE_PI 11
#define CT_FUTEX_LOCK_PI2 13

/** The futex command @p op (its second argument) sleeps: the wait and lock-PI commands. */
bool ct_futex_op_waits(uint64_t op);

#endif
