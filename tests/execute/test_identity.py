"""Worker uids (`autograder/execute/identity.py`): leased host-wide, never two holders, freed with their holder."""

from __future__ import annotations

import os
import signal

import pytest

from autograder.execute import identity

pytestmark = pytest.mark.skipif(not identity.available(), reason="uids are leased only by root")


def test_a_killed_holders_uid_is_free_at_once_and_its_file_pruned():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        lease = identity.lease()
        os.write(w, str(lease.uid).encode())
        os.close(w)
        signal.pause()
        os._exit(0)
    os.close(w)
    uid = int(os.read(r, 64))
    os.close(r)
    path = identity._folder() / str(uid)
    assert path.exists()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert identity.prune() >= 1 and not path.exists()


def test_a_given_back_uid_held_by_the_sandbox_is_removed_once_free():
    lease = identity.lease()
    held_by_sandbox = os.dup(lease.fd)  # as the zygote's intermediate process holds it
    lease.release()
    path = identity._folder() / str(lease.uid)
    assert path.exists() and path in identity._unsettled  # still held: not free, not removed
    others = [identity.lease() for _ in range(20)]
    assert lease.uid not in {le.uid for le in others}
    for le in others:
        le.release()
    os.close(held_by_sandbox)  # the worker's last process is gone
    identity.settle()
    assert not path.exists() and path not in identity._unsettled


def test_the_sandbox_names_the_uid_nobody():
    text = identity.accounts(identity.BASE + 7, identity.BASE + 7)
    assert text["/etc/passwd"].splitlines()[1].startswith(f"nobody:x:{identity.BASE + 7}:{identity.BASE + 7}:")
    assert text["/etc/group"].splitlines() == ["root:x:0:", f"nogroup:x:{identity.BASE + 7}:"]
    with pytest.raises(ValueError):
        identity.become(0, 0)  # never root, never a uid outside the range


def test_the_static_accounts_are_the_same_accounts_for_nobody():
    """The zygote and a sandbox without root bind the package's etc/passwd and etc/group: the same two
    accounts `accounts` writes for a worker's own uid, for 65534."""
    from pathlib import Path

    import autograder.execute

    etc = Path(autograder.execute.__file__).parent / "etc"
    shown = identity.accounts(identity.NOBODY, identity.NOBODY)
    assert (etc / "passwd").read_text().strip() == shown["/etc/passwd"].strip()
    assert (etc / "group").read_text().strip() == shown["/etc/group"].strip()
