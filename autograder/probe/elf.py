"""What a built kernel library links and may call, read from its ELF dynamic section and symbol table.

Kernel evidence comes from what the compiler and linker produced, not from the source text (docs/security.md,
rule 7): a source can spell a call any way the preprocessor allows (token pasting, a macro from a header), or
declare a symbol weak so that `-z defs` lets it through unresolved and the process that loads the library (a
Python process: libpython's C API) supplies it.  The dynamic symbol table cannot be spelled around: every
function the library calls outside itself is one of its undefined symbols, and every library it needs one of
its DT_NEEDED entries.  `imports_problem` holds them to an allow-list: every undefined symbol, weak or not,
defined by a library the kit linked, and none of the loader's or the process's doors (`dlsym`, `system`...).

The reader is plain Python on bytes (ELF64, little-endian: x86-64 and arm64), every offset bounds-checked, so it
runs on a hostile file without binutils; a file it cannot read is refused, never trusted.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

SHT_DYNSYM, SHT_DYNAMIC = 11, 6
DT_NEEDED = 1
STB_WEAK = 2
# what a kernel never calls, though the C library or the loader defines them: the dynamic loader and its map of
# the process (finding any symbol of the process, Python's C API included), other processes, raw system calls,
# another process's memory
FORBIDDEN = re.compile(
    r"(?:dl(?:open|sym|vsym|mopen|info|addr\d?|error|close|_iterate_phdr)|_dl_\w*|__libc_dl\w*|"
    r"_?Py[A-Za-z_]\w*|syscall|popen|system|v?fork|_Fork|clone\d?|exec[lv]\w*|fexecve|"
    r"posix_spawn\w*|ptrace|process_vm_\w+|getauxval|_r_debug|__libc_stack_end)"
)

# weak references the C and C++ start-up files (crtbegin.o) put in every library g++ links, resolved only where a
# transactional-memory or profiling runtime is loaded; the code that calls them is the toolchain's, not the source's
TOOLCHAIN_WEAK = frozenset({"_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable", "__gmon_start__"})


class NotElf(ValueError):
    """The bytes are not an ELF64 little-endian shared object this reader can follow."""


@dataclass(frozen=True)
class Dynamic:
    needed: tuple[str, ...]  # DT_NEEDED: the libraries the loader maps with it
    undefined: tuple[tuple[str, bool], ...]  # (name, weak) of every undefined dynamic symbol
    defined: frozenset[str]  # the dynamic symbols it defines (exports)


def _unpack(fmt: str, data: bytes, at: int) -> tuple:
    if at < 0 or at + struct.calcsize(fmt) > len(data):
        raise NotElf("an offset points outside the file")
    return struct.unpack_from(fmt, data, at)


def _string(data: bytes, table: tuple[int, int], at: int) -> str:
    start, size = table
    if not 0 <= at < size:
        raise NotElf("a name points outside its string table")
    end = data.find(b"\x00", start + at, start + size)
    if end < 0:
        raise NotElf("an unterminated name")
    return data[start + at : end].decode("latin-1")


def read_dynamic(data: bytes) -> Dynamic:
    """The DT_NEEDED entries and dynamic symbols of an ELF64 little-endian file (raises NotElf)."""
    if data[:6] != b"\x7fELF\x02\x01":
        raise NotElf("not an ELF64 little-endian file")
    (shoff,) = _unpack("<Q", data, 0x28)
    shentsize, shnum = _unpack("<HH", data, 0x3A)
    if shentsize != 64 or not 0 < shnum <= 4096:
        raise NotElf("no section table")
    sections = [_unpack("<IIQQQQIIQQ", data, shoff + i * 64) for i in range(shnum)]

    def table(index: int) -> tuple[int, int]:
        if not 0 <= index < shnum:
            raise NotElf("a section links outside the table")
        off, size = sections[index][4], sections[index][5]
        if off + size > len(data):
            raise NotElf("a section outside the file")
        return off, size

    needed, undefined, defined = [], [], set()
    for _name, kind, _flags, _addr, off, size, link, _info, _align, _entsize in sections:
        if kind == SHT_DYNSYM:
            strings = table(link)
            for at in range(off + 24, off + size, 24):  # entry 0 is the null symbol
                st_name, st_info, _other, st_shndx = _unpack("<IBBH", data, at)
                name = _string(data, strings, st_name)
                if not name:
                    continue
                if st_shndx == 0:
                    undefined.append((name, st_info >> 4 == STB_WEAK))
                else:
                    defined.add(name)
        elif kind == SHT_DYNAMIC:
            strings = table(link)
            for at in range(off, off + size, 16):
                tag, value = _unpack("<qQ", data, at)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    needed.append(_string(data, strings, value))
    return Dynamic(tuple(needed), tuple(undefined), frozenset(defined))


_EXPORTS: dict[tuple[str, int, int, int], frozenset[str]] = {}


def exports(path: str) -> frozenset[str]:
    """The dynamic symbols the library at `path` defines (a library the kit links: trusted, read whole), kept for
    the process's life per version of the file (its inode, size and modification time).  TensorFlow's framework
    takes 0.15 s to read: tf02b reads it once in its zygote (`warm_up`), and every submission's fresh worker that
    checks a build's imports is forked from there with it read."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _EXPORTS:
        with open(path, "rb") as f:
            _EXPORTS[key] = read_dynamic(f.read()).defined
    return _EXPORTS[key]


def imports_problem(data: bytes, allowed: dict[str, str], what: str = "the library") -> str:
    """Why the library in `data` reaches outside what a kernel may call, or ''.  `allowed` maps the file name of
    each library it may need (DT_NEEDED) to that library's path: every undefined symbol, weak ones included, must
    be defined by one of them and match no FORBIDDEN name."""
    try:
        dyn = read_dynamic(data)
    except (NotElf, UnicodeDecodeError) as e:
        return f"{what} could not be read as a shared library ({e})"
    extra = [n for n in dyn.needed if n not in allowed]
    if extra:
        return f"{what} needs {', '.join(sorted(extra))}, which the grader does not link"
    libraries = {os.path.basename(n): exports(allowed[n]) for n in dyn.needed}
    for name, weak in dyn.undefined:
        if weak and name in TOOLCHAIN_WEAK:
            continue
        if FORBIDDEN.fullmatch(name):
            return f"{what} calls {name}, which a kernel never calls (no loader, Python, processes or system calls)"
        if not any(name in defined for defined in libraries.values()):
            return (
                f"{what} calls {name}{' (declared weak)' if weak else ''}, which none of the libraries the grader "
                f"links ({', '.join(sorted(libraries)) or 'none'}) defines: a kernel computes with its inputs only"
            )
    return ""
