"""LTI 1.3 Assignment and Grade Services: publish scores to a line item.

Access token: OAuth 2 client credentials with a JWT client assertion (RFC 7523) signed
RS256 with the tool's private key (`kid` in the header so the platform finds the public
key in the tool's JWKS), scope `https://purl.imsglobal.org/spec/lti-ags/scope/score`.
Score: POST `{lineitem}/scores` (the path extended, any query string kept) with
`Content-Type: application/vnd.ims.lis.v1.score+json` and `userId`, `scoreGiven`,
`scoreMaximum`, `comment`, `timestamp`, `activityProgress: Completed`, and `gradingProgress`:
`FullyGraded` (the one platforms record as a final grade) once nothing is left to grade by hand,
`PendingManual` while an exercise graded by hand is not graded yet (`GradeRow.pending`), so that the LMS
never shows a half-graded score as final.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import urlsplit, urlunsplit

import requests

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_MEDIA_TYPE = "application/vnd.ims.lis.v1.score+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


class LtiError(RuntimeError):
    pass


def scores_url(lineitem: str) -> str:
    """`https://lms/x/lineitems/5?type_id=1` -> `https://lms/x/lineitems/5/scores?type_id=1`."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


@dataclass
class LtiTool:
    client_id: str
    token_url: str  # the platform's OAuth2 token endpoint
    private_key_pem: bytes  # the tool's RSA private key
    kid: str = ""  # key id published in the tool's JWKS
    audience: str | None = None  # defaults to token_url
    timeout: float = 30.0
    _token: tuple[str, float] | None = field(default=None, repr=False)

    def client_assertion(self) -> str:
        import jwt

        now = int(time.time())
        claims = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": self.audience or self.token_url,
            "iat": now,
            "exp": now + 300,
            "jti": uuid.uuid4().hex,
        }
        headers = {"kid": self.kid} if self.kid else None
        return jwt.encode(claims, self.private_key_pem, algorithm="RS256", headers=headers)

    def access_token(self, session: requests.Session | None = None) -> str:
        if self._token and self._token[1] > time.time() + 30:
            return self._token[0]
        http = session or requests
        resp = http.post(
            self.token_url,
            data={
                "grant_type": "client_credentials",
                "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": self.client_assertion(),
                "scope": SCORE_SCOPE,
            },
            timeout=self.timeout,
        )
        if resp.status_code != 200:
            raise LtiError(f"token request failed: HTTP {resp.status_code}: {resp.text[:300]}")
        data = resp.json()
        self._token = (data["access_token"], time.time() + float(data.get("expires_in", 3600)))
        return self._token[0]


def score_payload(
    user_id: str,
    score: float,
    max_score: float,
    comment: str = "",
    timestamp: datetime | None = None,
    pending: bool = False,
) -> dict:
    ts = (timestamp or datetime.now(timezone.utc)).astimezone(timezone.utc)
    body = {
        "userId": user_id,
        "scoreGiven": score,
        "scoreMaximum": max_score,
        "timestamp": ts.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "activityProgress": "Completed",
        "gradingProgress": "PendingManual" if pending else "FullyGraded",
    }
    if comment:
        body["comment"] = comment
    return body


@dataclass
class AgsReport:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    planned: list[dict] = field(default_factory=list)  # the payloads (what a dry run shows)

    def lines(self, dry_run: bool) -> list[tuple[str, bool]]:
        """(line, is an error) for a terminal: what was (or would be) sent, failed and skipped."""
        out = (
            [
                (
                    f"would send: user {b['userId']}: {b['scoreGiven']:g}/{b['scoreMaximum']:g}"
                    f"{' (' + b['gradingProgress'] + ')' if b['gradingProgress'] != 'FullyGraded' else ''}; comment: "
                    f"{b.get('comment', '')[:120]}",
                    False,
                )
                for b in self.planned
            ]
            if dry_run
            else []
        )
        out += [(f"sent: user {u}", False) for u in self.sent]
        out += [(f"FAILED: user {u}: {e}", True) for u, e in self.failed]
        return out + [(f"skipped: {s}", False) for s in self.skipped]


def publish_scores(
    tool: LtiTool,
    lineitem: str,
    rows,
    *,
    dry_run: bool = False,
    timestamp: datetime | None = None,
    missing: str = "blank",
) -> AgsReport:
    """One score per row (`rows.GradeRow`) the export policy gives a grade (`GradeRow.export_score`).
    `userId` is the identity's `lti_user_id` (the platform's `sub`, from the roster): a row without one is
    skipped, never sent under another id."""
    report = AgsReport()
    full = max((r.max_score for r in rows if r.max_score), default=None)
    for row in rows:
        uid = row.identity.lti_user_id
        score, max_score = row.export_score(missing), row.max_score or full
        if score is None or max_score is None or not uid:
            report.skipped.append(
                f"{row.submission_id or row.identity.student_id}: "
                + (
                    "no LTI user id (roster column lti_user_id)"
                    if not uid
                    else row.blank_reason or "no points possible known"
                )
            )
            continue
        report.planned.append(score_payload(uid, score, max_score, row.comment(), timestamp, pending=bool(row.pending)))
    if dry_run or not report.planned:
        return report
    url = scores_url(lineitem)
    with requests.Session() as s:
        token = tool.access_token(s)
        for body in report.planned:
            resp = s.post(
                url,
                data=json.dumps(body),
                timeout=tool.timeout,
                headers={"Authorization": f"Bearer {token}", "Content-Type": SCORE_MEDIA_TYPE},
            )
            if resp.status_code in (200, 201, 202, 204):
                report.sent.append(body["userId"])
            else:
                report.failed.append((body["userId"], f"HTTP {resp.status_code}: {resp.text[:200]}"))
    return report
