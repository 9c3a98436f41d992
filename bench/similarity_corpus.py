"""Detection and false positives of `autograder similarity`, beside copydetect, on every assignment.

    .venv/bin/python bench/similarity_corpus.py [ASSIGNMENT ...] [--markdown] [--no-copydetect]

Evasion corpus: each assignment's master (solutions/ID.ipynb) disguised by each obfuscation below, alone and
in the combinations `COMBOS`; a copy is detected when the pair (master, copy) is flagged at the kit's
threshold (`pairs.THRESHOLD`, `MIN_SHARED`), the released notebook as boilerplate.  False-positive corpus:
independent correct solutions (the master and tests/curriculum/alternatives/ID.ipynb; the alternative and
each style variant ID.STYLE.ipynb), also after each obfuscation of one side; "same-origin": the master and
each of its mutants (tests/curriculum/variants/ID.py: the master with one plausible mistake), which share
its code by construction and are reported apart.  Three detectors: the kit ("tree"), the kit with every
cell on its lexical path (`winnow.tokens`, the fingerprints before syntax trees, "lexical"), and copydetect
(its defaults: k=25, window 1, a pair flagged over 0.33 of either file; each notebook's code cells written
to one .py file, the released notebook's code as boilerplate).  copydetect is a bench-only dependency (the
dev extra).  Output: a JSON object per assignment (scores beside each verdict), and with --markdown the
tables of docs/workspace.md after them (`--table FILE` prints them again from a saved output).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "similarity"))

from evasions import COMBOS, OBFUSCATIONS, Cells, disguise  # noqa: E402

from autograder.similarity import pairs  # noqa: E402
from autograder.similarity.winnow import MAX_TOKENS, tokens  # noqa: E402

# ------------------------------------------------------------------ notebooks and detectors


def code_of(path: Path) -> Cells:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def write(folder: Path, name: str, cells: Cells) -> Path:
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells
        ],
    }
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    path.with_suffix(".py").write_text("\n\n".join(cells) + "\n", encoding="utf-8")
    return path


def _lexical(cells: list[tuple[int, str]], keep: frozenset[str] = frozenset()) -> dict:
    out, left = {}, MAX_TOKENS
    for number, source in cells:
        out[number] = tokens(source, number, left) if left > 0 else []
        left -= len(out[number])
    return out


class Kit:
    def __init__(self, stub: Path, lexical: bool) -> None:
        self.lexical = lexical
        with self._mode():
            self.skip = pairs.boilerplate(stub)

    def _mode(self):
        import contextlib
        import unittest.mock

        return (
            unittest.mock.patch.object(pairs, "notebook_tokens", _lexical) if self.lexical else contextlib.nullcontext()
        )

    def score(self, a: Path, b: Path) -> tuple[bool, float]:
        with self._mode():
            found = pairs.compare(
                [pairs.fingerprint(a, "a", "a", self.skip), pairs.fingerprint(b, "b", "b", self.skip)],
                threshold=0.0,
                min_shared=0,
            )
        if not found:
            return False, 0.0
        return found[0].score >= pairs.THRESHOLD and found[0].shared >= pairs.MIN_SHARED, round(found[0].score, 2)


class CopyDetect:
    def __init__(self, stub: Path) -> None:
        from copydetect import CodeFingerprint, defaults

        self.k, self.w, self.t = (
            defaults.NOISE_THRESHOLD,
            defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1,
            defaults.DISPLAY_THRESHOLD,
        )
        import numpy as np

        self.boiler = np.array(sorted(CodeFingerprint(str(stub.with_suffix(".py")), self.k, self.w).hashes))

    def score(self, a: Path, b: Path) -> tuple[bool, float]:
        from copydetect import CodeFingerprint, compare_files

        fa, fb = (CodeFingerprint(str(p.with_suffix(".py")), self.k, self.w, boilerplate=self.boiler) for p in (a, b))
        _, sims, _ = compare_files(fa, fb)
        return bool(max(sims) > self.t), round(float(max(sims)), 2)


def mutants(assignment: str, master: Cells) -> list[Cells]:
    spec = importlib.util.spec_from_file_location(
        "variants", ROOT / "tests" / "curriculum" / "variants" / f"{assignment}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = []
    for m in mod.MUTANTS:
        joined = "\x00".join(master)
        if m.get("old") and m["old"] in joined:
            out.append(joined.replace(m["old"], m["new"], 1).split("\x00"))
    return out


def measure(assignment: str, use_copydetect: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        stub = write(folder, "stub", code_of(ROOT / "student" / f"{assignment}.ipynb"))
        detectors = {"tree": Kit(stub, False), "lexical": Kit(stub, True)}
        if use_copydetect:
            detectors["copydetect"] = CopyDetect(stub)
        master_cells = code_of(ROOT / "solutions" / f"{assignment}.ipynb")
        master = write(folder, "master", master_cells)
        result: dict = {"assignment": assignment, "evasion": {}, "independent": {}, "same_origin": {}}
        for name in [*OBFUSCATIONS, *COMBOS]:
            copy = write(folder, "copy", disguise(master_cells, COMBOS.get(name, [name])))
            result["evasion"][name] = {d: det.score(master, copy) for d, det in detectors.items()}
        alt_dir = ROOT / "tests" / "curriculum" / "alternatives"
        alt_cells = code_of(alt_dir / f"{assignment}.ipynb")
        alt = write(folder, "alt", alt_cells)
        independent = [("master", master, alt)]
        for style in sorted(alt_dir.glob(f"{assignment}.*.ipynb")):
            independent.append((style.stem.split(".", 1)[1], alt, write(folder, "style", code_of(style))))
        counts = {d: [0, 0, 0.0] for d in detectors}  # flagged, pairs, highest score
        for _label, a, b in independent:
            for name in ["none", *OBFUSCATIONS]:
                other = b if name == "none" else write(folder, "alt_disguised", disguise(code_of(b), [name]))
                for d, det in detectors.items():
                    flag, score = det.score(a, other)
                    counts[d][0] += flag
                    counts[d][2] = max(counts[d][2], score)
                    counts[d][1] += 1
        result["independent"] = {"pairs": len(independent), **counts}
        same = {d: [0, 0] for d in detectors}
        for i, m in enumerate(mutants(assignment, master_cells)):
            mutant = write(folder, f"mutant{i}", m)
            for d, det in detectors.items():
                same[d][0] += det.score(master, mutant)[0]
                same[d][1] += 1
        result["same_origin"] = same
    return result


def markdown(results: list[dict]) -> str:
    dets = list(results[0]["evasion"]["parens"])
    short = {a["assignment"]: a["assignment"].split("_")[0] for a in results}
    head = (
        "| copy of the master, disguised by | "
        + " | ".join(short[r["assignment"]] for r in results)
        + " | detected: "
        + " / ".join(dets)
        + " |"
    )
    lines = [head, "|---|" + "---|" * (len(results) + 1)]
    for name in results[0]["evasion"]:
        cells = []
        for r in results:
            v = r["evasion"][name]
            cells.append(" ".join(("✔" if v[d][0] else "✘") for d in dets))
        total = " / ".join(str(sum(r["evasion"][name][d][0] for r in results)) for d in dets)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {total} of {len(results)} |")
    lines += [
        "",
        "| pairs flagged | " + " | ".join(short[r["assignment"]] for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]
    for d in dets:
        lines.append(
            f"| independent, {d}: flagged (highest score) | "
            + " | ".join(
                f"{r['independent'][d][0]}/{r['independent'][d][1]} ({r['independent'][d][2]:.2f})" for r in results
            )
            + " |"
        )
    for d in dets:
        lines.append(
            f"| same-origin, {d} | "
            + " | ".join(f"{r['same_origin'][d][0]}/{r['same_origin'][d][1]}" for r in results)
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("assignments", nargs="*")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--no-copydetect", action="store_true")
    p.add_argument("--table", type=Path, help="only print the tables of a saved output (its JSON lines)")
    args = p.parse_args()
    if args.table:
        saved = [json.loads(x) for x in args.table.read_text(encoding="utf-8").splitlines() if x.startswith("{")]
        print(markdown(saved))
        return
    ids = args.assignments or sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb"))
    results = []
    for a in ids:
        r = measure(a, not args.no_copydetect)
        results.append(r)
        print(json.dumps(r), flush=True)
    if args.markdown:
        print(markdown(results))


if __name__ == "__main__":
    main()
