// Frame #0 inside a PLT stub (issue 21): gdb names such a frame `puts@plt`, from the relocation of
// the GOT slot the stub jumps through. The program makes its PLT GOT (_GLOBAL_OFFSET_TABLE_, the
// start of .got.plt on x86) unreadable, then calls puts through the PLT: the stub's `jmp [slot]`
// faults reading the slot, so the crash pc is the stub itself, and the caller is report_status.
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

extern char _GLOBAL_OFFSET_TABLE_[];

__attribute__((noinline)) static void report_status(const char *what)
{
	// The PLT slots follow three reserved words and can lie on the page after the GOT's start
	// (.got.plt at 0x3fe8, puts's slot at 0x4000): both pages. They hold .data too: nothing but
	// the stub reads them after this.
	uintptr_t size = (uintptr_t)sysconf(_SC_PAGESIZE), got = (uintptr_t)_GLOBAL_OFFSET_TABLE_;
	uintptr_t first = got & ~(size - 1), end = (got + 64 * sizeof(void *) + size - 1) & ~(size - 1);
	if (mprotect((void *)first, end - first, PROT_NONE) != 0)
		return;
	puts(what);
}

int main(void)
{
	report_status("status: ok");
	return 0;
}
