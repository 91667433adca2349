// Why a thread's unwinding ended: the words of each stop reason and of its detail, the one
// rendering every writer uses (the JSON "stop_reason" and the text writers' "stopped:" lines are
// contracts: docs/unwinding.md lists them).
#include <inttypes.h>
#include <stdio.h>

#include "coretriage/report.h"

static const char *const stop_reason_text[CT_STOP_REASON_NUM_] = {
	[CT_STOP_NONE] = NULL,
	[CT_STOP_OUTERMOST] = "outermost frame reached",
	[CT_STOP_ENTRY_POINT] = "outermost frame reached (program entry point)",
	[CT_STOP_FRAME_CAP] = "frame cap reached",
	[CT_STOP_FRAME_BUDGET] = "work budget of frames reached",
	[CT_STOP_SP_NOT_OUTWARD] = "stack pointer did not move outward (corrupt stack or unwinding loop)",
	[CT_STOP_NO_MEMORY] = "out of memory",
	[CT_STOP_NO_REGISTERS] = "no registers in the core for this thread",
	[CT_STOP_NO_FRAME] = "no frame",
	[CT_STOP_LIBRARY] = "unwinding library error",
	[CT_STOP_BAD_PC] = "pc outside executable memory, no caller found",
	[CT_STOP_NO_CALLER] = "no unwind information and no caller found on the stack",
	[CT_STOP_RECOVERY_NOT_OUTWARD] = "recovery did not move the stack pointer outward",
	[CT_STOP_TOO_MANY_RECOVERIES] = "too many recovery steps",
	[CT_STOP_LU_NO_INFO] = "libunwind: no unwind information and no caller found",
	[CT_STOP_LU_BAD_FRAME] = "libunwind: bad frame",
	[CT_STOP_LU_INVALID_IP] = "libunwind: invalid instruction pointer",
	[CT_STOP_LU_BAD_REG] = "libunwind: register unavailable",
	[CT_STOP_LU_UNREADABLE] = "libunwind: memory not readable",
	[CT_STOP_LU_BAD_VERSION] = "libunwind: unwind information of an unsupported version",
	[CT_STOP_LU_FAILED] = "libunwind: unwinding failed",
	[CT_STOP_LU_STEP_BUDGET] = "libunwind: a step exceeded its budget of memory reads (looping unwind information)",
	[CT_STOP_ORC_END] = "end of stack (ORC end marker)",
	[CT_STOP_ORC_UNDEFINED_SP] = "ORC entry with an undefined stack pointer",
	[CT_STOP_ORC_BP_LOST] = "ORC: frame needs bp, lost in a scanned frame",
	[CT_STOP_ORC_SP_REG_UNSAVED] = "ORC: the stack pointer is in a register not saved here",
	[CT_STOP_ORC_BAD_SP_REG] = "ORC: unknown stack pointer register",
	[CT_STOP_ORC_NO_INDIRECT_SP] = "ORC: indirect stack pointer not in the dump",
	[CT_STOP_ORC_NO_RETURN_ADDRESS] = "ORC: return address not in the dump",
	[CT_STOP_ORC_NO_PT_REGS] = "ORC: pt_regs not in the dump",
	[CT_STOP_ORC_NO_IRET_FRAME] = "ORC: iret frame not in the dump",
	[CT_STOP_ORC_BAD_TYPE] = "ORC: unknown entry type",
	[CT_STOP_ORC_NO_SAVED_BP] = "ORC: saved bp not in the dump",
	[CT_STOP_ORC_NOT_OUTWARD] = "ORC: the stack pointer did not move outward",
	[CT_STOP_ORC_TOO_MANY_SWITCHES] = "ORC: too many stack switches",
	[CT_STOP_USER_ENTRY] = "reached the user-mode registers of the kernel entry",
	[CT_STOP_SCAN_NO_RETURN] = "no return address found above a frame without ORC data",
	[CT_STOP_RETURN_ADDRESS_ZERO] = "end of stack (return address 0)",
	[CT_STOP_SP_LEFT_KERNEL] = "stack pointer left kernel memory",
	[CT_STOP_FINAL_FRAME_RECORD] = "end of stack (final frame record)",
	[CT_STOP_FP_NOT_KERNEL_STACK] = "frame pointer is not a kernel stack address",
	[CT_STOP_FP_NO_RECORD] = "frame record not in the dump",
	[CT_STOP_FP_NOT_OUTWARD] = "frame pointer did not move outward",
	[CT_STOP_FP_TOO_MANY_SWITCHES] = "too many stack switches",
	[CT_STOP_SP_NOT_KERNEL] = "stack pointer is not a kernel address",
	[CT_STOP_KERNEL_ARCH] = "kernel stacks of this architecture are not unwound",
	[CT_STOP_STACK_NOT_IN_DUMP] = "stack is not in the dump",
	[CT_STOP_SCAN_END] = "end of stack scan",
	[CT_STOP_NO_CPU_REGISTERS] = "no registers saved for this CPU",
	[CT_STOP_TASK_NO_CONTEXT] = "its saved context (thread.sp) is not in the dump",
	[CT_STOP_TASK_FRAME_BUDGET] = "not unwound: the frames of task stacks reached their cap",
	[CT_STOP_TASK_ON_CPU] = "running on a CPU: its stack is that CPU's",
};

const char *ct_stop_reason_to_string(enum ct_stop_reason reason)
{
	return (unsigned)reason < CT_STOP_REASON_NUM_ ? stop_reason_text[reason] : NULL;
}

struct ct_stop ct_stop_make(enum ct_stop_reason reason, enum ct_stop_detail detail, uint64_t value)
{
	return (struct ct_stop){ .reason = reason, .detail = detail, .value = value };
}

// The reason's words with its detail, when the detail changes the words rather than follows them.
static int render_reason(const struct ct_stop *st, const char *words, char *buf, size_t size)
{
	uint64_t v = st->value;
	switch (st->detail) {
	case CT_STOP_DETAIL_CAP:
		if (st->reason == CT_STOP_TASK_FRAME_BUDGET)
			return snprintf(buf, size, "not unwound: %" PRIu64 " frames of task stacks reached", v);
		return snprintf(buf, size, "frame cap %" PRIu64 " reached", v);
	case CT_STOP_DETAIL_ADDRESS:
		if (st->reason == CT_STOP_TASK_NO_CONTEXT)
			return snprintf(buf, size, "saved context at thread.sp 0x%016" PRIx64 " is not in the dump", v);
		return snprintf(buf, size, "stack at 0x%016" PRIx64 " is not in the dump", v);
	case CT_STOP_DETAIL_CPU:
		return snprintf(buf, size, "running on CPU %d: its stack is that CPU's", (int)(int64_t)v);
	case CT_STOP_DETAIL_BYTES:
		return snprintf(buf, size, "%s (%" PRIu64 " bytes from sp)", words, v);
	case CT_STOP_DETAIL_AT_PC:
		return snprintf(buf, size, "%s at 0x%016" PRIx64, words, v);
	case CT_STOP_DETAIL_AT_FP:
		return snprintf(buf, size, "%s at fp 0x%016" PRIx64, words, v);
	case CT_STOP_DETAIL_TEXT:
		if (!st->text)
			break;
		if (st->reason == CT_STOP_KERNEL_ARCH)
			return snprintf(buf, size, "kernel stacks of %s are not unwound", st->text);
		return snprintf(buf, size, "%s", st->text); // the library's own message says it
	case CT_STOP_DETAIL_NONE:
		break;
	}
	return snprintf(buf, size, "%s", words);
}

const char *ct_stop_render(const struct ct_stop *stop, char *buf, size_t size)
{
	const char *words = ct_stop_reason_to_string(stop->reason);
	if (!words || !size)
		return NULL;
	int n = render_reason(stop, words, buf, size);
	const char *then = ct_stop_reason_to_string(stop->then);
	if (then && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; then %s (%" PRIu64 " bytes from sp)", then, stop->then_bytes);
	return buf;
}
