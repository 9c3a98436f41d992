"""Canvas passback via canvasapi against a local Canvas stand-in on 127.0.0.1."""

import json
import re
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlparse

import pytest

from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.lms.canvas_api import passback, plan
from tests.grades.factory import grader_failure, result

TOKEN = "test-token-123"


class FakeCanvas(BaseHTTPRequestHandler):
    """The endpoints canvasapi calls: course, assignment, the submissions list (two pages, with
    comments), the bulk `update_grades` job and its Progress (queued, then running, then completed)."""

    enrolled = ("101", "102")
    calls: list = []
    grades: dict = {}  # uid -> score
    comments: dict = {}  # uid -> [comment texts]
    jobs: dict = {}  # progress id -> [polls left, grade_data]

    def log_message(self, *a):
        pass

    def _send(self, code, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(code)
        if code == 401:  # as Canvas does for a bad token
            self.send_header("WWW-Authenticate", 'Bearer realm="canvas-lms"')
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _submission(self, uid):
        return {
            "id": 900 + int(uid),
            "user_id": int(uid),
            "assignment_id": 42,
            "score": self.grades.get(uid),
            "submission_comments": [{"comment": c} for c in self.comments.get(uid, [])],
            "user": {"id": int(uid), "sis_user_id": f"S{uid}"},
        }

    def _route(self, method):
        url = urlparse(self.path)
        path, query = url.path, dict(parse_qsl(url.query))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        type(self).calls.append((method, path, body))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, {"errors": [{"message": "Invalid access token."}]})
        if method == "GET" and path == "/api/v1/courses/7":
            return self._send(200, {"id": 7, "name": "Deep Learning"})
        if method == "GET" and path == "/api/v1/courses/7/assignments/42":
            return self._send(200, {"id": 42, "course_id": 7, "name": "HW1", "points_possible": 20.0})
        if method == "GET" and path == "/api/v1/courses/7/assignments/42/submissions":
            page = int(query.get("page", 1))
            links = ()
            if page == 1:
                nxt = f"http://{self.headers['Host']}{path}?page=2"
                links = (("Link", f'<{nxt}>; rel="next"'),)
            return self._send(200, [self._submission(self.enrolled[page - 1])], links)
        if method == "POST" and path == "/api/v1/courses/7/assignments/42/submissions/update_grades":
            data = {}
            for k, v in parse_qsl(body):
                m = re.fullmatch(r"grade_data\[(\w+)\]\[(\w+)\]", k)
                data.setdefault(m[1], {})[m[2]] = v
            pid = str(len(self.jobs) + 1)
            type(self).jobs[pid] = [2, data]
            return self._send(200, {"id": int(pid), "workflow_state": "queued", "url": f"/api/v1/progress/{pid}"})
        m = re.fullmatch(r"/api/v1/progress/(\d+)", path)
        if method == "GET" and m:
            job = self.jobs[m[1]]
            job[0] -= 1
            if job[0] > 0:
                return self._send(200, {"id": int(m[1]), "workflow_state": "running"})
            for uid, _d in job[1].items():
                if uid not in self.enrolled:
                    return self._send(200, {"id": int(m[1]), "workflow_state": "failed", "message": f"no user {uid}"})
            for uid, d in job[1].items():
                if "posted_grade" in d:
                    type(self).grades[uid] = float(d["posted_grade"])
                if "text_comment" in d:
                    type(self).comments.setdefault(uid, []).append(d["text_comment"])
            return self._send(200, {"id": int(m[1]), "workflow_state": "completed"})
        return self._send(404, {"errors": [{"message": "The specified resource does not exist."}]})

    def do_GET(self):
        self._route("GET")

    def do_PUT(self):
        self._route("PUT")

    def do_POST(self):
        self._route("POST")


@pytest.fixture
def canvas_server():
    FakeCanvas.calls, FakeCanvas.grades, FakeCanvas.comments, FakeCanvas.jobs = [], {}, {}, {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeCanvas)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def rows():
    results = [result("alice", (1, 1, 0.5, 1, 0)), result("bob"), result("carol"), grader_failure("dan"), result("eve")]
    ids = {
        "alice": Identity("101", "Alice", lms_user_id="101"),
        "bob": Identity("102", "Bob", lms_user_id="102"),
        "carol": Identity("103", "Carol", lms_user_id="103"),
        "dan": Identity("104", "Dan", lms_user_id="104"),
        "eve": Identity("eve", "Eve"),
    }
    return grade_rows(results, ids)


def test_dry_run_sends_nothing(canvas_server):
    report = passback(rows(), base_url=canvas_server, token=TOKEN, course_id=7, assignment_id=42, dry_run=True)
    assert FakeCanvas.calls == []
    text = "\n".join(report.lines())
    assert "would send: user 101 (alice): 7/10" in text and "Not passed" in text
    assert "skipped: dan: not graded: the grader itself failed" in text and "skipped: eve: no Canvas user id" in text


def _passback(url, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # canvasapi warns about http:// base URLs
        return passback(rows(), base_url=url, token=TOKEN, course_id=7, assignment_id=42, poll_seconds=0.01, **kw)


def _writes():
    return [c for c in FakeCanvas.calls if c[0] in ("POST", "PUT")]


def test_passback_posts_scaled_scores_and_comments_in_one_bulk_job(canvas_server):
    report = _passback(canvas_server)
    assert sorted(report.sent) == [("101", 14.0), ("102", 20.0)]  # scaled to points_possible 20
    assert [u for u, _ in report.failed] == ["103"]  # not enrolled: reported, never created
    assert FakeCanvas.grades == {"101": 14.0, "102": 20.0}
    comment = FakeCanvas.comments["101"][0]
    assert comment.startswith("Score: 14/20 (7/10 in the grader's points).")  # agrees with the posted grade
    assert len(_writes()) == 1 and _writes()[0][1].endswith("/update_grades")  # one bulk request
    assert sum(1 for c in FakeCanvas.calls if c[1].startswith("/api/v1/progress/")) >= 2  # polled to the end


def test_rerun_is_idempotent(canvas_server):
    _passback(canvas_server)
    writes, comments = len(_writes()), {u: list(c) for u, c in FakeCanvas.comments.items()}
    again = _passback(canvas_server)
    assert len(_writes()) == writes and FakeCanvas.comments == comments  # nothing sent, no duplicate comment
    assert sorted(again.unchanged) == ["101", "102"] and again.sent == []


def test_changed_grade_is_sent_with_its_new_comment(canvas_server):
    _passback(canvas_server)
    FakeCanvas.grades["102"] = 3.0  # someone edited the grade in Canvas
    again = _passback(canvas_server)
    assert again.sent == [("102", 20.0)] and again.unchanged == ["101"]
    assert FakeCanvas.grades["102"] == 20.0 and len(FakeCanvas.comments["102"]) == 1  # same comment not re-posted


def test_bad_token_fails_loudly(canvas_server):
    from canvasapi.exceptions import InvalidAccessToken

    with warnings.catch_warnings(), pytest.raises(InvalidAccessToken):
        warnings.simplefilter("ignore")
        passback(rows(), base_url=canvas_server, token="wrong", course_id=7, assignment_id=42)


def test_plan_without_comments():
    assert all(p.comment == "" for p in plan(rows(), comments=False).planned)
