"""Attack class 3: filling the disk.

A worker's work folder, /tmp and /dev/shm are one tmpfs of `disk_mb` MiB and `files` inodes
(defaults: 512 MiB, 10,000; `autograder/execute/disk.py`).  Each attack sits between `double`
and `ANSWER`, so the honest credit earned before and after it must stay (10/10); the cell that
hits the limit ends with an error that says which limit, and nothing reaches the host (the
batch's leftover checks, `test_nothing_left_behind`).
"""

from __future__ import annotations

from tests.attacks.corpus import FULL, Attack, cell_statuses, has_text, nb

BYTES = "the notebook wrote more than 512 MiB to disk"
FILES = "the notebook created more than 10000 files on disk"
CHUNK = "chunk = b'x' * (15 * 2**20)\n"  # under file_mb (16) of toy_attacks: only the total stops it


def attacks() -> list[Attack]:
    A = Attack
    return [
        A(
            "disk_bytes_cwd",
            "writes 15 MB files in its work folder until 3 GB",
            nb("disk_bytes_cwd", insert={3: CHUNK + "for i in range(200):\n    open(f'fill{i}', 'wb').write(chunk)"}),
            FULL,
            "graded",
            checks=[cell_statuses("error"), has_text(BYTES)],
        ),
        A(
            "disk_inode_bomb",
            "creates 200,000 empty files, then 200,000 folders",
            nb(
                "disk_inode_bomb",
                insert={
                    3: [
                        "for i in range(200_000):\n    open(f'f{i}', 'w').close()",
                        "import os\nfor n in os.listdir('.'):\n    if n.startswith('f'):\n        os.remove(n)\n"  # folders next
                        "for i in range(200_000):\n    os.mkdir(f'/tmp/d{i}')",
                    ]
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error", "error"), has_text(FILES)],
        ),
        A(
            "disk_tmp_and_shm_fill",
            "fills /dev/shm, then /tmp, with 15 MB files (3 GB each)",
            nb(
                "disk_tmp_and_shm_fill",
                insert={
                    3: [
                        CHUNK + "for i in range(200):\n    open(f'/dev/shm/fill{i}', 'wb').write(chunk)",
                        CHUNK + "for i in range(200):\n    open(f'/tmp/fill{i}', 'wb').write(chunk)",
                    ]
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error", "error"), has_text(BYTES)],
        ),
        A(
            "disk_sparse_then_fill",
            "makes 100 sparse 15 MB files (free until written), then writes them full",
            nb(
                "disk_sparse_then_fill",
                insert={
                    3: (
                        CHUNK
                        + "for i in range(100):\n    with open(f'sparse{i}', 'wb') as f:\n        f.truncate(len(chunk))\n"
                        "for i in range(100):\n    with open(f'sparse{i}', 'r+b') as f:\n        f.write(chunk)"
                    )
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error"), has_text(BYTES)],
        ),
        A(
            "disk_spread",
            "writes 200 MB to each of its work folder, /tmp and /dev/shm (under any one-place limit)",
            nb(
                "disk_spread",
                insert={
                    3: (
                        CHUNK + "for where in ('.', '/tmp', '/dev/shm'):\n    for i in range(14):\n"
                        "        open(f'{where}/part{i}', 'wb').write(chunk)"
                    )
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error"), has_text(BYTES)],
        ),
        A(
            "disk_catch_and_go_on",
            "fills the disk, catches the error, deletes everything and writes again",
            nb(
                "disk_catch_and_go_on",
                insert={
                    3: (
                        CHUNK
                        + "import os\ntry:\n    for i in range(200):\n        open(f'fill{i}', 'wb').write(chunk)\n"
                        "except OSError:\n    pass\nfor i in range(200):\n    if os.path.exists(f'fill{i}'):\n        os.remove(f'fill{i}')\n"
                        "for i in range(20):\n    open(f'again{i}', 'wb').write(chunk)"
                    )
                },
            ),
            FULL,
            "graded",
        ),
    ]
