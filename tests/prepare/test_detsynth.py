from __future__ import annotations

import json
import random

import pytest
from PIL import Image, ImageDraw

from tipc.dialects.paddleocr.prepare.detsynth import Region, det_label, draw_scene, turn_corners
from tipc.dialects.paddleocr.prepare.styles import DetStyle

STYLE = DetStyle("0123456789abcdefghijklmnopqrstuvwxyz", 3, 8)


@pytest.mark.parametrize(
    ("size", "angle", "turned", "corners"),
    [
        ((10, 4), 0.0, (10, 4), ((0, 0), (10, 0), (10, 4), (0, 4))),
        ((10, 4), 90.0, (4, 10), ((0, 10), (0, 0), (4, 0), (4, 10))),
        ((10, 4), 180.0, (10, 4), ((10, 4), (0, 4), (0, 0), (10, 0))),
        ((10, 4), -90.0, (4, 10), ((4, 0), (4, 10), (0, 10), (0, 0))),
    ],
    ids=["upright", "quarter-counter-clockwise", "half", "quarter-clockwise"],
)
def test_turn_corners(size, angle, turned, corners):
    assert turn_corners(size, angle, turned) == corners


@pytest.mark.parametrize("angle", [7.5, -12.0, 30.0], ids=["small", "negative", "large"])
def test_turned_corners_land_on_the_turned_box(angle):
    box = Image.new("L", (60, 20), 255)
    turned = box.rotate(angle, expand=True)
    corners = turn_corners(box.size, angle, turned.size)
    for x, y in corners:  # each corner touches ink within a pixel or two
        near = turned.crop((x - 2, y - 2, x + 3, y + 3))
        assert near.getextrema()[1] > 0, (x, y)


def test_det_label_is_the_json_detlabelencode_reads():
    label = det_label([Region("ab", ((1, 2), (3, 2), (3, 4), (1, 4))), Region('"q"', ((0, 0), (1, 0), (1, 1), (0, 1)))])
    assert label == (
        '[{"transcription": "ab", "points": [[1, 2], [3, 2], [3, 4], [1, 4]]}, '
        '{"transcription": "\\"q\\"", "points": [[0, 0], [1, 0], [1, 1], [0, 1]]}]'
    )


def _regions(label: str) -> list[dict]:
    return json.loads(label)


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"seed{s}")
def test_scenes_hold_disjoint_regions_inside_the_image(seed):
    sample = draw_scene(STYLE, random.Random(seed))
    width, height = sample.image.size
    regions = _regions(sample.label)
    assert 1 <= len(regions) <= 4
    boxes = []
    for region in regions:
        assert 3 <= len(region["transcription"]) <= 8 and set(region["transcription"]) <= set(STYLE.charset)
        points = region["points"]
        assert len(points) == 4 and all(0 <= x < width and 0 <= y < height for x, y in points)
        xs, ys = [x for x, _ in points], [y for _, y in points]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
        # Clockwise from the top-left in image coordinates: a positive shoelace sum.
        area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True))
        assert area > 0
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_regions_hold_the_ink():
    sample = draw_scene(STYLE, random.Random(4))
    grey = sample.image.convert("L")
    mask = Image.new("L", grey.size, 0)
    for region in _regions(sample.label):
        ImageDraw.Draw(mask).polygon([tuple(p) for p in region["points"]], fill=255)
    inside = Image.composite(grey, Image.new("L", grey.size, 255), mask)
    assert inside.getextrema()[0] < 90  # dark text inside the quadrilaterals


def test_same_rng_same_scene():
    first, second = draw_scene(STYLE, random.Random(9)), draw_scene(STYLE, random.Random(9))
    assert first.label == second.label and first.image.tobytes() == second.image.tobytes()
    assert draw_scene(STYLE, random.Random(10)).label != first.label


def test_words_too_long_for_any_scene_are_refused():
    with pytest.raises(ValueError, match="no text region fits"):
        draw_scene(DetStyle("m", 400, 400), random.Random(0))
