"""gdb 13 as the oracle for frames (and, for whoever needs them, arguments and locals).

Runs gdb in batch mode on EXE + CORE and parses what `bt` (or `bt full`) prints, thread by thread,
plus each frame's type from gdb's Python API (normal, inline, tail call, signal trampoline), which
`bt` does not show.  Import it:

    from gdbbt import backtrace
    for thread in backtrace(exe, core, full=True, all_threads=True):
        thread.lwp, thread.frames[0].function, thread.frames[0].args, thread.frames[0].locals

Frame fields: level, pc (int, None when gdb prints no address: the frame's pc is at a line's
start, or an inline frame), function (None for `??`), args (the text between the parentheses,
"" for none), arg_list (args split into (name, value) pairs at top-level commas), file, line,
library ("from /lib/..." for frames without debug info), signal_handler (`<signal handler
called>`), locals (`bt full`: list of (name, value)), type ("NORMAL", "INLINE", "TAILCALL",
"SIGTRAMP", ... or None when gdb's Python API is missing).
"""
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

GDB = "gdb"

# Marks around each thread's output; the Python part prints "@@T <lwp>" then one
# "@@F <level> <type>" line per frame before that thread's bt.
_PY_TYPES = r"""
python
import gdb
names = {getattr(gdb, n): n[:-6] for n in dir(gdb) if n.endswith('_FRAME') and isinstance(getattr(gdb, n), int)}
f = gdb.newest_frame()
level = 0
while f is not None and level < 100000:
    print('@@F %d %s' % (level, names.get(f.type(), str(f.type()))))
    try:
        f = f.older()
    except gdb.error:
        f = None
    level += 1
end
"""


@dataclass
class Frame:
    level: int
    pc: int = None
    function: str = None
    args: str = ""
    arg_list: list = field(default_factory=list)
    file: str = None
    line: int = None
    library: str = None
    signal_handler: bool = False
    locals: list = field(default_factory=list)
    type: str = None
    text: str = ""


@dataclass
class Thread:
    lwp: int = None
    frames: list = field(default_factory=list)
    stopped: str = None  # "Backtrace stopped: ..." when gdb said so


def _match_group(s, i):
    """Index of the ')' closing the '(' at s[i], skipping quoted strings and chars; -1 if none."""
    depth = 0
    j = i
    quote = None
    while j < len(s):
        c = s[j]
        if quote:
            if c == "\\":
                j += 1
            elif c == quote:
                quote = None
        elif c == '"' or (c == "'" and _CHAR.match(s, j)):
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


_CHAR = re.compile(r"'(\\[^']*|[^'\\])'")
_AT = re.compile(r"^ at (.+):(\d+)$")
_FROM = re.compile(r"^ from (.+)$")
_FRAME = re.compile(r"^#(\d+)\s+(?:(0x[0-9a-fA-F]+) in )?(.*)$")


def split_args(args):
    """'a=1, s=0x5 "x, y"' -> [('a', '1'), ('s', '0x5 "x, y"')] (commas inside quotes/brackets kept)."""
    out, depth, quote, cur = [], 0, None, ""
    i = 0
    while i < len(args):
        c = args[i]
        if quote:
            if c == "\\" and i + 1 < len(args):
                cur += c + args[i + 1]
                i += 2
                continue
            if c == quote:
                quote = None
        elif c == '"':
            quote = c
        elif c in "({[<":
            depth += 1
        elif c in ")}]>" and depth > 0:
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            i += 1
            continue
        cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    pairs = []
    for a in out:
        name, eq, value = a.partition("=")
        pairs.append((name.strip(), value.strip()) if eq else (a, None))
    return pairs


def parse_frame_line(line):
    """One `#N ...` line of bt into a Frame (None if it is not one)."""
    m = _FRAME.match(line)
    if not m:
        return None
    f = Frame(level=int(m.group(1)), text=line)
    if m.group(2):
        f.pc = int(m.group(2), 16)
    rest = m.group(3)
    if rest.startswith("<signal handler called>"):
        f.signal_handler = True
        return f
    # "name (args)[ at file:line| from lib]": the first " (" whose group closes right before a
    # valid tail is the argument list (names may hold parentheses: "std::terminate() ()").
    i = rest.find(" (")
    while i >= 0:
        j = _match_group(rest, i + 1)
        if j >= 0:
            tail = rest[j + 1:]
            at, frm = _AT.match(tail), _FROM.match(tail)
            if tail == "" or at or frm:
                name = rest[:i]
                f.function = None if name == "??" else name
                f.args = rest[i + 2:j]
                f.arg_list = split_args(f.args)
                if at:
                    f.file, f.line = at.group(1), int(at.group(2))
                if frm:
                    f.library = frm.group(1)
                return f
        i = rest.find(" (", i + 1)
    f.function = rest.strip() or None
    return f


def parse_bt(text):
    """The output of bt / bt full for one thread: (frames, stopped-reason)."""
    frames, stopped = [], None
    for line in text.splitlines():
        if line.startswith("#"):
            fr = parse_frame_line(line)
            if fr:
                frames.append(fr)
        elif line.startswith("Backtrace stopped:"):
            stopped = line[len("Backtrace stopped:"):].strip()
        elif frames and line.startswith("        ") and " = " in line:
            name, _, value = line.strip().partition(" = ")
            frames[-1].locals.append((name, value))
    return frames, stopped


def run_gdb(exe, core, commands, timeout=300, settings=()):
    argv = [GDB, "-batch", "-nx", "-q", "-ex", "set pagination off", "-ex", "set width 0",
            "-ex", "set height 0", "-ex", "set confirm off", "-ex", "set backtrace past-main on"]
    for s in settings:
        argv += ["-ex", s]
    for c in commands:
        argv += ["-ex", c]
    argv += [exe, core]
    proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout, check=False)
    return proc.stdout


def backtrace(exe, core, full=False, all_threads=False, settings=(), timeout=300):
    """gdb's backtrace of the crashing (current) thread, or of every thread, as Thread objects."""
    bt = "bt full" if full else "bt"
    # Per thread (`thread apply all` sources the script in each): its lwp, the frame types, bt.
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as tf:
        tf.write("echo @@T\\n\n")
        tf.write("python print('@@L %d' % gdb.selected_thread().ptid[1])\n")
        tf.write(_PY_TYPES.strip() + "\n")
        tf.write("echo @@BT\\n\n")
        tf.write(bt + "\n")
        path = tf.name
    try:
        cmd = f"source {path}"
        cmds = [f"thread apply all -q {cmd}"] if all_threads else [cmd]
        out = run_gdb(exe, core, cmds, timeout=timeout, settings=settings)
    finally:
        os.unlink(path)
    threads = []
    for chunk in out.split("@@T\n")[1:]:
        t = Thread()
        head, _, bttext = chunk.partition("@@BT\n")
        ftypes = {}
        for line in head.splitlines():
            if line.startswith("@@L "):
                t.lwp = int(line[4:])
            elif line.startswith("@@F "):
                _, lvl, ty = line.split(" ", 2)
                ftypes[int(lvl)] = ty
        t.frames, t.stopped = parse_bt(bttext)
        for fr in t.frames:
            fr.type = ftypes.get(fr.level)
        threads.append(t)
    return threads
