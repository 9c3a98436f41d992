"""A semester, end to end, through the command line: the grade that reaches the LMS is the grade the student earned.

One course file, a roster with awkward names, two assignments (the toy kit's `toy` and a copy, `toy2`), graded
from a Canvas download (LATE flags, a resubmission), a folder of emailed notebooks, a Moodle download and an
nbgrader course into one results folder; extensions keyed by a SIS id, an LMS user id, a login and an email;
overrides named by roster ids; then every export, the course gradebook and both passbacks against a loopback
recorder.  Every number asserted is worked out by hand below (EXPECTED), never read back from the kit.

Scoring of the toy (10 points): double() 1 + 3 + 2, ANSWER 2, later() 2.  Both assignments take 10 % of the
maximum (1 point) per day or part of one late.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, urlparse

import jwt
import pytest
import torch
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from autograder.cli import main
from tests.chromium import needs_chromium, render
from tests.nbfactory import edit

ROSTER = """Student,ID,SIS User ID,SIS Login ID,Email,Section,LTI User ID
"Smith, John",101,S101,jsmith,jsmith@u.edu,A,lti-101
"Müller, Zoë",102,S102,zmuller,zoe@u.edu,A,lti-102
"Ó Briain, Dara",103,S103,dobriain,dara@u.edu,B,lti-103
"Nguyễn, Văn An",104,S104,vnguyen,an@u.edu,B,lti-104
"Lee, Ann",105,S105,alee,ann@u.edu,B,lti-105
"""
NAMES = {
    "101": "Smith, John",
    "102": "Müller, Zoë",
    "103": "Ó Briain, Dara",
    "104": "Nguyễn, Văn An",
    "105": "Lee, Ann",
}
EMAIL = {"101": "jsmith@u.edu", "102": "zoe@u.edu", "103": "dara@u.edu", "104": "an@u.edu", "105": "ann@u.edu"}

# worked out by hand (Canvas user id -> final score), each with its reason
EXPECTED = {
    "toy": {  # due 2026-10-01 12:00 UTC; extension S102 (a SIS id) = 2 days
        "101": 10,  # Canvas, on time, perfect
        "102": 10,  # Canvas, marked LATE, 1 d 8 h late but inside the 2-day extension keyed by the SIS id
        "103": 8,  # Canvas resubmission (ANSWER wrong: 8), ANSWER overridden to 2/2 by login: 10; 25 h late: 2 days, -2
        "104": 8,  # folder `an@u.edu.ipynb` (an email), later() wrong: 8, on time
        "105": 7,  # folder `alee/toy.ipynb` (a login), perfect, 3 days late: -3
    },
    "toy2": {  # due 2026-10-08 12:00 UTC; extensions "101" (LMS user id) 1 day, vnguyen (login) 3, ann@u.edu (email) 2
        "101": 10,  # Moodle, perfect, 18 h late, inside the 1-day extension keyed by the LMS user id
        "102": 9,  # Moodle, later() wrong: 8, on time; whole score overridden to 9 by the SIS id
        "103": 8,  # nbgrader, ANSWER wrong: 8, on time
        "104": 10,  # Moodle, perfect, 2 days late, inside the 3-day extension keyed by the login
        "105": 10,  # nbgrader, perfect, 1 d 12 h late, inside the 2-day extension keyed by the email
    },
}
CANVAS_POINTS = 20.0  # Canvas's points possible: passback scales 10 -> 20
CANVAS_TOKEN = "semester-token"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


# ------------------------------------------------------------------------------- the loopback LMS


class Recorder(BaseHTTPRequestHandler):
    """Canvas's REST endpoints canvasapi calls (course, assignment, submissions, bulk update_grades, its
    Progress) and an LTI 1.3 platform (token endpoint checking the RS256 assertion, line item scores), on
    127.0.0.1; every write is recorded."""

    public_key = None
    canvas: dict = {}  # assignment id -> {user id: grade data}
    lti: dict = {}  # line item path -> [score bodies]

    def log_message(self, *a):
        pass

    def _reply(self, code, body=None, ctype="application/json"):
        data = json.dumps(body if body is not None else {}).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> str:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()

    def do_GET(self):
        path = urlparse(self.path).path
        if self.headers.get("Authorization") != f"Bearer {CANVAS_TOKEN}":
            return self._reply(401, {"errors": [{"message": "Invalid access token."}]})
        if path == "/api/v1/courses/7":
            return self._reply(200, {"id": 7, "name": "Semester"})
        m = re.fullmatch(r"/api/v1/courses/7/assignments/(\d+)", path)
        if m:
            return self._reply(200, {"id": int(m[1]), "course_id": 7, "name": "A", "points_possible": CANVAS_POINTS})
        m = re.fullmatch(r"/api/v1/courses/7/assignments/(\d+)/submissions", path)
        if m:
            return self._reply(
                200,
                [
                    {
                        "id": 900 + int(u),
                        "user_id": int(u),
                        "assignment_id": int(m[1]),
                        "score": None,
                        "submission_comments": [],
                        "user": {"id": int(u), "sis_user_id": f"S{u}"},
                    }
                    for u in NAMES
                ],
            )
        if re.fullmatch(r"/api/v1/progress/\d+", path):
            return self._reply(200, {"id": 1, "workflow_state": "completed"})
        return self._reply(404)

    def do_POST(self):
        url = urlparse(self.path)
        body = self._body()
        m = re.fullmatch(r"/api/v1/courses/7/assignments/(\d+)/submissions/update_grades", url.path)
        if m:
            if self.headers.get("Authorization") != f"Bearer {CANVAS_TOKEN}":
                return self._reply(401)
            data = type(self).canvas.setdefault(m[1], {})
            for k, v in parse_qsl(body):
                g = re.fullmatch(r"grade_data\[(\w+)\]\[(\w+)\]", k)
                data.setdefault(g[1], {})[g[2]] = v
            return self._reply(200, {"id": 1, "workflow_state": "queued", "url": "/api/v1/progress/1"})
        if url.path == "/token":
            form = {k: v[0] for k, v in parse_qs(body).items()}
            try:
                jwt.decode(
                    form["client_assertion"],
                    type(self).public_key,
                    algorithms=["RS256"],
                    audience=f"http://127.0.0.1:{self.server.server_address[1]}/token",
                )
            except (KeyError, jwt.PyJWTError) as e:
                return self._reply(401, {"error": "invalid_client", "error_description": str(e)})
            return self._reply(200, {"access_token": "lti-token", "token_type": "Bearer", "expires_in": 3600})
        m = re.fullmatch(r"(/lti/lineitems/\d+)/scores", url.path)
        if m and self.headers.get("Authorization") == "Bearer lti-token":
            type(self).lti.setdefault(m[1], []).append(json.loads(body))
            return self._reply(200, {})
        return self._reply(404)


@pytest.fixture(scope="module")
def lms():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    Recorder.public_key, Recorder.canvas, Recorder.lti = key.public_key(), {}, {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pem
    server.shutdown()
    server.server_close()


# ------------------------------------------------------------------------------- the semester


def _kit(toy_kit: Path, root: Path) -> Path:
    """The toy kit and `toy2`, a second assignment with the same tests."""
    kit = root / "kit"
    shutil.copytree(toy_kit, kit)
    shutil.copytree(kit / "assignments" / "toy", kit / "assignments" / "toy2")
    manifest = kit / "assignments" / "toy2" / "manifest.toml"
    manifest.write_text(
        manifest.read_text().replace(
            'title = "Toy assignment for the engine\'s own tests"', 'title = "Toy two, the sequel"'
        )
    )
    shutil.copy(kit / "solutions" / "toy.ipynb", kit / "solutions" / "toy2.ipynb")
    return kit


def _notebooks(kit: Path, root: Path) -> dict[str, Path]:
    master = kit / "solutions" / "toy.ipynb"
    nbs = root / "notebooks"
    return {
        "perfect": master,
        "answer_wrong": edit(master, nbs / "answer_wrong.ipynb", replace={"ANSWER = 42": "ANSWER = 41"}),
        "later_wrong": edit(master, nbs / "later_wrong.ipynb", replace={"return x + 1": "return x + 2"}),
        "blank": edit(
            master,
            nbs / "blank.ipynb",
            replace={
                "return x * 2": "raise NotImplementedError()",
                "return x + 1": "raise NotImplementedError()",
                "ANSWER = 42": "ANSWER = None",
            },
        ),
    }


def _zip(path: Path, members: list[tuple[str, Path, datetime]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, nb, when in members:
            info = zipfile.ZipInfo(name, date_time=when.timetuple()[:6])  # read back as UTC
            z.writestr(info, nb.read_bytes())
    return path


def _course_file(root: Path, url: str, pem: bytes) -> Path:
    (root / "roster.csv").write_text(ROSTER, encoding="utf-8")
    (root / "lti.pem").write_bytes(pem)
    course = root / "course.toml"
    course.write_text(
        f"""
[course]
title = "Semester"
roster = "roster.csv"
results = "results"

[canvas]
url = "{url}"
course = 7
token_env = "SEMESTER_CANVAS_TOKEN"

[lti]
token_url = "{url}/token"
client_id = "tool-123"
key_file = "lti.pem"

[deadline]
penalty_percent = 10

[assignments.toy]
canvas_assignment = 42
lti_lineitem = "{url}/lti/lineitems/1"
[assignments.toy.deadline]
due = "2026-10-01T12:00:00+00:00"
[assignments.toy.deadline.extensions]
S102 = 2

[assignments.toy2]
canvas_assignment = 43
lti_lineitem = "{url}/lti/lineitems/2"
[assignments.toy2.deadline]
due = "2026-10-08T12:00:00+00:00"
[assignments.toy2.deadline.extensions]
"101" = 1
vnguyen = 3
"ann@u.edu" = 2
""",
        encoding="utf-8",
    )
    return course


def cli(course: Path, kit: Path, *argv: str) -> int:
    return main(["--kit", str(kit), "--course-file", str(course), *argv])


def _nbgrader(course_dir: Path, *args: str) -> None:
    binary = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{binary}{os.pathsep}{os.environ.get('PATH', '')}"}
    r = subprocess.run(
        [str(binary / "nbgrader"), *args], cwd=course_dir, env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module")
def semester(toy_kit, lms, tmp_path_factory):
    pytest.importorskip("nbgrader")
    url, pem = lms
    root = tmp_path_factory.mktemp("semester")
    kit = _kit(toy_kit, root)
    nb = _notebooks(kit, root)
    course = _course_file(root, url, pem)
    env = {"AUTOGRADER_SECRET": "semester-secret", "SEMESTER_CANVAS_TOKEN": CANVAS_TOKEN}
    old = {k: os.environ.get(k) for k in (*env, "AUTOGRADER_SECRET_FILE")}
    os.environ.update(env)
    try:
        # toy: a Canvas download (LATE flags, a resubmission), then a folder of emailed notebooks
        canvas = _zip(
            root / "canvas.zip",
            [
                ("smithjohn_101_9001_toy.ipynb", nb["perfect"], utc(2026, 10, 1, 10)),
                ("mullerzoe_late_102_9002_toy.ipynb", nb["perfect"], utc(2026, 10, 2, 20)),
                ("obriaindara_late_103_9003_toy.ipynb", nb["blank"], utc(2026, 10, 2, 9)),
                ("obriaindara_late_103_9003_toy-1.ipynb", nb["answer_wrong"], utc(2026, 10, 2, 13)),
            ],
        )
        assert cli(course, kit, "grade", "toy", str(canvas)) == 0
        folder = root / "emailed"
        (folder / "alee").mkdir(parents=True)
        for dest, src, when in (
            (folder / "an@u.edu.ipynb", nb["later_wrong"], utc(2026, 10, 1, 9)),
            (folder / "alee" / "toy.ipynb", nb["perfect"], utc(2026, 10, 4, 12)),
        ):
            shutil.copy(src, dest)
            os.utime(dest, (when.timestamp(), when.timestamp()))
        assert cli(course, kit, "grade", "toy", str(folder), "--format", "folder") == 0
        # toy2: a Moodle download, then an nbgrader course, into the same results folder
        moodle = _zip(
            root / "moodle.zip",
            [
                ("John Smith_101_assignsubmission_file/toy2.ipynb", nb["perfect"], utc(2026, 10, 9, 6)),
                ("Zoë Müller_102_assignsubmission_file/toy2.ipynb", nb["later_wrong"], utc(2026, 10, 8, 10)),
                ("Văn An Nguyễn_104_assignsubmission_file/toy2.ipynb", nb["perfect"], utc(2026, 10, 10, 12)),
            ],
        )
        assert cli(course, kit, "grade", "toy2", str(moodle)) == 0
        nbg = root / "nbgrader"
        nbg.mkdir()
        assert cli(course, kit, "nbgrader", "source", "toy2", "--course", str(nbg)) == 0
        _nbgrader(nbg, "generate_assignment", "toy2", "--force")
        for student, src, stamp in (
            ("dobriain", nb["answer_wrong"], "2026-10-08 11:00:00.000000 UTC"),
            ("alee", nb["perfect"], "2026-10-10 00:00:00.000000 UTC"),
        ):
            d = nbg / "submitted" / student / "toy2"
            d.mkdir(parents=True)
            shutil.copy(src, d / "toy2.ipynb")
            (d / "timestamp.txt").write_text(stamp)
        assert cli(course, kit, "nbgrader", "grade", "toy2", "--course", str(nbg)) == 0
        # overrides named by roster ids: a login and a test's name, a SIS id and the whole score
        assert (
            cli(
                course,
                kit,
                "override",
                "toy",
                "dobriain",
                "--test",
                "ANSWER is right",
                "--score",
                "2",
                "--comment",
                "41 accepted: the question was ambiguous",
                "--by",
                "TA Kim",
            )
            == 0
        )
        assert (
            cli(
                course,
                kit,
                "override",
                "toy2",
                "S102",
                "--score",
                "9",
                "--comment",
                "regrade request",
                "--by",
                "TA Kim",
            )
            == 0
        )
        yield {"root": root, "kit": kit, "course": course, "out": root / "results", "url": url}
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))


def as_number(text: str) -> float | None:
    return float(text) if text else None


def test_every_export_has_the_grades_worked_out_by_hand(semester, capsys):
    s = semester
    for a in ("toy", "toy2"):
        want = {uid: float(v) for uid, v in EXPECTED[a].items()}
        assert cli(s["course"], s["kit"], "export", a, "--format", "canvas") == 0
        rows = read_csv(s["out"] / a / "canvas.csv")
        assert rows[0][-1].endswith(f"({42 if a == 'toy' else 43})")
        got = {r[1]: as_number(r[-1]) for r in rows[1:] if r[1] in NAMES}
        assert got == want and {r[1]: r[0] for r in rows[1:] if r[1] in NAMES} == NAMES
        assert len(rows) == 1 + len(NAMES) or rows[1][0] == "Points Possible"
        assert cli(s["course"], s["kit"], "export", a, "--format", "moodle") == 0
        rows = read_csv(s["out"] / a / "moodle.csv")
        by_email = {r[0]: as_number(r[2]) for r in rows[1:]}
        assert by_email == {EMAIL[u]: v for u, v in want.items()}
        assert cli(s["course"], s["kit"], "export", a, "--format", "json") == 0
        students = json.loads((s["out"] / a / "grades_export.json").read_text())["students"]
        assert {st["identity"]["lms_user_id"]: st["score"] for st in students} == want
        assert cli(s["course"], s["kit"], "export", a, "--format", "csv") == 0
        rows = read_csv(s["out"] / a / "grades_export.csv")
        i = rows[0].index("score")
        assert {r[0]: float(r[i]) for r in rows[1:]} == want
    err = capsys.readouterr().err
    assert "not on the roster" not in err and "names nobody" not in err and "blank:" not in err


def test_the_course_gradebook_lists_each_student_once(semester, capsys):
    s = semester
    assert cli(s["course"], s["kit"], "gradebook") == 0
    rows = read_csv(s["out"] / "course_gradebook.csv")
    assert len(rows) == 1 + len(NAMES)  # nobody twice, nobody "missing"
    head = rows[0]
    toy, toy2 = head.index("toy (10)"), head.index("toy2 (10)")
    got = {r[1]: (float(r[toy]), float(r[toy2]), float(r[head.index("total")])) for r in rows[1:]}
    assert got == {
        NAMES[u]: (EXPECTED["toy"][u], EXPECTED["toy2"][u], EXPECTED["toy"][u] + EXPECTED["toy2"][u]) for u in NAMES
    }
    assert cli(s["course"], s["kit"], "gradebook", "--format", "canvas") == 0
    rows = read_csv(s["out"] / "course_canvas.csv")
    c1 = next(i for i, h in enumerate(rows[0]) if h.endswith("(42)"))
    c2 = next(i for i, h in enumerate(rows[0]) if h.endswith("(43)"))
    got = {r[1]: (as_number(r[c1]), as_number(r[c2])) for r in rows[1:] if r[1] in NAMES}
    assert got == {u: (EXPECTED["toy"][u], EXPECTED["toy2"][u]) for u in NAMES}
    assert cli(s["course"], s["kit"], "gradebook", "--format", "moodle") == 0
    rows = read_csv(s["out"] / "course_moodle.csv")
    assert len(rows) == 1 + len(NAMES)
    assert "not on the roster" not in capsys.readouterr().err


def test_both_passbacks_write_the_same_grades(semester, capsys):
    s = semester
    # Canvas and LTI are both configured: a passback names its target, and says where it writes
    assert cli(s["course"], s["kit"], "passback", "toy", "--dry-run") == 2
    assert "--to canvas or --to lti" in capsys.readouterr().err
    assert cli(s["course"], s["kit"], "passback", "toy", "--dry-run", "--to", "lti") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"would write to: LTI 1.3 line item {s['url']}/lti/lineitems/1 ")
    assert "would send: user lti-102: 10/10; comment: Score: 10/10." in out and "{" not in out
    assert not Recorder.lti and not Recorder.canvas  # a dry run sends nothing
    for a, canvas_id, lineitem in (("toy", "42", "/lti/lineitems/1"), ("toy2", "43", "/lti/lineitems/2")):
        assert cli(s["course"], s["kit"], "passback", a, "--to", "canvas") == 0
        out = capsys.readouterr().out
        assert out.startswith(f"writing to: Canvas assignment {s['url']}/courses/7/assignments/{canvas_id} ")
        posted = {u: float(d["posted_grade"]) for u, d in Recorder.canvas[canvas_id].items()}
        assert posted == {u: v * CANVAS_POINTS / 10 for u, v in EXPECTED[a].items()}
        comments = {u: d["text_comment"] for u, d in Recorder.canvas[canvas_id].items()}
        assert all(re.match(r"Score: [\d.]+/20 \([\d.]+/10 in the grader's points\)\.", c) for c in comments.values())
        assert cli(s["course"], s["kit"], "passback", a, "--to", "lti") == 0
        assert capsys.readouterr().out.startswith(f"writing to: LTI 1.3 line item {s['url']}{lineitem} ")
        sent = {b["userId"]: (b["scoreGiven"], b["scoreMaximum"]) for b in Recorder.lti[lineitem]}
        assert sent == {f"lti-{u}": (float(v), 10.0) for u, v in EXPECTED[a].items()}
    assert "Late: submitted 1 d 1 h after the due date" in Recorder.canvas["42"]["103"]["text_comment"]
    assert "Total set to 9 by TA Kim: regrade request." in Recorder.canvas["43"]["102"]["text_comment"]


@needs_chromium
def test_report_and_feedback_pages_render_in_headless_chromium(semester, tmp_path):
    import matplotlib.image

    s = semester
    assert cli(s["course"], s["kit"], "report", "toy") == 0
    assert cli(s["course"], s["kit"], "feedback", "toy") == 0
    report = render(s["out"] / "toy" / "report.html", tmp_path / "report.png", 1280, 2000)
    for name in NAMES.values():
        assert name in report
    assert "Instructor override of the total" not in report
    pages = {p.stem: p for p in (s["out"] / "toy" / "feedback").glob("*.html")}
    perfect = next(p for sid, p in pages.items() if "101" in sid)
    failing = pages["104"]  # `an@u.edu.ipynb` of the emailed folder, under its student's own id
    for page in (perfect, failing):
        dom = render(page, tmp_path / f"{page.stem}.png", 1280, 1400)
        img = matplotlib.image.imread(tmp_path / f"{page.stem}.png")
        assert img[..., :3].std() > 0.05  # not a blank page
        text = re.sub(r"<[^>]+>", " ", dom.split("<body")[1])  # what a student reads
        assert "skipped" not in text and ("not run here" in text or torch.cuda.is_available())
        exercises = dom.split('<table id="exercises">')[1].split("</table>")[0]
        assert re.findall(r"<tr>\s*<td>(\w+)</td>", exercises) == ["double", "later"]  # notebook order
    dom = failing.read_text()
    assert "Nguyễn, Văn An" in dom and "later() (defined after a slow cell) works" in dom
    assert re.search(r"later\s*</td>\s*<td class=\"num\">0 / 2</td>", dom)
