// System-call numbers of the blocking calls, per ABI: x86-64 (arch/x86/entry/syscalls/syscall_64.tbl),
// i386 (syscall_32.tbl) and the generic table of aarch64 and riscv64 (include/uapi/asm-generic/unistd.h).
#include "arch/syscalls.h"
#include "util/bisect.h"

static const char *const syscall_names[CT_SYS_NUM_] = {
	[CT_SYS_UNKNOWN] = "unknown",
	[CT_SYS_READ] = "read",
	[CT_SYS_WRITE] = "write",
	[CT_SYS_READV] = "readv",
	[CT_SYS_WRITEV] = "writev",
	[CT_SYS_PREAD64] = "pread64",
	[CT_SYS_PWRITE64] = "pwrite64",
	[CT_SYS_RECVFROM] = "recvfrom",
	[CT_SYS_RECVMSG] = "recvmsg",
	[CT_SYS_RECVMMSG] = "recvmmsg",
	[CT_SYS_SENDTO] = "sendto",
	[CT_SYS_SENDMSG] = "sendmsg",
	[CT_SYS_ACCEPT] = "accept",
	[CT_SYS_ACCEPT4] = "accept4",
	[CT_SYS_CONNECT] = "connect",
	[CT_SYS_POLL] = "poll",
	[CT_SYS_PPOLL] = "ppoll",
	[CT_SYS_SELECT] = "select",
	[CT_SYS_PSELECT6] = "pselect6",
	[CT_SYS_EPOLL_WAIT] = "epoll_wait",
	[CT_SYS_EPOLL_PWAIT] = "epoll_pwait",
	[CT_SYS_EPOLL_PWAIT2] = "epoll_pwait2",
	[CT_SYS_NANOSLEEP] = "nanosleep",
	[CT_SYS_CLOCK_NANOSLEEP] = "clock_nanosleep",
	[CT_SYS_FUTEX] = "futex",
	[CT_SYS_FUTEX_WAITV] = "futex_waitv",
	[CT_SYS_WAIT4] = "wait4",
	[CT_SYS_WAITID] = "waitid",
	[CT_SYS_PAUSE] = "pause",
	[CT_SYS_RT_SIGSUSPEND] = "rt_sigsuspend",
	[CT_SYS_RT_SIGTIMEDWAIT] = "rt_sigtimedwait",
	[CT_SYS_FLOCK] = "flock",
	[CT_SYS_FCNTL] = "fcntl",
	[CT_SYS_MSGRCV] = "msgrcv",
	[CT_SYS_SEMOP] = "semop",
	[CT_SYS_SEMTIMEDOP] = "semtimedop",
	[CT_SYS_IO_GETEVENTS] = "io_getevents",
	[CT_SYS_RESTART_SYSCALL] = "restart_syscall",
};

const char *ct_syscall_to_string(enum ct_syscall sys)
{
	return sys < CT_SYS_NUM_ && syscall_names[sys] ? syscall_names[sys] : "unknown";
}

#define S(n, s) { n, CT_SYS_##s, 0 }
#define S64(n, s) { n, CT_SYS_##s, CT_SYSCALL_TIME64 }

const struct ct_syscall_nr ct_syscalls_x86_64[] = {
	S(0, READ),	     S(1, WRITE),	     S(7, POLL),	     S(17, PREAD64),	     S(18, PWRITE64),
	S(19, READV),	     S(20, WRITEV),	     S(23, SELECT),	     S(34, PAUSE),	     S(35, NANOSLEEP),
	S(42, CONNECT),	     S(43, ACCEPT),	     S(44, SENDTO),	     S(45, RECVFROM),	     S(46, SENDMSG),
	S(47, RECVMSG),	     S(61, WAIT4),	     S(65, SEMOP),	     S(70, MSGRCV),	     S(72, FCNTL),
	S(73, FLOCK),	     S(128, RT_SIGTIMEDWAIT), S(130, RT_SIGSUSPEND), S(202, FUTEX),	     S(208, IO_GETEVENTS),
	S(219, RESTART_SYSCALL), S(220, SEMTIMEDOP), S(230, CLOCK_NANOSLEEP), S(232, EPOLL_WAIT),   S(247, WAITID),	     S(270, PSELECT6),
	S(271, PPOLL),	     S(281, EPOLL_PWAIT),     S(288, ACCEPT4),	     S(299, RECVMMSG),	     S(441, EPOLL_PWAIT2),
	S(449, FUTEX_WAITV),
};
const size_t ct_num_syscalls_x86_64 = sizeof(ct_syscalls_x86_64) / sizeof(ct_syscalls_x86_64[0]);

const struct ct_syscall_nr ct_syscalls_i386[] = {
	S(0, RESTART_SYSCALL), S(3, READ),	    S(4, WRITE),	   S(7, WAIT4) /* waitpid */, S(29, PAUSE),	   S(55, FCNTL),
	S(114, WAIT4),	    S(142, SELECT),	   S(143, FLOCK),	      S(145, READV),	   S(146, WRITEV),
	S(162, NANOSLEEP),  S(168, POLL),	   S(177, RT_SIGTIMEDWAIT),   S(179, RT_SIGSUSPEND), S(180, PREAD64),
	S(181, PWRITE64),   S(240, FUTEX),	   S(256, EPOLL_WAIT),	      S(267, CLOCK_NANOSLEEP), S(284, WAITID),
	S(308, PSELECT6),   S(309, PPOLL),	   S(319, EPOLL_PWAIT),	      S(362, CONNECT),	   S(364, ACCEPT4),
	S(369, SENDTO),	    S(370, SENDMSG),	   S(371, RECVFROM),	      S(372, RECVMSG),	   S64(407, CLOCK_NANOSLEEP),
	S64(413, PSELECT6), S64(414, PPOLL),	   S64(421, RT_SIGTIMEDWAIT), S64(422, FUTEX),	   S(441, EPOLL_PWAIT2),
	S(449, FUTEX_WAITV),
};
const size_t ct_num_syscalls_i386 = sizeof(ct_syscalls_i386) / sizeof(ct_syscalls_i386[0]);

const struct ct_syscall_nr ct_syscalls_generic[] = {
	S(4, IO_GETEVENTS), S(22, EPOLL_PWAIT),	  S(25, FCNTL),		 S(32, FLOCK),		S(63, READ),
	S(64, WRITE),	    S(65, READV),	  S(66, WRITEV),	 S(67, PREAD64),	S(68, PWRITE64),
	S(72, PSELECT6),    S(73, PPOLL),	  S(95, WAITID),	 S(98, FUTEX),		S(101, NANOSLEEP),
	S(115, CLOCK_NANOSLEEP), S(128, RESTART_SYSCALL), S(133, RT_SIGSUSPEND), S(137, RT_SIGTIMEDWAIT), S(188, MSGRCV), S(192, SEMTIMEDOP),
	S(193, SEMOP),	    S(202, ACCEPT),	  S(203, CONNECT),	 S(206, SENDTO),	S(207, RECVFROM),
	S(211, SENDMSG),    S(212, RECVMSG),	  S(242, ACCEPT4),	 S(243, RECVMMSG),	S(260, WAIT4),
	S(441, EPOLL_PWAIT2), S(449, FUTEX_WAITV),
};
const size_t ct_num_syscalls_generic = sizeof(ct_syscalls_generic) / sizeof(ct_syscalls_generic[0]);

struct nr_key {
	const struct ct_syscall_nr *table;
	uint64_t nr;
};

static bool nr_below(const void *ctx, size_t i)
{
	const struct nr_key *k = ctx;
	return k->table[i].nr < k->nr;
}

enum ct_syscall ct_syscall_lookup(const struct ct_syscall_nr *table, size_t n, uint64_t nr, unsigned *flags_ret)
{
	size_t lo = ct_bisect(n, nr_below, &(struct nr_key){ table, nr });
	if (lo < n && table[lo].nr == nr) {
		if (flags_ret)
			*flags_ret = table[lo].flags;
		return (enum ct_syscall)table[lo].sys;
	}
	if (flags_ret)
		*flags_ret = 0;
	return CT_SYS_UNKNOWN;
}

bool ct_syscall_ret_interrupted(int64_t ret)
{
	return ret == -4 || ret == -512 || ret == -513 || ret == -514 || ret == -516;
}

bool ct_futex_op_waits(uint64_t op)
{
	uint64_t cmd = op & CT_FUTEX_CMD_MASK;
	return cmd == CT_FUTEX_WAIT || cmd == CT_FUTEX_WAIT_BITSET || cmd == CT_FUTEX_LOCK_PI || cmd == CT_FUTEX_LOCK_PI2 ||
	       cmd == CT_FUTEX_WAIT_REQUEUE_PI;
}
