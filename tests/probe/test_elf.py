"""autograder.probe.elf: what a built kernel library imports, read from its symbol table, whatever its source
spelled; a file it cannot read is refused, never trusted."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from autograder.probe import elf

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def _build(tmp_path, source: str) -> bytes:
    src, lib = tmp_path / "k.c", tmp_path / "k.so"
    src.write_text(source)
    subprocess.run(
        ["cc", "-O2", "-shared", "-fPIC", "-nostdinc", "-nostdlib", "-Wl,-z,defs", "-o", str(lib), str(src), "-lm"],
        check=True,
        capture_output=True,
    )
    return lib.read_bytes()


def _libm() -> dict[str, str]:
    path = subprocess.run(["cc", "-print-file-name=libm.so.6"], capture_output=True, text=True).stdout.strip()
    return {"libm.so.6": path}


def test_a_kernel_calling_libm_passes(tmp_path):
    data = _build(
        tmp_path,
        "double exp(double);\nvoid k(const double *x, double *y, long n) "
        "{ for (long i = 0; i < n; i++) y[i] = exp(x[i]); }\n",
    )
    dyn = elf.read_dynamic(data)
    assert "k" in dyn.defined and ("exp", False) in dyn.undefined and dyn.needed == ("libm.so.6",)
    assert elf.imports_problem(data, _libm()) == ""


@pytest.mark.parametrize(
    "declaration, name",
    [
        ("__attribute__((weak)) int PyRun_SimpleString(const char *);", "PyRun_SimpleString"),
        ("__attribute__((weak)) int kit_elsewhere(const char *);", "kit_elsewhere"),
        ("#define CAT(a, b) a##b\n__attribute__((weak)) int CAT(sys, tem)(const char *);", "system"),
    ],
)
def test_a_weak_symbol_no_linked_library_defines_is_refused(tmp_path, declaration, name):
    """-z defs lets a weak symbol through; the symbol table shows it, however the source spelled it."""
    call = name if name != "system" else "CAT(sys, tem)"
    data = _build(tmp_path, f"{declaration}\nvoid k(void) {{ if ({call}) {call}(\"x\"); }}\n")
    assert (name, True) in elf.read_dynamic(data).undefined
    problem = elf.imports_problem(data, _libm())
    assert name in problem, problem


def test_a_library_the_kit_did_not_link_is_refused(tmp_path):
    data = _build(tmp_path, "double exp(double);\ndouble k(double x) { return exp(x); }\n")
    assert "libm.so.6" in elf.imports_problem(data, {})


@pytest.mark.parametrize(
    "data", [b"", b"\x7fELF\x02\x01" + b"\x00" * 10, b"#!/bin/sh\n", b"\x7fELF\x02\x01" + b"\xff" * 200]
)
def test_a_file_it_cannot_read_is_refused(data):
    assert "could not be read" in elf.imports_problem(data, _libm())


def test_a_truncated_library_is_refused(tmp_path):
    data = _build(tmp_path, "double exp(double);\ndouble k(double x) { return exp(x); }\n")
    for cut in (64, len(data) // 2, len(data) - 100):
        assert elf.imports_problem(data[:cut], _libm()) != ""


def test_a_librarys_exports_are_read_once_per_version_of_the_file(tmp_path, monkeypatch):
    """`exports` keeps what a linked library defines (the zygote reads TensorFlow's framework once for every fresh
    worker forked after it); a library replaced at the same path is read again."""
    lib = tmp_path / "libk.so"
    lib.write_bytes(_build(tmp_path, "double k1(double x) { return x; }\n"))
    reads, real = [], elf.read_dynamic
    monkeypatch.setattr(elf, "read_dynamic", lambda data: (reads.append(1), real(data))[1])
    assert "k1" in elf.exports(str(lib)) and "k1" in elf.exports(str(lib)) and len(reads) == 1
    replaced = tmp_path / "new.so"
    replaced.write_bytes(_build(tmp_path, "double k2(double x) { return x; }\n"))
    replaced.replace(lib)
    assert "k2" in elf.exports(str(lib)) and len(reads) == 2
