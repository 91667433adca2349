"""Synthetic x86-64 kernel dumps written from nothing, for the hostile-input tests of the kernel readers.

An ELF kdump (/proc/vmcore's form: ET_CORE, one PT_NOTE with a zeroed NT_PRSTATUS and VMCOREINFO, one
PT_LOAD per run of pages) whose memory holds what coretriage reads to list tasks without a vmlinux:
the kallsyms tables VMCOREINFO names (one token per character), a .BTF section between __start_BTF and
__stop_BTF, and task_structs on init_task's task list. A page can be left out of every PT_LOAD: a read
of it fails as a page that `makedumpfile -d` excluded does.

    k = Kernel()
    b = k.btf                       # BTF types: b.int_(), b.struct(), ...
    k.symbol("init_task", addr)     # kallsyms
    k.write(addr, data)             # memory
    k.exclude(addr)                 # that page is not in the dump
    k.save(path)
"""
import struct

PAGE = 4096
# Linux x86-64: the kernel image (no KASLR), mapped at __START_KERNEL_map + phys_base.
KTEXT = 0xFFFFFFFF81000000
KTEXT_PHYS = 0x1000000

BTF_KIND_INT, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT = 1, 2, 3, 4


class Btf:
    """A .BTF blob: types by id (1...), names in one string section."""

    def __init__(self):
        self.types = []
        self.strings = bytearray(b"\0")
        self.names = {}

    def name(self, s):
        if not s:
            return 0
        if s not in self.names:
            self.names[s] = len(self.strings)
            self.strings += s.encode() + b"\0"
        return self.names[s]

    def _add(self, data):
        self.types.append(data)
        return len(self.types)

    def int_(self, name, size):
        return self._add(struct.pack("<III", self.name(name), BTF_KIND_INT << 24, size)
                         + struct.pack("<I", size * 8))

    def ptr(self, target):
        return self._add(struct.pack("<III", 0, BTF_KIND_PTR << 24, target))

    def array(self, elem, index, n):
        return self._add(struct.pack("<III", 0, BTF_KIND_ARRAY << 24, 0) + struct.pack("<III", elem, index, n))

    def struct(self, name, size, members=()):
        """members: (name or "", type id, byte offset); returns the id (members can be set later)."""
        tid = self._add(b"")
        self.set_members(tid, name, size, members)
        return tid

    def set_members(self, tid, name, size, members):
        body = b"".join(struct.pack("<III", self.name(n), t, off * 8) for n, t, off in members)
        self.types[tid - 1] = struct.pack("<III", self.name(name), (BTF_KIND_STRUCT << 24) | len(members), size) + body

    def set_raw_members(self, tid, name, size, count, member_bytes):
        """A struct of @count members given as raw btf_member bytes (for huge structs)."""
        self.types[tid - 1] = struct.pack("<III", self.name(name), (BTF_KIND_STRUCT << 24) | count, size) + member_bytes

    def member_bytes(self, name, tid, off):
        return struct.pack("<III", self.name(name), tid, off * 8)

    def blob(self):
        types = b"".join(self.types)
        return struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(self.strings)) + types + bytes(self.strings)


class Kernel:
    def __init__(self):
        self.mem = {}  # page address -> bytearray(PAGE)
        self.excluded = set()
        self.syms = {}
        self.vmcoreinfo = {}
        self.btf = Btf()
        # task_structs and the like: also in the kernel image's mapping, which libkdumpfile translates
        # without page tables (the direct map needs them).
        self.heap = KTEXT + 0x8000000
        self.data = KTEXT + 0x2000000  # the kernel image's data (init_task): kallsyms can name it

    def write(self, addr, data):
        pos = 0
        while pos < len(data):
            page = addr & ~(PAGE - 1)
            off = addr - page
            n = min(len(data) - pos, PAGE - off)
            buf = self.mem.setdefault(page, bytearray(PAGE))
            buf[off:off + n] = data[pos:pos + n]
            addr += n
            pos += n

    def u64(self, addr, v):
        self.write(addr, struct.pack("<Q", v & (2**64 - 1)))

    def u32(self, addr, v):
        self.write(addr, struct.pack("<I", v & (2**32 - 1)))

    def alloc(self, size, align=PAGE, image=False):
        """Zeroed memory, page-aligned by default: the heap's, or the kernel image's data (@image)."""
        at = self.data if image else self.heap
        addr = (at + align - 1) & ~(align - 1)
        # A page-aligned allocation is followed by a page that is never written (in no PT_LOAD):
        # libkdumpfile 0.5 reads a page in no PT_LOAD as zeros when the next PT_LOAD starts right after
        # it, and as missing only when it does not.
        end = addr + size + (PAGE if align == PAGE else 0)
        if image:
            self.data = end
        else:
            self.heap = end
        self.write(addr, bytes(size))
        return addr

    def exclude(self, addr):
        self.excluded.add(addr & ~(PAGE - 1))

    def symbol(self, name, addr, kind="D"):
        self.syms[name] = (addr, kind)

    def _kallsyms(self, base):
        """The kallsyms tables at @base (kernel image), VMCOREINFO naming them (Linux >= 6.0)."""
        syms = sorted(self.syms.items(), key=lambda kv: kv[1][0])
        # One token per byte value: token i is chr(i) (token_index[i] = 2 * i, "c\0" each).
        tok_table = b"".join(bytes([i, 0]) for i in range(256))
        tok_index = b"".join(struct.pack("<H", 2 * i) for i in range(256))
        names = b""
        for name, (addr, kind) in syms:
            s = (kind + name).encode()
            names += bytes([len(s)]) + s
        rel_base = KTEXT
        offsets = b""
        for name, (addr, kind) in syms:
            # x86-64 (ABSOLUTE_PERCPU): a negative offset counts down from base - 1.
            offsets += struct.pack("<i", -(addr - rel_base) - 1)
        layout = {}
        pos = base
        for key, data in (("kallsyms_num_syms", struct.pack("<Q", len(syms))), ("kallsyms_relative_base", struct.pack("<Q", rel_base)),
                          ("kallsyms_offsets", offsets), ("kallsyms_names", names),
                          ("kallsyms_token_table", tok_table), ("kallsyms_token_index", tok_index)):
            layout[key] = pos
            self.write(pos, data)
            pos = (pos + len(data) + 63) & ~63
        for key, addr in layout.items():
            self.vmcoreinfo["SYMBOL(%s)" % key] = "%x" % addr

    def save(self, path, btf_at=None):
        blob = self.btf.blob()
        start = btf_at or (KTEXT + 0x1000000)
        self.write(start, blob)
        self.symbol("__start_BTF", start)
        self.symbol("__stop_BTF", start + len(blob))
        self.symbol("_stext", KTEXT, "T")
        self._kallsyms(KTEXT + 0x200000)
        vi = {"OSRELEASE": "6.1.0-synthetic", "PAGESIZE": str(PAGE), "KERNELOFFSET": "0"}
        vi.update(self.vmcoreinfo)
        vi_text = "".join("%s=%s\n" % kv for kv in vi.items()).encode()
        notes = _note(b"CORE", 1, bytes(336)) + _note(b"VMCOREINFO", 0, vi_text)
        # One PT_LOAD per run of consecutive pages; an excluded page is in none, and reads of it fail as
        # they do in a kdump-compressed dump whose bitmap leaves it out. (Past p_filesz within p_memsz,
        # as makedumpfile -E writes excluded pages, libkdumpfile 0.5 fails them the same way.)
        runs = []  # [vaddr, data]
        for page in sorted(self.mem):
            if page in self.excluded:
                continue
            if runs and runs[-1][0] + len(runs[-1][1]) == page:
                runs[-1][1].extend(self.mem[page])
            else:
                runs.append([page, bytearray(self.mem[page])])
        phnum = 1 + len(runs)
        noff = 64 + 56 * phnum
        off = (noff + len(notes) + PAGE - 1) & ~(PAGE - 1)
        eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
        eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
        ph = struct.pack("<IIQQQQQQ", 4, 0, noff, 0, 0, len(notes), len(notes), 4)
        body = []
        for va, data in runs:
            pa = va - KTEXT + KTEXT_PHYS
            ph += struct.pack("<IIQQQQQQ", 1, 7, off, va, pa, len(data), len(data), PAGE)
            body.append((off, data))
            off += len(data)
        with open(path, "wb") as f:
            f.write(eh + ph + notes)
            for o, data in body:
                f.seek(o)
                f.write(data)


def _note(name, ntype, desc):
    n = name + b"\0"
    out = struct.pack("<III", len(n), len(desc), ntype) + n
    out += b"\0" * (-len(out) % 4)
    return out + desc + b"\0" * (-len(desc) % 4)


# task_struct as the synthetic kernels lay it out: two pages, the fields ps shows in the first, the list
# links in the second (so that a filtered dump can lose the links and keep the rest, or the reverse).
T_SIZE = 2 * PAGE
T_CPU, T_STATE, T_PID, T_TGID, T_COMM, T_EXIT, T_PARENT, T_SP = 0x10, 0x18, 0x100, 0x104, 0x110, 0x120, 0x128, 0x200
T_TASKS, T_SIGNAL, T_THREAD_NODE = 0x1000, 0x1010, 0x1018
SIG_THREAD_HEAD = 0x10
# The pid namespace's IDR (pids=True): init_pid_ns.idr.idr_rt is an xarray whose head is one xa_node
# (tagged | 2) of 64 slots indexed by pid, each a struct pid whose tasks[PIDTYPE_PID].first points at
# the task's pid_links[PIDTYPE_PID].
T_PID_LINKS = 0x300
NS_XA_HEAD, XA_SLOTS, XA_NUM_SLOTS, PID_TASKS = 0x8, 0x28, 64, 0x10
STATES = {"R": 0, "S": 1, "D": 2}


class Tasks:
    """init_task and its task list in @k, with the BTF types that describe them (anon_self: that many
    anonymous members of type task_struct itself before the others, as a hostile BTF has them;
    before_5_14: task_struct.state and .cpu, the names before 5.14 and 5.16, so that the lookups of
    __state and thread_info.cpu search the whole type and fail; pids: every task() also in the pid
    namespace's IDR, pids below 64)."""

    def __init__(self, k, anon_self=0, task_members=None, before_5_14=False, pids=False):
        self.k = k
        b = k.btf
        u64 = b.int_("long unsigned int", 8)
        u32 = b.int_("unsigned int", 4)
        i32 = b.int_("int", 4)
        ch = b.int_("char", 1)
        lh = b.struct("list_head", 16)
        b.set_members(lh, "list_head", 16, [("next", b.ptr(lh), 0), ("prev", b.ptr(lh), 8)])
        ti = b.struct("thread_info", 0x18, [("flags", u64, 0), ("cpu", u32, T_CPU)])
        th = b.struct("thread_struct", 8, [("sp", u64, 0)])
        sig = b.struct("signal_struct", 0x40, [("thread_head", lh, SIG_THREAD_HEAD)])
        b.struct("inactive_task_frame", 56, [(n, u64, 8 * i) for i, n in
                                             enumerate(("r15", "r14", "r13", "r12", "bx", "bp", "ret_addr"))])
        ts = b.struct("task_struct", T_SIZE)
        members = [("", ts, 0)] * anon_self + (task_members or []) + [
            *([("state", u32, T_STATE), ("cpu", u32, T_CPU)] if before_5_14 else
              [("thread_info", ti, 0), ("__state", u32, T_STATE)]), ("pid", i32, T_PID), ("tgid", i32, T_TGID),
            ("comm", b.array(ch, i32, 16), T_COMM), ("exit_state", i32, T_EXIT), ("real_parent", b.ptr(ts), T_PARENT),
            ("thread", th, T_SP), ("tasks", lh, T_TASKS), ("signal", b.ptr(sig), T_SIGNAL), ("thread_node", lh, T_THREAD_NODE)]
        self.xa_node = None
        if pids:
            vp = b.ptr(0)
            hn = b.struct("hlist_node", 16)
            b.set_members(hn, "hlist_node", 16, [("next", b.ptr(hn), 0), ("pprev", b.ptr(b.ptr(hn)), 8)])
            hh = b.struct("hlist_head", 8, [("first", b.ptr(hn), 0)])
            xa = b.struct("xarray", 16, [("xa_flags", u32, 4), ("xa_head", vp, NS_XA_HEAD)])
            idr = b.struct("idr", 24, [("idr_rt", xa, 0), ("idr_base", u32, 16), ("idr_next", u32, 20)])
            b.struct("pid_namespace", 0x80, [("idr", idr, 0)])
            b.struct("xa_node", XA_SLOTS + 8 * XA_NUM_SLOTS, [("shift", ch, 0), ("slots", b.array(vp, i32, XA_NUM_SLOTS), XA_SLOTS)])
            b.struct("pid", 0x60, [("count", u32, 0), ("level", u32, 4), ("tasks", b.array(hh, i32, 4), PID_TASKS)])
            members.append(("pid_links", b.array(hn, i32, 4), T_PID_LINKS))
            ns = k.alloc(0x80, align=64, image=True)
            k.symbol("init_pid_ns", ns)
            self.xa_node = k.alloc(XA_SLOTS + 8 * XA_NUM_SLOTS, align=64)
            k.u64(ns + NS_XA_HEAD, self.xa_node | 2)
        b.set_members(ts, "task_struct", T_SIZE, members)
        self.init = k.alloc(T_SIZE, image=True)
        k.symbol("init_task", self.init)
        self._fill(self.init, 0, "swapper/0", "R", self.init)
        self.signals = {}

    def _fill(self, t, pid, comm, state, parent):
        k = self.k
        k.u32(t + T_PID, pid)
        k.u32(t + T_TGID, pid)
        k.write(t + T_COMM, comm.encode()[:15].ljust(16, b"\0"))
        k.u32(t + T_STATE, STATES[state])
        k.u64(t + T_PARENT, parent)

    def task(self, pid, comm, state="S"):
        """A process of one thread (its own signal_struct and thread list), not yet on the task list."""
        k = self.k
        t = k.alloc(T_SIZE)
        self._fill(t, pid, comm, state, self.init)
        sig = k.alloc(0x40, align=64)
        k.u64(t + T_SIGNAL, sig)
        self.link([sig + SIG_THREAD_HEAD, t + T_THREAD_NODE])
        if self.xa_node is not None and pid < XA_NUM_SLOTS:
            p = k.alloc(0x60, align=64)
            k.u64(p + PID_TASKS, t + T_PID_LINKS)
            k.u64(self.xa_node + XA_SLOTS + 8 * pid, p)
        return t

    def link(self, nodes):
        """A circular list through @nodes (list_head addresses), nodes[0] the head."""
        for i, n in enumerate(nodes):
            self.k.u64(n, nodes[(i + 1) % len(nodes)])
            self.k.u64(n + 8, nodes[i - 1])

    def task_list(self, tasks):
        """init_task's task list through @tasks, in order."""
        self.link([self.init + T_TASKS] + [t + T_TASKS for t in tasks])
