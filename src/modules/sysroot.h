/**
 * @file sysroot.h
 * Opening a path recorded in the dump under --sysroot, confined to it: `..` cannot climb out and
 * symlinks resolve inside it (an absolute link target means the sysroot's own root), as a chroot
 * would, without one: openat2(2) with RESOLVE_IN_ROOT (Linux 5.6). Where openat2 is missing the
 * path is made lexical first (`.` and `..` resolved by name, clamped at the root) and the final
 * component is opened without following a symlink.
 */
#ifndef CT_MODULES_SYSROOT_H
#define CT_MODULES_SYSROOT_H

/** @p path with `.` and `..` resolved by name, never above the root, without a leading '/'
 * ("." for the root itself). malloc'd; NULL when out of memory. */
char *ct_sysroot_lexical(const char *path);

/** Opens @p path (absolute or relative, as the dump has it) inside @p sysroot, read-only and
 * O_CLOEXEC. Returns the descriptor, or -1 with errno set. */
int ct_sysroot_open(const char *sysroot, const char *path);

#endif
