// Two line-table rows at the faulting store: line 14 a statement, then line 13 (view 1) that is not
// one, the shape gcc -O2 gives an epilogue after an inlined call (match() in Debian's lua5.4). libdw
// returns the last row (13); gdb, and the report, the statement (14). Each .loc names a line here.
	.file 1 "testdata/src/line_rows.S"
	.text
	.globl store_zero
	.type store_zero, @function
store_zero:
	.cfi_startproc
	.loc 1 11 0
	nop
	.loc 1 14 0 view 0
	.loc 1 13 0 is_stmt 0 view .LVU1
	movl $7, (%rdi)
	.loc 1 16 0 is_stmt 1
	ret
	.cfi_endproc
	.size store_zero, .-store_zero
	.section .note.GNU-stack,"",@progbits
