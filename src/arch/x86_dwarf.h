/**
 * @file x86_dwarf.h
 * DWARF register numbers of x86 that code outside the register tables names (the x86 decoders of
 * triage/ read a division's dividend and the fs/gs segment bases, kernel/tasks.c the callee-saved
 * registers of a sleeping task's inactive_task_frame, unwind/step_orc.c the registers ORC names): x86-64 psABI §3.6.2 and the
 * i386 psABI. The register tables of x86_64.c and i386.c use the same names for these registers.
 */
#ifndef CT_ARCH_X86_DWARF_H
#define CT_ARCH_X86_DWARF_H

#define CT_X86_64_DWARF_RAX 0
#define CT_X86_64_DWARF_RDX 1
#define CT_X86_64_DWARF_RBX 3
#define CT_X86_64_DWARF_RDI 5
#define CT_X86_64_DWARF_RBP 6
#define CT_X86_64_DWARF_RSP 7
#define CT_X86_64_DWARF_R10 10
#define CT_X86_64_DWARF_R12 12
#define CT_X86_64_DWARF_R13 13
#define CT_X86_64_DWARF_R14 14
#define CT_X86_64_DWARF_R15 15
#define CT_X86_64_DWARF_RIP 16
#define CT_X86_64_DWARF_CS 51
#define CT_X86_64_DWARF_FS_BASE 58
#define CT_X86_64_DWARF_GS_BASE 59
#define CT_I386_DWARF_EAX 0
#define CT_I386_DWARF_EDX 2

#endif
