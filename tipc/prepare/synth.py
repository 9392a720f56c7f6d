"""Synthetic text-line images: the offline stand-in for a recognition dataset.

Every image comes from its own ``random.Random`` seeded with ``(seed, index)``,
so the bytes of image *i* depend only on the seed and *i*: re-running gives
identical files, and growing ``count`` keeps the images already written.
The font is Pillow's bundled scalable font, so the output depends on the
Pillow version only, not on which fonts a machine happens to have (DejaVu Sans
is used only when Pillow was built without FreeType).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# Glyphs are drawn at this fraction of the line height before jitter: large
# enough to be legible at height 32, small enough to leave room for the jitter.
_FONT_SCALE = 0.72
_MIN_FONT_PX = 8
_CHAR_WIDTH_SCALE = 0.5  # width ~ height * len / 2, which fits ~0.72h glyphs
_MAX_WIDTH_SCALE = 25  # widest image: 25 heights (a 50-character line at 0.5)
_DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    font = ImageFont.load_default(size=size)
    # Pillow without FreeType gives a fixed-size bitmap font: prefer a real TTF then.
    if not isinstance(font, ImageFont.FreeTypeFont) and _DEJAVU.is_file():
        return ImageFont.truetype(str(_DEJAVU), size=size)
    return font


def usable_charset(charset: str) -> str:
    """``charset`` without whitespace and repeats, in first-seen order."""
    return "".join(dict.fromkeys(c for c in charset if not c.isspace()))


def random_text(rng: random.Random, charset: str, min_len: int, max_len: int) -> str:
    length = rng.randint(min_len, max_len)
    return "".join(rng.choice(charset) for _ in range(length))


def _line_width(text: str, image_height: int) -> int:
    width = round(image_height * len(text) * _CHAR_WIDTH_SCALE)
    return max(image_height, min(width, image_height * _MAX_WIDTH_SCALE))


def _fitting_font(
    text: str, size: int, max_w: int, max_h: int
) -> tuple[ImageFont.FreeTypeFont | ImageFont.ImageFont, tuple[int, int, int, int]]:
    """The font at ``size`` or the largest smaller one whose ink fits the box."""
    while True:
        font = _font(size)
        # Typed as floats (a fractional stroke width); without a stroke they are whole pixels.
        left, top, right, bottom = map(int, font.getbbox(text))
        if size <= _MIN_FONT_PX or (right - left <= max_w and bottom - top <= max_h):
            return font, (left, top, right, bottom)
        size -= 1


def render_line(text: str, image_height: int, rng: random.Random) -> Image.Image:
    """One RGB line image of ``text``: dark grey ink on a light grey ground, jittered."""
    if not text:
        raise ValueError("render_line: empty text")
    width = _line_width(text, image_height)
    margin = max(1, image_height // 16)
    size = round(image_height * _FONT_SCALE) + rng.randint(-2, 1)
    font, (left, top, right, bottom) = _fitting_font(
        text, max(size, _MIN_FONT_PX), width - 2 * margin, image_height - 2 * margin
    )
    ink_w, ink_h = right - left, bottom - top
    # Spread the spare room randomly: the text is never in the same place twice.
    x = margin + rng.randint(0, max(0, width - 2 * margin - ink_w)) - left
    y = margin + rng.randint(0, max(0, image_height - 2 * margin - ink_h)) - top
    ground = rng.randint(190, 255)
    ink = rng.randint(0, 90)
    image = Image.new("RGB", (width, image_height), (ground,) * 3)
    ImageDraw.Draw(image).text((x, y), text, font=font, fill=(ink,) * 3)
    return image


def _item_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"tipc-synth:{seed}:{index}")


def _render_items(
    count: int, charset: str, seed: int, image_height: int, min_len: int, max_len: int
) -> Iterator[tuple[int, str, Image.Image]]:
    chars = usable_charset(charset)
    if not chars:
        raise ValueError(f"synthetic text needs at least one printable character, got {charset!r}")
    if not 1 <= min_len <= max_len:
        raise ValueError(f"text length range must satisfy 1 <= min_len <= max_len, got {min_len}..{max_len}")
    for index in range(count):
        rng = _item_rng(seed, index)
        text = random_text(rng, chars, min_len, max_len)
        yield index, text, render_line(text, image_height, rng)


def image_name(index: int) -> str:
    """The file name of the ``index``-th (0-based) image of a set."""
    return f"word_{index + 1:05d}.png"


def rec_image_dir(data_dir: Path, label_file: Path) -> Path:
    """Where ``write_rec_dataset`` puts the images of ``label_file``: a directory named after its stem,
    so that a train and an eval set may share one ``data_dir``."""
    return Path(data_dir) / Path(label_file).stem


def _save_png(image: Image.Image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG")
    return path


def write_rec_dataset(
    data_dir: Path,
    label_file: Path,
    count: int,
    charset: str,
    seed: int,
    *,
    image_height: int = 32,
    min_len: int = 3,
    max_len: int = 8,
    rel_to: Path | None = None,
) -> tuple[Path, ...]:
    """Write ``count`` line images and a SimpleDataSet label file; return the image paths.

    Images go to ``rec_image_dir(data_dir, label_file)``. Each label line is
    ``<image path relative to rel_to (default data_dir)>\\t<text>``.
    """
    data_dir, label_file = Path(data_dir), Path(label_file)
    base = Path(rel_to) if rel_to is not None else data_dir
    image_dir = rec_image_dir(data_dir, label_file)
    paths: list[Path] = []
    lines: list[str] = []
    for index, text, image in _render_items(count, charset, seed, image_height, min_len, max_len):
        path = _save_png(image, image_dir / image_name(index))
        paths.append(path)
        lines.append(f"{path.relative_to(base).as_posix()}\t{text}\n")
    label_file.parent.mkdir(parents=True, exist_ok=True)
    label_file.write_text("".join(lines), encoding="utf-8", newline="\n")
    return tuple(paths)


def write_image_dir(
    dir: Path,
    count: int,
    charset: str,
    seed: int,
    *,
    image_height: int = 32,
    min_len: int = 3,
    max_len: int = 8,
) -> tuple[Path, ...]:
    """Write ``count`` unlabeled line images (``word_NNNNN.png``) for inference."""
    out = Path(dir)
    items = _render_items(count, charset, seed, image_height, min_len, max_len)
    return tuple(_save_png(image, out / image_name(index)) for index, _, image in items)
