"""Synthetic text-line images: the offline stand-in for recognition and direction-classification data.

A sample is drawn from the ``random.Random`` it is given (``tipc.dialects.paddleocr.prepare.writer``
seeds one per image), so its bytes depend on that seed only.
The font is Pillow's bundled scalable font, so the output depends on the
Pillow version only, not on which fonts a machine happens to have (DejaVu Sans
is used only when Pillow was built without FreeType).
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from tipc.dialects.paddleocr.prepare.styles import ClsStyle, Sample, TextStyle

GENERATOR = "tipc.dialects.paddleocr.prepare.synth/1"  # bump when the rendering changes, so old sets are remade
CLS_GENERATOR = "tipc.dialects.paddleocr.prepare.synth.cls/1"
# Glyphs are drawn at this fraction of the line height before jitter: large
# enough to be legible at height 32, small enough to leave room for the jitter.
_FONT_SCALE = 0.72
_MIN_FONT_PX = 8
_CHAR_WIDTH_SCALE = 0.5  # width ~ height * len / 2, which fits ~0.72h glyphs
_MAX_WIDTH_SCALE = 25  # widest image: 25 heights (a 50-character line at 0.5)
_DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@lru_cache(maxsize=64)
def scalable_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    loaded = ImageFont.load_default(size=size)
    # Pillow without FreeType gives a fixed-size bitmap font: prefer a real TTF then.
    if not isinstance(loaded, ImageFont.FreeTypeFont) and _DEJAVU.is_file():
        return ImageFont.truetype(str(_DEJAVU), size=size)
    return loaded


def usable_charset(charset: str) -> str:
    """``charset`` without whitespace and repeats, in first-seen order."""
    return "".join(dict.fromkeys(c for c in charset if not c.isspace()))


def random_text(rng: random.Random, charset: str, min_len: int, max_len: int) -> str:
    """``min_len`` to ``max_len`` characters of ``charset`` (whitespace and repeats ignored)."""
    chars = usable_charset(charset)
    if not chars:
        raise ValueError(f"synthetic text needs at least one printable character, got {charset!r}")
    if not 1 <= min_len <= max_len:
        raise ValueError(f"text length range must satisfy 1 <= min_len <= max_len, got {min_len}..{max_len}")
    length = rng.randint(min_len, max_len)
    return "".join(rng.choice(chars) for _ in range(length))


def _line_width(text: str, image_height: int) -> int:
    width = round(image_height * len(text) * _CHAR_WIDTH_SCALE)
    return max(image_height, min(width, image_height * _MAX_WIDTH_SCALE))


def _fitting_font(
    text: str, size: int, max_w: int, max_h: int
) -> tuple[ImageFont.FreeTypeFont | ImageFont.ImageFont, tuple[int, int, int, int]]:
    """The font at ``size`` or the largest smaller one whose ink fits the box."""
    while True:
        font = scalable_font(size)
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


def draw_line(style: TextStyle, rng: random.Random) -> Sample:
    """A recognition sample: a line of random text, labelled with that text."""
    text = random_text(rng, style.charset, style.min_len, style.max_len)
    return Sample(render_line(text, style.image_height, rng), text)


def draw_turned_line(style: ClsStyle, rng: random.Random) -> Sample:
    """A direction-classification sample: a line turned counter-clockwise by a random label's degrees."""
    text = random_text(rng, style.text.charset, style.text.min_len, style.text.max_len)
    label = rng.choice(style.labels)
    image = render_line(text, style.text.image_height, rng)
    return Sample(image.rotate(int(label), expand=True), label)
