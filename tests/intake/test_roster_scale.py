"""Matching a class to its roster is linear: each identity key is looked up in an index, never compared
with every roster row (a 1,000-submission class opened in the workspace waits for this)."""

from __future__ import annotations

import time

import pytest

from autograder.intake.roster import Identity, Roster, match_roster

pytestmark = pytest.mark.serial  # matching a large roster within seconds, measured


def _class(n: int) -> tuple[Roster, dict[str, Identity]]:
    # names unique once normalised (letters sorted: no two are anagrams)
    roster = Roster(
        [
            Identity(
                f"{i}",
                "Jo" + "n" * (i % 100) + " Sm" + "i" * (i // 100),
                email=f"s{i}@uni.edu",
                sis_id=f"SIS{i}",
                login_id=f"login{i}",
                lms_user_id=f"{i}",
            )
            for i in range(n)
        ]
    )
    found = {}
    for i in range(n):  # every kind of key: the LMS id, the email only, the login only, the name only
        kind = i % 4
        found[f"sub{i}"] = (
            Identity(f"x{i}", lms_user_id=f"{i}")
            if kind == 0
            else Identity(f"x{i}", email=f"S{i}@UNI.EDU ")
            if kind == 1
            else Identity(f"x{i}", login_id=f"LOGIN{i}")
            if kind == 2
            else Identity(f"x{i}", name=roster.students[i].name.upper())
        )
    return roster, found


def test_matching_5000_against_5000_is_linear():
    roster, found = _class(5000)
    start = time.perf_counter()
    m = match_roster(found, roster)
    took = time.perf_counter() - start
    assert not m.unmatched and not m.duplicates and not m.missing
    assert all(m.matched[f"sub{i}"].sis_id == f"SIS{i}" for i in range(5000))
    assert took < 3.0, f"matching 5,000 against 5,000 took {took:.1f} s: compared with every row?"  # linear: ~0.05 s


def test_index_keeps_the_rules():
    a, b = Identity("1", "Ann Lee", email="ann@u.edu"), Identity("2", "Lee Ann", email="ann2@u.edu")
    roster = Roster([a, b])
    assert roster.match(Identity("z", name="ann lee")) is None  # a name two students share names nobody
    assert roster.match(Identity("z", email=" ANN2@u.edu")) is b
    assert roster.find("ANN@U.EDU") is a and roster.find("") is None
    c = Identity("3", "Cy", email="ann@u.edu")  # an id two students share: `find` refuses,
    roster.students.append(c)  # `match` takes the first, as listed
    assert roster.find("ann@u.edu") is None and roster.match(Identity("z", email="ann@u.edu")) is a
    assert roster.match(Identity("z", name="Cy")) is c  # the index follows a changed roster


def test_rosters_and_identities_are_read_again_when_the_file_changes(tmp_path):
    import os

    from autograder.intake.roster import read_identities, write_identities

    path = tmp_path / "roster.csv"
    path.write_text("student_id,name\n1,Ann\n")
    first = Roster.read_csv(path)
    first.students.append(Identity("9", "Extra"))  # a caller's change stays the caller's
    assert [s.name for s in Roster.read_csv(path).students] == ["Ann"]
    path.write_text("student_id,name\n2,Bob\n")  # the same size, written in place
    os.utime(path, ns=(1, 1))
    assert Roster.read_csv(path).find("2").name == "Bob" and Roster.read_csv(path).find("1") is None
    ids = tmp_path / "identities.json"
    write_identities(ids, {"s1": Identity("1", "Ann")})
    read_identities(ids)["s2"] = Identity("2")
    assert list(read_identities(ids)) == ["s1"]
    write_identities(ids, {"s1": Identity("1", "Ann"), "s3": Identity("3", "Cy")})
    assert list(read_identities(ids)) == ["s1", "s3"] and read_identities(tmp_path / "none.json") == {}
