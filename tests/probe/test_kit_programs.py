"""The kit's own helper programs: built once per process, then written out from the bytes kept."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from autograder.probe import kit_programs

SOURCE = '#include <stdio.h>\nint main(void) { puts("kit"); return 0; }\n'

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def test_a_program_is_built_once_then_written_from_its_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(kit_programs, "_BUILT", {})
    first, second = tmp_path / "a", tmp_path / "b"
    kit_programs.build(SOURCE, ["cc", "-O1"], str(first))
    real = subprocess.run

    def no_compiler(argv, *args, **kwargs):
        assert argv[0] != "cc", "built again"
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", no_compiler)
    kit_programs.build(SOURCE, ["cc", "-O1"], str(second))
    assert second.read_bytes() == first.read_bytes() and os.access(second, os.X_OK)
    assert subprocess.check_output([str(second)], text=True) == "kit\n"
    with pytest.raises(FileExistsError):  # never over a file someone put there
        kit_programs.build(SOURCE, ["cc", "-O1"], str(second))
    with pytest.raises(AssertionError, match="built again"):  # another command is another program
        kit_programs.build(SOURCE, ["cc", "-O0"], str(tmp_path / "c"))


def test_a_source_that_does_not_build_is_an_oserror_and_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(kit_programs, "_BUILT", {})
    with pytest.raises(OSError, match="did not build"):
        kit_programs.build("int main(void) { return }\n", ["cc"], str(tmp_path / "bad"))
    assert kit_programs._BUILT == {}
