"""Small embedded thumbnails of the images a predictor read, for the report's predictions.

An image is looked up where the predictor read it (its logged path under the stage's cwd, else
by name in the stage's ``--image_dir``), shrunk to at most ``WIDTH`` × ``HEIGHT`` and embedded
as a JPEG data URI, so that the page stays self-contained; the report defines each once, however
many cases show it. Pillow is imported only here, and only when a report shows predictions. The
file is read through the read door (a regular file of at most ``MAX_BYTES``) and decoded from
those bytes, under Pillow's own pixel limit set to ``MAX_PIXELS`` (a decompression bomb is refused
from its header, before a pixel is decoded); a JPEG is decoded at thumbnail scale. An image that
is not shown says why (``NotShown``): the page puts that note where the thumbnail would be.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io
import os
import stat
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tipc.files import read

WIDTH, HEIGHT = 240, 160
MAX_BYTES = 8 << 20  # larger files are not opened
# Decoded, an image costs 3-4 bytes a pixel: a 50 KB PNG can claim 20000 × 20000 pixels (1.2 GB, 15 s).
# Pillow's MAX_IMAGE_PIXELS is set to this only while tipc decodes (``pixel_limit``): the report runs
# inside pytest, whose process is shared with the project's own tests that may use Pillow.
MAX_PIXELS = 25_000_000
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


# The formats predictors read, by their first bytes: anything else is not opened, so a run whose
# "images" are not images (a fake target's text files) does not pay for Pillow trying every decoder.
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


def looks_like_image(head: bytes) -> bool:
    return head.startswith(SIGNATURES) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


@contextlib.contextmanager
def pixel_limit() -> Iterator[ModuleType]:
    """``PIL.Image`` with its pixel limit at ``MAX_PIXELS`` and its bomb warning an error, the
    caller's limit and warning filters restored after. Pillow checks the limit from the header as
    an image is opened, whatever decodes it next; it only warns between the limit and twice it,
    and a warning would decode the bomb anyway (or, under ``-W error``, escape as a traceback)."""
    from PIL import Image

    kept = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            yield Image
    finally:
        Image.MAX_IMAGE_PIXELS = kept


@functools.lru_cache(maxsize=256)
def _thumbnail(path: Path, mtime_ns: int, size: int) -> Thumb | NotShown:
    try:
        data = read.read_bytes(path, MAX_BYTES)  # regular files only, never more than MAX_BYTES
    except read.Refused as exc:
        return NotShown(f"it {exc.strerror}")
    except OSError as exc:
        return NotShown(f"it cannot be read ({exc.strerror})")
    if not looks_like_image(data[:12]):
        return NotShown("not a PNG, JPEG, GIF, BMP, TIFF or WebP file")
    with pixel_limit() as Image:
        try:
            with Image.open(io.BytesIO(data)) as image:
                full_width = image.width
                image.draft("RGB", (WIDTH, HEIGHT))  # a JPEG decodes at a fraction of its size
                small = image.convert("RGB")
        except (Image.DecompressionBombWarning, Image.DecompressionBombError):
            return NotShown(f"it has more pixels than the {MAX_PIXELS // 1_000_000} Mpixel limit")
        except Exception:  # noqa: BLE001 - any unreadable image: not shown, the prediction still is
            return NotShown("it cannot be decoded as an image")
    small.thumbnail((WIDTH, HEIGHT))
    out = io.BytesIO()
    small.save(out, format="JPEG", quality=QUALITY)
    uri = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
    return Thumb(uri, small.width, small.height, small.width / full_width if full_width else 1.0)
