"""LTI 1.3 AGS score publishing against a local platform that verifies the RS256 client assertion."""

import json
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.lms.lti import LtiTool, publish_scores, scores_url
from tests.grades.factory import grader_failure, result


def keypair():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem, key.public_key()


class Platform(BaseHTTPRequestHandler):
    public_key = None
    scores: list = []
    assertions: list = []
    issued = "tok-" + "x" * 16

    def log_message(self, *a):
        pass

    def _reply(self, code, body=None):
        data = json.dumps(body or {}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        url = urlparse(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        token_url = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        if url.path == "/token":
            form = {k: v[0] for k, v in parse_qs(body).items()}
            if (
                form.get("grant_type") != "client_credentials"
                or form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
            ):
                return self._reply(400, {"error": "invalid_request"})
            try:
                claims = jwt.decode(
                    form["client_assertion"],
                    type(self).public_key,
                    algorithms=["RS256"],
                    audience=token_url,
                    options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]},
                )
            except jwt.PyJWTError as e:
                return self._reply(401, {"error": "invalid_client", "error_description": str(e)})
            if claims["iss"] != "tool-123" or claims["sub"] != "tool-123":
                return self._reply(401, {"error": "invalid_client"})
            type(self).assertions.append((jwt.get_unverified_header(form["client_assertion"]), form["scope"]))
            return self._reply(
                200, {"access_token": self.issued, "token_type": "Bearer", "expires_in": 3600, "scope": form["scope"]}
            )
        if url.path == "/courses/5/lineitems/9/scores" and parse_qs(url.query) == {"type_id": ["1"]}:
            if self.headers.get("Authorization") != f"Bearer {self.issued}":
                return self._reply(401)
            if self.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
                return self._reply(415)
            score = json.loads(body)
            if score["userId"] == "lti-user-bad":
                return self._reply(422, {"error": "unknown user"})
            type(self).scores.append(score)
            return self._reply(200, {"resultUrl": "x"})
        return self._reply(404)


@pytest.fixture
def platform():
    pem, pub = keypair()
    Platform.public_key, Platform.scores, Platform.assertions = pub, [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Platform)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pem
    server.shutdown()
    server.server_close()


def rows():
    res = [result("alice", (1, 1, 0.5, 1, 0)), result("bob"), grader_failure("carl"), result("dora")]
    ids = {
        "alice": Identity("a", "Alice", lti_user_id="lti-user-a"),
        "bob": Identity("b", lti_user_id="lti-user-bad"),
        "carl": Identity("c", lti_user_id="lti-user-c"),
        "dora": Identity("d", lms_user_id="4711"),
    }
    return grade_rows(res, ids)


def test_scores_url_keeps_query():
    assert (
        scores_url("https://lms.example/api/lti/courses/1/line_items/2?x=1")
        == "https://lms.example/api/lti/courses/1/line_items/2/scores?x=1"
    )


def test_publish_scores_with_signed_assertion(platform):
    base, pem = platform
    tool = LtiTool("tool-123", f"{base}/token", pem, kid="key-1")
    when = datetime(2026, 10, 2, 12, 0, tzinfo=timezone.utc)
    report = publish_scores(tool, f"{base}/courses/5/lineitems/9?type_id=1", rows(), timestamp=when)
    assert report.sent == ["lti-user-a"] and [u for u, _ in report.failed] == ["lti-user-bad"]
    assert len(report.skipped) == 2
    (score,) = Platform.scores
    assert score["userId"] == "lti-user-a" and score["scoreGiven"] == 7 and score["scoreMaximum"] == 10
    assert score["gradingProgress"] == "FullyGraded" and score["activityProgress"] == "Completed"
    assert score["timestamp"] == "2026-10-02T12:00:00.000Z" and score["comment"].startswith("Score: 7/10")
    ((header, scope),) = Platform.assertions  # one token for the whole batch
    assert header == {"alg": "RS256", "kid": "key-1", "typ": "JWT"}
    assert scope == "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def test_wrong_key_is_rejected(platform):
    base, _ = platform
    other, _ = keypair()
    from autograder.lms.lti import LtiError

    with pytest.raises(LtiError, match="HTTP 401"):
        publish_scores(LtiTool("tool-123", f"{base}/token", other), f"{base}/courses/5/lineitems/9?type_id=1", rows())
    assert Platform.scores == []


def test_dry_run(platform):
    base, pem = platform
    report = publish_scores(LtiTool("tool-123", f"{base}/token", pem), f"{base}/x", rows(), dry_run=True)
    assert [p["userId"] for p in report.planned] == ["lti-user-a", "lti-user-bad"] and Platform.assertions == []


def test_user_id_is_the_rosters_lti_sub_never_the_canvas_id(platform, tmp_path):
    """Roster column `LTI User ID` -> AGS userId; a student with only a Canvas id is skipped with the reason."""
    from autograder.intake.roster import Roster, match_roster

    base, pem = platform
    (tmp_path / "roster.csv").write_text("Student,ID,LTI User ID\nAlice,101,6f1c-sub-a\nDora,104,\n")
    found = {"alice": Identity("101", "alice", lms_user_id="101"), "dora": Identity("104", "dora", lms_user_id="104")}
    match = match_roster(found, Roster.read_csv(tmp_path / "roster.csv"))
    rows_ = grade_rows([result("alice"), result("dora")], match.matched)
    report = publish_scores(LtiTool("tool-123", f"{base}/token", pem), f"{base}/courses/5/lineitems/9?type_id=1", rows_)
    assert report.sent == ["6f1c-sub-a"] and [s["userId"] for s in Platform.scores] == ["6f1c-sub-a"]
    assert report.skipped == ["dora: no LTI user id (roster column lti_user_id)"]
