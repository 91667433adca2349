// The scan step: every word of a stack range, handed to the caller's validator (a process core's
// "return address after a call into a module's code", a kernel's "after a call into kernel text").
// Reads go in chunks that never cross a page, so a range whose top is not in the dump still gives
// its lower words; a chunk that does not read whole is retried word by word up to the missing one.
#include "unwind/step.h"
#include "util/bytes.h"

/** Bytes read at once: 64 words, within one page. */
#define SCAN_CHUNK 512
#define PAGE 4096u

enum ct_scan_result ct_step_scan(const struct ct_unwind_mem *m, uint64_t start, uint64_t end, ct_unwind_scan_fn fn,
				 void *arg)
{
	unsigned w = m->arch->pointer_size;
	uint8_t buf[SCAN_CHUNK];
	for (uint64_t a = start; a < end && end - a >= w;) {
		uint64_t n = SCAN_CHUNK, page_end = (a | (PAGE - 1)) + 1;
		if (n > page_end - a)
			n = page_end - a;
		if (n > end - a)
			n = end - a;
		if (!m->read(m->arg, a, buf, n)) {
			// Part of the chunk may be there (a segment ending inside it): the words before the gap.
			for (; a + w <= end; a += w) {
				uint64_t v;
				if (!ct_unwind_mem_word(m, a, &v))
					return CT_SCAN_UNREADABLE;
				if (fn(arg, a, v))
					return CT_SCAN_STOPPED;
			}
			return CT_SCAN_END;
		}
		struct ct_bytes b = { .data = buf, .size = n, .big_endian = m->arch->big_endian };
		uint64_t off = 0;
		for (; off + w <= n; off += w) {
			if (fn(arg, a + off, ct_bytes_uint_or0(&b, off, w)))
				return CT_SCAN_STOPPED;
		}
		// A chunk cut by the range's end (a multiple of w in all callers) or a page end.
		if (off == 0)
			break;
		a += off;
	}
	return CT_SCAN_END;
}
