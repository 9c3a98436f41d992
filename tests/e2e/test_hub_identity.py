"""A JupyterHub collect (`<login>/<id>.ipynb`) graded with a roster, then exported: each student's grade comes
only from their own folder (trust rule 6; `tests/attacks/test_identity.py` checks every layout's intake).

zoe hands in the master (10/10); mallory a byte-for-byte copy of it; bob a notebook named after alice
(`bob/alice.ipynb`, wrong in `later()`: 8/10); alice nothing.  The export must give zoe and mallory 10 each
(two submissions, so the pair reaches similarity), bob 8, and alice nothing.
"""

from __future__ import annotations

import csv
import io
import shutil

from autograder.cli import main
from tests.nbfactory import edit

ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n\"Author, Zoe\",2,S2,zoe,A\n"
    "\"Copier, Mallory\",3,S3,mallory,A\n\"Blank, Alice\",1,S1,alice,A\n\"Other, Bob\",4,S4,bob,A\n"
)


def test_a_hub_collect_credits_each_notebook_to_its_folder(toy_kit, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOGRADER_SECRET", "hub-secret")
    master = toy_kit / "solutions" / "toy.ipynb"
    hub = tmp_path / "hub"
    for login in ("zoe", "mallory", "bob"):
        (hub / login).mkdir(parents=True)
    shutil.copyfile(master, hub / "zoe" / "toy.ipynb")
    shutil.copyfile(master, hub / "mallory" / "toy.ipynb")
    edit(master, hub / "bob" / "alice.ipynb", replace={"return x + 1": "return x + 2"})
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    out = tmp_path / "results"
    argv = [
        "--kit",
        str(toy_kit),
        "grade",
        "toy",
        str(hub),
        "--roster",
        str(roster),
        "--out",
        str(out),
        "--allow-weak-isolation",
        "--jobs",
        "1",
    ]
    assert main(argv) == 0
    assert (
        main(["--kit", str(toy_kit), "export", "toy", "--format", "csv", "--roster", str(roster), "--out", str(out)])
        == 0
    )
    capsys.readouterr()
    rows = list(csv.reader(io.StringIO((out / "toy" / "grades_export.csv").read_text())))
    header, body = rows[0], rows[1:]
    score = header.index("score") if "score" in header else 2
    got = {r[0]: r[score] for r in body}
    assert got.get("2") == got.get("3") == "10" and got.get("4") == "8", rows
    assert got.get("1", "") in ("", "missing"), rows  # alice handed nothing in; bob's file named after her is his
    assert sorted(p.name for p in (out / "toy").iterdir() if (p / "versions").is_dir()) == ["2", "3", "4"]
