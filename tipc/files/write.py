"""The one door for writing: names made from input, kept under their root, and errors that name the path.

Every path tipc derives from input (a ``model_name``, a mode, a precision, a run id from a
``run.json``) is made one component at a time by ``component(name_part(value))``:

* ``%``, ``/`` and control characters are percent-escaped (``%25``, ``%2F``, ``%1B``): a value cannot
  add or climb a directory level, nor put an escape sequence into a listing, and two distinct values
  never share a name (the escaping is reversible);
* a whole component that would be ``.`` or ``..`` is escaped too (``%2E``);
* a component longer than ``NAME_BYTES`` is cut and ends in ``~`` and a hash of its whole text (a file
  system refuses names over 255 bytes), ``~`` never being the end of a short one's escape.

Ordinary values (none of those characters, short) are spelled as they were written, so legacy names
(the bash's) stay byte-identical. ``under`` joins such components and checks that the result, links
resolved, stays under its root. ``writing`` turns an ``OSError`` (a full disk, a read-only folder)
into an ``OutputError`` naming the path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from tipc.errors import OutputError
from tipc.files.read import Refused, inside

# A file system's NAME_MAX (255 bytes) less room for what is appended to a save dir's name
# (``.log``, ``_launch_log``).
NAME_BYTES = 200
_HASH_CHARS = 16
_ESCAPED = re.compile(r"[%/\x00-\x1f\x7f]")


def name_part(value: str) -> str:
    """A value as part of a file name: ``%``, ``/`` and control characters escaped, nothing else changed."""
    return _ESCAPED.sub(lambda m: f"%{ord(m[0]):02X}", value)


def component(name: str, suffix: str = "") -> str:
    """``name + suffix`` as one path component: never ``.`` or ``..``, at most ``NAME_BYTES`` bytes."""
    if name in (".", ".."):
        name = "%2E" * len(name)
    whole = name + suffix or "%"  # an empty name would be the folder above; no escape is a lone %
    encoded = whole.encode("utf-8", "surrogatepass")
    if len(encoded) <= NAME_BYTES:
        return whole
    digest = hashlib.sha256(encoded).hexdigest()[:_HASH_CHARS]
    room = NAME_BYTES - len(suffix.encode("utf-8", "surrogatepass")) - len(digest) - 1
    kept = name.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore")
    return f"{kept}~{digest}{suffix}"


def under(root: str | Path, *values: str, suffix: str = "") -> Path:
    """``root/<value>/…`` with each value made one safe component (``suffix`` on the last); an
    ``OutputError`` when a link inside ``root`` would take the path out of it."""
    names = [component(name_part(v)) for v in values]
    if names and suffix:
        names[-1] = component(name_part(values[-1]), suffix)
    path = Path(root).joinpath(*names)
    if not inside(path, [root]):
        raise OutputError(str(path), Refused(path, f"a link takes it out of {root}"))
    return path


@contextlib.contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """An OSError while writing ``path`` becomes an ``OutputError`` naming it (a full disk, a
    read-only folder): the fronts stop the run with that message instead of a traceback."""
    try:
        yield
    except OSError as exc:
        raise OutputError(str(path), exc) from None


def make_dirs(path: Path) -> None:
    """``path`` and its parents; an ``OutputError`` naming it and, when a file is in the way (an
    ``--output-root`` that is a file), that file."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (NotADirectoryError, FileExistsError) as exc:
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        why = OSError(exc.errno, f"{blocker} is a file, not a folder") if blocker is not None else exc
        raise OutputError(str(path), why) from None
    except OSError as exc:
        raise OutputError(str(path), exc) from None


def write_atomic(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of one; no temp file survives a failure."""
    write_atomic_lines(path, (text,))


def write_atomic_lines(path: Path, pieces: Iterable[str]) -> None:
    """``write_atomic`` of text made piece by piece: a file larger than memory is never held whole.
    A piece that cannot be made (its maker raises) leaves the old file as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with writing(path):
            with tmp.open("w", encoding="utf-8") as out:
                out.writelines(pieces)
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def scratch_file(folder: Path) -> BinaryIO:
    """A file of the process's own in ``folder``, for what it would otherwise hold in memory: it has no
    name, so nothing is left behind, not even after a crash; closing it deletes it."""
    with writing(folder):
        return tempfile.TemporaryFile(dir=folder)
