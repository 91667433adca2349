"""Small ELF core reader/writer for the robustness tools (no dependencies beyond python3)."""
import struct

PT_LOAD, PT_NOTE = 1, 4
ET_CORE = 4


class Core:
    """A parsed ELF core: header fields, program headers and notes, with byte offsets kept."""

    def __init__(self, data):
        self.data = bytearray(data)
        d = self.data
        if d[:4] != b"\x7fELF":
            raise ValueError("not ELF")
        self.is64 = d[4] == 2
        self.be = d[5] == 2
        self.e = ">" if self.be else "<"
        e = self.e
        if self.is64:
            (self.e_type, self.e_machine, _, _, self.phoff, self.shoff, _, self.ehsize,
             self.phentsize, self.phnum, self.shentsize, self.shnum, _) = struct.unpack_from(e + "HHIQQQIHHHHHH", d, 16)
        else:
            (self.e_type, self.e_machine, _, _, self.phoff, self.shoff, _, self.ehsize,
             self.phentsize, self.phnum, self.shentsize, self.shnum, _) = struct.unpack_from(e + "HHIIIIIHHHHHH", d, 16)
        self.phdrs = []
        for i in range(self.phnum if self.phnum != 0xFFFF else 0):
            off = self.phoff + i * self.phentsize
            if off + self.phentsize > len(d):
                break
            self.phdrs.append(self.read_phdr(off))

    # Offsets of the header fields (ELF64 / ELF32).
    def field(self, name):
        f64 = {"phoff": (32, "Q"), "shoff": (40, "Q"), "phentsize": (54, "H"), "phnum": (56, "H"),
               "shentsize": (58, "H"), "shnum": (60, "H"), "type": (16, "H"), "machine": (18, "H")}
        f32 = {"phoff": (28, "I"), "shoff": (32, "I"), "phentsize": (42, "H"), "phnum": (44, "H"),
               "shentsize": (46, "H"), "shnum": (48, "H"), "type": (16, "H"), "machine": (18, "H")}
        return (f64 if self.is64 else f32)[name]

    def set_field(self, name, value):
        off, fmt = self.field(name)
        struct.pack_into(self.e + fmt, self.data, off, value & ((1 << (8 * struct.calcsize(fmt))) - 1))

    def read_phdr(self, off):
        e, d = self.e, self.data
        if self.is64:
            t, fl, o, va, pa, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", d, off)
        else:
            t, o, va, pa, fs, ms, fl, al = struct.unpack_from(e + "IIIIIIII", d, off)
        return {"at": off, "type": t, "flags": fl, "offset": o, "vaddr": va, "filesz": fs, "memsz": ms, "align": al}

    def phdr_field_off(self, ph, name):
        o64 = {"type": (0, "I"), "flags": (4, "I"), "offset": (8, "Q"), "vaddr": (16, "Q"), "filesz": (32, "Q"),
               "memsz": (40, "Q")}
        o32 = {"type": (0, "I"), "offset": (4, "I"), "vaddr": (8, "I"), "filesz": (16, "I"), "memsz": (20, "I"),
               "flags": (24, "I")}
        rel, fmt = (o64 if self.is64 else o32)[name]
        return ph["at"] + rel, fmt

    def set_phdr(self, ph, name, value):
        off, fmt = self.phdr_field_off(ph, name)
        struct.pack_into(self.e + fmt, self.data, off, value & ((1 << (8 * struct.calcsize(fmt))) - 1))

    def notes(self):
        """Yields dicts for every note of every PT_NOTE: header offset, name, type, desc offset/size."""
        for ph in self.phdrs:
            if ph["type"] != PT_NOTE:
                continue
            off, end = ph["offset"], min(ph["offset"] + ph["filesz"], len(self.data))
            while off + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from(self.e + "III", self.data, off)
                name_off = off + 12
                desc_off = (name_off + namesz + 3) & ~3
                nxt = (desc_off + descsz + 3) & ~3
                if desc_off + descsz > end:
                    break
                yield {"at": off, "namesz": namesz, "descsz": descsz, "type": ntype,
                       "name": bytes(self.data[name_off:name_off + namesz]).rstrip(b"\0"),
                       "desc_off": desc_off, "next": nxt}
                off = nxt

    def note_segment(self):
        for ph in self.phdrs:
            if ph["type"] == PT_NOTE:
                return ph
        return None

    def word(self):
        return "Q" if self.is64 else "I"
