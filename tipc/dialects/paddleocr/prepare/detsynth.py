"""Synthetic detection scenes: a light ground with some clutter and a few text regions.

Each region is a word drawn upright, turned by a small random angle and pasted where it
overlaps no other; its label is the quadrilateral of the turned box, clockwise from the
word's top-left corner (ICDAR2015 order), as PaddleOCR's ``DetLabelEncode`` reads it:
``[{"transcription": "abc", "points": [[x, y], [x, y], [x, y], [x, y]]}, …]``.
Every scene has at least one region: ``DetLabelEncode`` drops a sample without any.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from tipc.dialects.paddleocr.prepare.styles import DetStyle, Sample
from tipc.dialects.paddleocr.prepare.synth import random_text, scalable_font

GENERATOR = "tipc.dialects.paddleocr.prepare.detsynth/1"  # bump when the drawing changes, so old sets are remade
_WIDTH = (320, 640)
_HEIGHT = (240, 480)
_REGIONS = (1, 4)
_TEXT_PX = (16, 40)  # glyph size: DB's shrink map drops text under 8 px, keep well above
_MIN_TEXT_PX = 10
_MAX_ANGLE = 12.0  # degrees either way: ICDAR text is mostly near horizontal
_CLUTTER = (0, 4)  # shapes drawn before the text, so a detector must tell text from blobs
_TRIES = 30  # placements tried per region before giving up on it
_MARGIN = 4

Point = tuple[int, int]
Box = tuple[int, int, int, int]  # left, top, right, bottom (exclusive)


@dataclass(frozen=True, slots=True)
class Region:
    text: str
    points: tuple[Point, Point, Point, Point]


def det_label(regions: Sequence[Region]) -> str:
    """The label text after the tab: a JSON list of regions."""
    return json.dumps(
        [{"transcription": r.text, "points": [list(p) for p in r.points]} for r in regions], ensure_ascii=False
    )


def turn_corners(size: tuple[int, int], angle: float, turned: tuple[int, int]) -> tuple[Point, Point, Point, Point]:
    """Where the corners of a ``size`` box land (TL, TR, BR, BL) once ``Image.rotate(angle, expand=True)``
    has turned it counter-clockwise about its centre into an image of size ``turned``."""
    w, h = size
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    corners = ((0, 0), (w, 0), (w, h), (0, h))
    out = []
    for x, y in corners:
        dx, dy = x - w / 2, y - h / 2
        out.append((round(turned[0] / 2 + dx * cos + dy * sin), round(turned[1] / 2 - dx * sin + dy * cos)))
    return out[0], out[1], out[2], out[3]


def _word_patch(text: str, px: int, ink: tuple[int, int, int], angle: float) -> tuple[Image.Image, tuple[Point, ...]]:
    """The word on a transparent patch, turned, with its box corners in patch coordinates."""
    font = scalable_font(px)
    left, top, right, bottom = map(int, font.getbbox(text))
    pad = max(2, px // 6)
    size = (right - left + 2 * pad, bottom - top + 2 * pad)
    patch = Image.new("RGBA", size, (0, 0, 0, 0))
    ImageDraw.Draw(patch).text((pad - left, pad - top), text, font=font, fill=(*ink, 255))
    turned = patch.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    return turned, turn_corners(size, angle, turned.size)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _spot(size: tuple[int, int], canvas: tuple[int, int], taken: list[Box], rng: random.Random) -> Box | None:
    """A free place for a patch of ``size``, or None after ``_TRIES`` misses."""
    room_x, room_y = canvas[0] - 2 * _MARGIN - size[0], canvas[1] - 2 * _MARGIN - size[1]
    if room_x < 0 or room_y < 0:
        return None
    for _ in range(_TRIES):
        x, y = _MARGIN + rng.randint(0, room_x), _MARGIN + rng.randint(0, room_y)
        box = (x, y, x + size[0], y + size[1])
        if not any(_overlaps(box, other) for other in taken):
            return box
    return None


def _clutter(image: Image.Image, ground: int, rng: random.Random) -> None:
    draw = ImageDraw.Draw(image)
    w, h = image.size
    for _ in range(rng.randint(*_CLUTTER)):
        x0, y0 = rng.randint(0, w - 1), rng.randint(0, h - 1)
        x1, y1 = min(w - 1, x0 + rng.randint(10, w // 3)), min(h - 1, y0 + rng.randint(10, h // 3))
        shade = tuple(max(0, min(255, ground + rng.randint(-60, 20))) for _ in range(3))
        shape = draw.rectangle if rng.random() < 0.5 else draw.ellipse
        shape((x0, y0, x1, y1), fill=shade)


def _region(image: Image.Image, style: DetStyle, taken: list[Box], rng: random.Random) -> Region | None:
    text = random_text(rng, style.charset, style.min_len, style.max_len)
    ink = (rng.randint(0, 80), rng.randint(0, 80), rng.randint(0, 80))
    angle = rng.uniform(-_MAX_ANGLE, _MAX_ANGLE)
    px = rng.randint(*_TEXT_PX)
    while True:  # a word too wide for the scene is drawn smaller, down to _MIN_TEXT_PX
        patch, corners = _word_patch(text, px, ink, angle)
        box = _spot(patch.size, image.size, taken, rng)
        if box is not None or px <= _MIN_TEXT_PX:
            break
        px = max(_MIN_TEXT_PX, px * 3 // 4)
    if box is None:
        return None
    image.paste(patch, box[:2], patch)
    taken.append(box)
    x, y = box[:2]
    w, h = image.size
    points = tuple((min(w - 1, max(0, cx + x)), min(h - 1, max(0, cy + y))) for cx, cy in corners)
    return Region(text, (points[0], points[1], points[2], points[3]))


def draw_scene(style: DetStyle, rng: random.Random) -> Sample:
    """A scene with 1 to 4 text regions, labelled with their quadrilaterals."""
    size = (rng.randint(*_WIDTH), rng.randint(*_HEIGHT))
    ground = rng.randint(180, 255)
    image = Image.new("RGB", size, tuple(max(0, ground - rng.randint(0, 30)) for _ in range(3)))
    _clutter(image, ground, rng)
    taken: list[Box] = []
    wanted = rng.randint(*_REGIONS)
    regions = [r for r in (_region(image, style, taken, rng) for _ in range(wanted)) if r is not None]
    if not regions:
        raise ValueError(f"no text region fits a {size[0]}x{size[1]} scene: the words are too long to draw")
    return Sample(image, det_label(regions))
