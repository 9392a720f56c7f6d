"""Write a synthetic data set: seeded samples as PNG files, and the label file listing them.

Every image comes from its own ``random.Random`` seeded with ``(seed, index)``, so the
bytes of image *i* depend only on the style, the seed and *i*: re-running gives identical
files, and growing ``count`` keeps the images already written.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tipc.dialects.paddleocr.prepare import detsynth, synth
from tipc.dialects.paddleocr.prepare.styles import ClsStyle, DetStyle, Sample, Style


@dataclass(frozen=True, slots=True)
class Drawer:
    generator: str  # recorded in the manifest: a changed drawing remakes the sets
    stem: str  # images are <stem>_00001.png, …
    draw: Callable[[random.Random], Sample]


def drawer(style: Style) -> Drawer:
    if isinstance(style, DetStyle):
        return Drawer(detsynth.GENERATOR, "img", partial(detsynth.draw_scene, style))
    if isinstance(style, ClsStyle):
        return Drawer(synth.CLS_GENERATOR, "word", partial(synth.draw_turned_line, style))
    return Drawer(synth.GENERATOR, "word", partial(synth.draw_line, style))


def image_paths(style: Style, dir: Path, count: int) -> tuple[Path, ...]:
    """The files ``count`` images of ``style`` take in ``dir``, in order."""
    stem = drawer(style).stem
    return tuple(Path(dir) / f"{stem}_{index + 1:05d}.png" for index in range(count))


def labelled_image_dir(data_dir: Path, label_file: Path) -> Path:
    """Where the images of ``label_file`` go: a directory named after its stem, so that a train
    and an eval set may share one ``data_dir``."""
    return Path(data_dir) / Path(label_file).stem


def _samples(style: Style, count: int, seed: int) -> Iterator[Sample]:
    draw = drawer(style).draw
    for index in range(count):
        yield draw(random.Random(f"tipc-synth:{seed}:{index}"))


def _save(sample: Sample, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sample.image.save(path, format="PNG")
    return path


def write_labelled_set(style: Style, data_dir: Path, label_file: Path, count: int, seed: int) -> tuple[Path, ...]:
    """Write ``count`` images and a SimpleDataSet label file (``<path relative to data_dir>\\t<label>``
    a line); return the image paths."""
    data_dir, label_file = Path(data_dir), Path(label_file)
    paths = image_paths(style, labelled_image_dir(data_dir, label_file), count)
    lines = [
        f"{_save(sample, path).relative_to(data_dir).as_posix()}\t{sample.label}\n"
        for path, sample in zip(paths, _samples(style, count, seed), strict=True)
    ]
    label_file.parent.mkdir(parents=True, exist_ok=True)
    label_file.write_text("".join(lines), encoding="utf-8", newline="\n")
    return paths


def write_images(style: Style, dir: Path, count: int, seed: int) -> tuple[Path, ...]:
    """Write ``count`` unlabelled images for a predictor's image dir."""
    paths = image_paths(style, dir, count)
    return tuple(_save(sample, path) for path, sample in zip(paths, _samples(style, count, seed), strict=True))
