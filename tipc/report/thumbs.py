"""Small embedded thumbnails of the images a predictor read, for the report's predictions.

An image is looked up where the predictor read it (its logged path under the stage's cwd, else
by name in the stage's ``--image_dir``), shrunk to at most ``WIDTH`` × ``HEIGHT`` and embedded
as a JPEG data URI, so that the page stays self-contained; the report defines each once, however
many cases show it. Pillow is imported only here, and only when a report shows predictions; an
image that cannot be read is simply not shown. The file is read through the read door (a regular
file of at most ``MAX_BYTES``) and decoded from those bytes; one of more than ``MAX_PIXELS`` pixels
(a decompression bomb) is refused before decoding, and a JPEG is decoded at thumbnail scale.
"""

from __future__ import annotations

import base64
import functools
import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tipc.files import read

WIDTH, HEIGHT = 240, 160
MAX_BYTES = 8 << 20  # larger files are not opened
# Decoded, an image costs 3-4 bytes a pixel: a 50 KB PNG can claim 20000 × 20000 pixels (1.2 GB, 15 s).
# Checked here from the header rather than by lowering Pillow's global MAX_IMAGE_PIXELS: the report
# runs inside pytest, whose process is shared with the project's own tests that may use Pillow.
MAX_PIXELS = 25_000_000
QUALITY = 80


@dataclass(frozen=True, slots=True)
class Thumb:
    uri: str  # data:image/jpeg;base64,…
    width: int  # of the thumbnail
    height: int
    scale: float  # thumbnail pixels per image pixel (boxes are drawn in image pixels, scaled)


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
    for candidate in candidates:
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_BYTES:
            return Path(candidate)
    return None


def thumbnail(path: Path) -> Thumb | None:
    """The image's thumbnail; one decode per file and version, however many cases read the image."""
    try:
        info = path.stat()
    except OSError:
        return None
    return _thumbnail(path, info.st_mtime_ns, info.st_size)


# The formats predictors read, by their first bytes: anything else is not opened, so a run whose
# "images" are not images (a fake target's text files) does not pay for Pillow trying every decoder.
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


def looks_like_image(head: bytes) -> bool:
    return head.startswith(SIGNATURES) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


@functools.lru_cache(maxsize=256)
def _thumbnail(path: Path, mtime_ns: int, size: int) -> Thumb | None:
    try:
        data = read.read_bytes(path, MAX_BYTES)  # regular files only, never more than MAX_BYTES
    except OSError:
        return None
    if not looks_like_image(data[:12]):
        return None
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            # Pillow warns above its own pixel limit and raises above twice that: a bomb either way.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                full_width = image.width
                if image.width * image.height > MAX_PIXELS:
                    return None  # refused from the header alone, before a pixel is decoded
                image.draft("RGB", (WIDTH, HEIGHT))  # a JPEG decodes at a fraction of its size
                small = image.convert("RGB")
    except Exception:  # noqa: BLE001 - any unreadable image or bomb: not shown, the prediction still is
        return None
    small.thumbnail((WIDTH, HEIGHT))
    out = io.BytesIO()
    small.save(out, format="JPEG", quality=QUALITY)
    uri = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
    return Thumb(uri, small.width, small.height, small.width / full_width if full_width else 1.0)
