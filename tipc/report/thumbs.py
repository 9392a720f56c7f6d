"""Small embedded thumbnails of the images a predictor read, for the report's predictions.

An image is looked up where the predictor read it (its logged path under the stage's cwd, else
by name in the stage's ``--image_dir``), shrunk to at most ``WIDTH`` × ``HEIGHT`` and embedded
as a JPEG data URI, so that the page stays self-contained; the report defines each once, however
many cases show it. The image is decoded the one way tipc decodes images (``tipc.files.image``:
through the read door, under Pillow's pixel limit), a JPEG at thumbnail scale. An image that
is not shown says why (``NotShown``): the page puts that note where the thumbnail would be.
"""

from __future__ import annotations

import base64
import functools
import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tipc.files import image
from tipc.files.image import MAX_BYTES

WIDTH, HEIGHT = 240, 160
QUALITY = 80


@dataclass(frozen=True, slots=True)
class Thumb:
    uri: str  # data:image/jpeg;base64,…
    width: int  # of the thumbnail
    height: int
    scale: float  # thumbnail pixels per image pixel (boxes are drawn in image pixels, scaled)


@dataclass(frozen=True, slots=True)
class NotShown:
    """Why an image has no thumbnail, as the page says it: ``image not shown: <why>``."""

    why: str


NOT_FOUND = NotShown("not found where the predictor read it")
OUTSIDE = NotShown("it lies outside the results folder and the repo")


def image_file(logged: str, cwd: str, argv: tuple[str, ...]) -> Path | None:
    # Strings, not Paths: a report looks up three images per infer case, and pathlib's parsing
    # was most of the predictions section's time.
    candidates = [os.path.join(cwd, logged)]
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--image_dir=") else ""
        if arg == "--image_dir" and i + 1 < len(argv):
            value = argv[i + 1]
        if value:
            folder = os.path.join(cwd, value)
            parent = folder if os.path.isdir(folder) else os.path.dirname(folder)
            candidates.append(os.path.join(parent, os.path.basename(logged.rstrip("/"))))
    existing = None  # a candidate that is no small regular file: read, it says why it is not shown
    for candidate in candidates:
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_BYTES:
            return Path(candidate)
        existing = existing or candidate
    return None if existing is None else Path(existing)


def thumbnail(path: Path) -> Thumb | NotShown:
    """The image's thumbnail; one decode per file and version, however many cases read the image."""
    try:
        info = path.stat()
    except OSError:
        return NOT_FOUND
    return _thumbnail(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=256)
def _thumbnail(path: Path, mtime_ns: int, size: int) -> Thumb | NotShown:
    try:
        with image.opened(path) as picture:
            full_width = picture.width
            picture.draft("RGB", (WIDTH, HEIGHT))  # a JPEG decodes at a fraction of its size
            small = picture.convert("RGB")
    except image.NotAnImage as exc:
        return NotShown(exc.why)
    small.thumbnail((WIDTH, HEIGHT))
    out = io.BytesIO()
    small.save(out, format="JPEG", quality=QUALITY)
    uri = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
    return Thumb(uri, small.width, small.height, small.width / full_width if full_width else 1.0)
