"""The read door: regular files only, refused without blocking, bounded in memory whatever the newlines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.hang import without_hanging
from tipc.files import read


def _fifo(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "f")
    return tmp_path / "f"


def _dev_zero_link(tmp_path: Path) -> Path:
    (tmp_path / "f").symlink_to("/dev/zero")
    return tmp_path / "f"


def _directory(tmp_path: Path) -> Path:
    (tmp_path / "f").mkdir()
    return tmp_path / "f"


KINDS = [(_fifo, "a FIFO (named pipe)"), (_dev_zero_link, "a character device"), (_directory, "a directory")]
KIND_IDS = ["fifo", "dev-zero-link", "directory"]
READERS = [
    lambda p: read.read_bytes(p, 100),
    lambda p: list(read.lines(p)),
    lambda p: read.tail(p, 100),
    lambda p: read.contains(p, b"x"),
    lambda p: list(read.numbered_lines(p, 100)),
]
READER_IDS = ["read_bytes", "lines", "tail", "contains", "numbered_lines"]


@pytest.mark.parametrize(("make", "kind"), KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("reader", READERS, ids=READER_IDS)
def test_anything_but_a_regular_file_is_refused_at_once(tmp_path, make, kind, reader):
    error = without_hanging(lambda: reader(make(tmp_path)))
    assert isinstance(error, read.Refused) and isinstance(error, OSError)
    assert error.strerror == f"is {kind}"


def test_a_whole_read_is_bounded(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 101)
    with pytest.raises(read.TooLarge, match="is 101 bytes, over the limit of 100 bytes"):
        read.read_bytes(tmp_path / "f", 100)
    assert read.read_bytes(tmp_path / "f", 101) == b"x" * 101


@pytest.mark.parametrize(
    ("data", "max_line", "pieces"),
    [
        (b"a\nbb\n", 10, [b"a\n", b"bb\n"]),
        (b"a\nbb", 10, [b"a\n", b"bb"]),
        (b"x" * 25, 10, [b"x" * 10, b"x" * 10, b"x" * 5]),
        (b"x" * 12 + b"\ny\n", 10, [b"x" * 10, b"xx\n", b"y\n"]),
        (b"", 10, []),
    ],
    ids=["lines", "no-final-newline", "one-long-line", "long-then-short", "empty"],
)
def test_lines_come_in_pieces_of_at_most_max_line(tmp_path, data, max_line, pieces):
    (tmp_path / "f").write_bytes(data)
    assert list(read.lines(tmp_path / "f", max_line=max_line)) == pieces
    assert b"".join(read.split_lines([data[i : i + 3] for i in range(0, len(data), 3)], max_line)) == data


def test_a_long_line_without_newline_is_streamed_in_bounded_memory(tmp_path):
    """256 MiB of stage output without a newline: pieces of ``MAX_LINE``, never the whole line."""
    path = tmp_path / "train.log"
    with open(path, "wb") as f:
        f.truncate(256 << 20)  # sparse: costs no disk
    longest = count = 0
    for piece in read.lines(path):
        longest, count = max(longest, len(piece)), count + 1
    assert longest == read.MAX_LINE and count == (256 << 20) // read.MAX_LINE


def test_a_stream_stops_at_the_size_the_file_had_when_opened(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"a\nb\n")
    with open(path, "ab") as grow:
        seen = []
        for piece in read.lines(path):
            seen.append(piece)
            grow.write(b"more\n" * 10_000)
            grow.flush()
    assert seen == [b"a\n", b"b\n"]


def test_numbered_lines_say_which_line_was_too_long(tmp_path):
    (tmp_path / "f").write_bytes(b"a\n" + b"x" * 50 + b"\nb\n" + b"y" * 50)
    assert list(read.numbered_lines(tmp_path / "f", 10)) == [(1, b"a"), (2, None), (3, b"b"), (4, None)]


@pytest.mark.parametrize(
    ("raw", "message"),
    [(b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b"\xff", "utf-8"), (b"{", "Expecting")],
    ids=["deep", "not-utf8", "torn"],
)
def test_json_of_raises_value_errors_only(raw, message):
    with pytest.raises(ValueError, match=message):
        read.json_of(raw)


def test_inside_resolves_links_and_dotdot(tmp_path):
    root = tmp_path / "run"
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "out").symlink_to("/etc")
    assert read.inside(root / "logs" / "a.log", [root])
    assert not read.inside(root / "logs" / ".." / ".." / "x", [root])
    assert not read.inside(root / "logs" / "out" / "passwd", [root])
    assert not read.inside("/etc/passwd", [root, tmp_path / "other"])
