from __future__ import annotations

import random

import pytest

from tipc.dialects.paddleocr.prepare.styles import ClsStyle, TextStyle
from tipc.dialects.paddleocr.prepare.synth import draw_line, draw_turned_line, random_text, render_line, usable_charset

STYLE = TextStyle("0123456789abcdefghijklmnopqrstuvwxyz", 32, 2, 10)


def test_render_line_draws_dark_ink_on_light_ground():
    image = render_line("ab12", 32, random.Random(0))
    darkest, lightest = image.convert("L").getextrema()
    assert lightest >= 190 and darkest <= 90


def test_render_line_rejects_empty_text():
    with pytest.raises(ValueError, match="empty"):
        render_line("", 32, random.Random(0))


@pytest.mark.parametrize("height", [32, 48], ids=["h32", "h48"])
def test_lines_are_rgb_of_the_height_with_width_growing_with_length(height):
    style = TextStyle(STYLE.charset, height, 2, 10)
    widths: dict[int, set[int]] = {}
    for index in range(30):
        sample = draw_line(style, random.Random(index))
        assert (sample.image.mode, sample.image.height) == ("RGB", height)
        assert 2 <= len(sample.label) <= 10 and set(sample.label) <= set(STYLE.charset)
        widths.setdefault(len(sample.label), set()).add(sample.image.width)
    longest = [max(widths[n]) for n in sorted(widths)]
    assert longest == sorted(longest) and longest[0] < longest[-1]


@pytest.mark.parametrize(
    ("labels", "turned"),
    [(("0",), False), (("180",), False), (("90",), True), (("270",), True)],
    ids=["upright", "upside-down", "quarter", "three-quarters"],
)
def test_turned_lines_are_labelled_with_their_angle(labels, turned):
    sample = draw_turned_line(ClsStyle(STYLE, labels), random.Random(3))
    upright = draw_line(STYLE, random.Random(3))
    assert sample.label == labels[0]
    assert (sample.image.height > sample.image.width) is turned
    assert sample.image.size in (upright.image.size, upright.image.size[::-1])


def test_upside_down_is_the_upright_line_turned_half_way():
    # draw_turned_line draws its label before the line, so compare with the same text drawn upright
    rng = random.Random(5)
    sample = draw_turned_line(ClsStyle(STYLE, ("180",)), random.Random(5))
    text = random_text(rng, STYLE.charset, STYLE.min_len, STYLE.max_len)
    rng.choice(("180",))
    upright = render_line(text, STYLE.image_height, rng)
    assert sample.image.rotate(180).tobytes() == upright.tobytes()


@pytest.mark.parametrize(
    ("charset", "expected"),
    [("a b\tc", "abc"), ("aabba", "ab"), ("   ", "")],
    ids=["whitespace-dropped", "repeats-dropped", "nothing-left"],
)
def test_usable_charset(charset, expected):
    assert usable_charset(charset) == expected


@pytest.mark.parametrize(
    ("charset", "min_len", "max_len", "message"),
    [(" ", 3, 8, "printable"), ("abc", 0, 8, "min_len"), ("abc", 5, 4, "min_len")],
    ids=["blank-charset", "zero-length", "inverted-range"],
)
def test_bad_text_parameters_are_refused(charset, min_len, max_len, message):
    with pytest.raises(ValueError, match=message):
        random_text(random.Random(0), charset, min_len, max_len)
