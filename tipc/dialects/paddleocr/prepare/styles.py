"""What the samples of one synthetic data set look like (a style), and what one drawn sample is.

A style holds every parameter of the drawing, so it is also what the manifest records: a
set whose style changed is made again.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image


@dataclass(frozen=True, slots=True)
class TextStyle:
    """Text-line images for recognition: ``<image>\\t<text>``."""

    charset: str
    image_height: int
    min_len: int
    max_len: int


@dataclass(frozen=True, slots=True)
class ClsStyle:
    """Text lines turned by one of ``labels`` (degrees): ``<image>\\t<angle>``."""

    text: TextStyle
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DetStyle:
    """Scenes with a few text regions: ``<image>\\t[{"transcription": …, "points": [[x, y] ×4]}, …]``."""

    charset: str
    min_len: int
    max_len: int


Style = TextStyle | ClsStyle | DetStyle


@dataclass(frozen=True, slots=True)
class Sample:
    image: Image.Image
    label: str  # what follows the tab in a label file
