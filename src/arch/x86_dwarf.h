/**
 * @file x86_dwarf.h
 * DWARF register numbers of x86 that code outside the register tables names (the x86 decoders of
 * triage/ read a division's dividend and the fs/gs segment bases): x86-64 psABI §3.6.2 and the
 * i386 psABI. The register tables of x86_64.c and i386.c use the same names for these registers.
 */
#ifndef CT_ARCH_X86_DWARF_H
#define CT_ARCH_X86_DWARF_H

#define CT_X86_64_DWARF_RAX 0
#define CT_X86_64_DWARF_RDX 1
#define CT_X86_64_DWARF_FS_BASE 58
#define CT_X86_64_DWARF_GS_BASE 59
#define CT_I386_DWARF_EAX 0
#define CT_I386_DWARF_EDX 2

#endif
