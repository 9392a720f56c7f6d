"""The one way tipc decodes an image (a thumbnail for the report, a segmentation mask's class shares).

The file is read through the read door (a regular file of at most ``MAX_BYTES``), recognised by its
first bytes, and decoded from those bytes under Pillow's own pixel limit set to ``MAX_PIXELS``: a
decompression bomb is refused from its header, before a pixel is decoded. Anything that keeps an
image from being decoded is ``NotAnImage``, whose ``why`` says it as a reader would read it
(``image not shown: <why>``). Pillow is imported only when an image is opened.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from tipc.files import read

if TYPE_CHECKING:
    from PIL.Image import Image

MAX_BYTES = 8 << 20  # larger files are not opened
# Decoded, an image costs 3-4 bytes a pixel: a 50 KB PNG can claim 20000 × 20000 pixels (1.2 GB, 15 s).
# Pillow's MAX_IMAGE_PIXELS is set to this only while tipc decodes (``pixel_limit``): the report runs
# inside pytest, whose process is shared with the project's own tests that may use Pillow.
MAX_PIXELS = 25_000_000

# The formats predictors read, by their first bytes: anything else is not opened, so a run whose
# "images" are not images (a fake target's text files) does not pay for Pillow trying every decoder.
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


class NotAnImage(Exception):
    """Why a file was not decoded: ``why`` completes ``image not shown: …``."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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


@contextlib.contextmanager
def opened(path: str | Path) -> Iterator[Image]:
    """The image at ``path``, open for decoding within the ``with`` (under the pixel limit);
    ``NotAnImage`` when it cannot be: not a regular file, too large, not an image, a bomb, or it
    fails to decode while the caller reads it."""
    try:
        data = read.read_bytes(path, MAX_BYTES)  # regular files only, never more than MAX_BYTES
    except read.Refused as exc:
        raise NotAnImage(f"it {exc.strerror}") from None
    except OSError as exc:
        raise NotAnImage(f"it cannot be read ({exc.strerror})") from None
    if not looks_like_image(data[:12]):
        raise NotAnImage("not a PNG, JPEG, GIF, BMP, TIFF or WebP file")
    with pixel_limit() as Image:
        try:
            with Image.open(io.BytesIO(data)) as image:
                yield image
        except (Image.DecompressionBombWarning, Image.DecompressionBombError):
            raise NotAnImage(f"it has more pixels than the {MAX_PIXELS // 1_000_000} Mpixel limit") from None
        except NotAnImage:
            raise
        except Exception:  # noqa: BLE001 - any unreadable image: not shown, the prediction still is
            raise NotAnImage("it cannot be decoded as an image") from None
