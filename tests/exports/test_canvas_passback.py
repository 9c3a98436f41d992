"""Canvas passback via canvasapi against a local Canvas stand-in on 127.0.0.1."""
import json
import re
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlparse

import pytest

from autograder.intake.roster import Identity
from autograder.lms.canvas_api import passback, plan
from autograder.report.exports import grade_rows
from tests.exports.factory import grader_failure, result

TOKEN = "test-token-123"


class FakeCanvas(BaseHTTPRequestHandler):
    """The endpoints canvasapi calls: course, assignment, submission (GET and PUT)."""

    enrolled = {"101", "102"}
    calls: list = []
    grades: dict = {}

    def log_message(self, *a):
        pass

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        if code == 401:   # as Canvas does for a bad token
            self.send_header("WWW-Authenticate", 'Bearer realm="canvas-lms"')
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method):
        path = urlparse(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        type(self).calls.append((method, path, body))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, {"errors": [{"message": "Invalid access token."}]})
        if method == "GET" and path == "/api/v1/courses/7":
            return self._send(200, {"id": 7, "name": "Deep Learning"})
        if method == "GET" and path == "/api/v1/courses/7/assignments/42":
            return self._send(200, {"id": 42, "course_id": 7, "name": "HW1", "points_possible": 20.0})
        m = re.fullmatch(r"/api/v1/courses/7/assignments/42/submissions/(\w+)", path)
        if m and m[1] in self.enrolled:
            uid = m[1]
            if method == "GET":
                return self._send(200, {"id": 900 + int(uid), "user_id": int(uid), "assignment_id": 42,
                                        "score": type(self).grades.get(uid, {}).get("score")})
            if method == "PUT":
                form = dict(parse_qsl(body))
                score = float(form["submission[posted_grade]"])
                type(self).grades[uid] = {"score": score, "comment": form.get("comment[text_comment]")}
                return self._send(200, {"id": 900 + int(uid), "user_id": int(uid), "assignment_id": 42,
                                        "score": score, "grade": f"{score:g}"})
        return self._send(404, {"errors": [{"message": "The specified resource does not exist."}]})

    def do_GET(self):
        self._route("GET")

    def do_PUT(self):
        self._route("PUT")


@pytest.fixture
def canvas_server():
    FakeCanvas.calls, FakeCanvas.grades = [], {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeCanvas)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def rows():
    results = [result("alice", (1, 1, 0.5, 1, 0)), result("bob"), result("carol"), grader_failure("dan"),
               result("eve")]
    ids = {"alice": Identity("101", "Alice", lms_user_id="101"), "bob": Identity("102", "Bob", lms_user_id="102"),
           "carol": Identity("103", "Carol", lms_user_id="103"), "dan": Identity("104", "Dan", lms_user_id="104"),
           "eve": Identity("eve", "Eve")}
    return grade_rows(results, ids)


def test_dry_run_sends_nothing(canvas_server):
    report = passback(rows(), base_url=canvas_server, token=TOKEN, course_id=7, assignment_id=42, dry_run=True)
    assert FakeCanvas.calls == []
    text = "\n".join(report.lines())
    assert "would send: user 101 (alice): 7/10" in text and "Not passed" in text
    assert "skipped: dan: not gradable (grader failure)" in text and "skipped: eve: no Canvas user id" in text


def test_passback_posts_scaled_scores_and_comments(canvas_server):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # canvasapi warns about http:// base URLs
        report = passback(rows(), base_url=canvas_server, token=TOKEN, course_id=7, assignment_id=42)
    assert report.sent == [("101", 14.0), ("102", 20.0)]            # scaled to points_possible 20
    assert [u for u, _ in report.failed] == ["103"]                 # not enrolled: reported, others still sent
    assert FakeCanvas.grades["101"]["score"] == 14.0
    assert FakeCanvas.grades["101"]["comment"].startswith("Score: 7/10.")
    puts = [c for c in FakeCanvas.calls if c[0] == "PUT"]
    assert len(puts) == 2 and all("/submissions/10" in c[1] for c in puts)


def test_bad_token_fails_loudly(canvas_server):
    from canvasapi.exceptions import InvalidAccessToken

    with warnings.catch_warnings(), pytest.raises(InvalidAccessToken):
        warnings.simplefilter("ignore")
        passback(rows(), base_url=canvas_server, token="wrong", course_id=7, assignment_id=42)


def test_plan_without_comments():
    assert all(p.comment == "" for p in plan(rows(), comments=False).planned)
