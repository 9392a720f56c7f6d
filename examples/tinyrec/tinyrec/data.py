"""SimpleDataSet label files, the character dict, and the image normalisation.

The same ``resize_norm`` serves training and the predictor so that an exported
model sees exactly the pixels it was trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

BLANK = 0  # CTC blank: index 0, so dict character i has class i + 1


@dataclass(frozen=True)
class CharDict:
    characters: tuple[str, ...]

    @classmethod
    def load(cls, path: str | Path) -> CharDict:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        chars = tuple(line.rstrip("\r\n") for line in lines if line.rstrip("\r\n"))
        if not chars:
            raise ValueError(f"{path}: character dict is empty")
        return cls(chars)

    @property
    def num_classes(self) -> int:
        return len(self.characters) + 1

    def encode(self, text: str) -> list[int] | None:
        """Class ids of ``text``, or None when it holds a character outside the dict."""
        index = {c: i + 1 for i, c in enumerate(self.characters)}
        ids = [index.get(c) for c in text]
        return None if not ids or None in ids else ids  # type: ignore[return-value]

    def ctc_decode(self, probs: np.ndarray) -> list[tuple[str, float]]:
        """Greedy CTC over (batch, time, classes) probabilities → (text, mean score)."""
        results = []
        for row in probs:
            best = row.argmax(axis=1)
            scores = row.max(axis=1)
            keep = np.ones_like(best, dtype=bool)
            keep[1:] = best[1:] != best[:-1]
            keep &= best != BLANK
            text = "".join(self.characters[i - 1] for i in best[keep])
            results.append((text, float(scores[keep].mean()) if keep.any() else 0.0))
        return results


def resize_norm(image: Image.Image, shape: tuple[int, int, int]) -> np.ndarray:
    """Keep the aspect ratio at height H, cap the width at W, pad right with zeros; CHW in [-1, 1]."""
    channels, height, width = shape
    image = image.convert("RGB" if channels == 3 else "L")
    ratio = image.width / max(1, image.height)
    resized_w = max(1, min(width, int(np.ceil(height * ratio))))
    pixels = np.asarray(image.resize((resized_w, height), Image.BILINEAR), dtype=np.float32)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    pixels = (pixels.transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
    padded = np.zeros((channels, height, width), dtype=np.float32)
    padded[:, :, :resized_w] = pixels
    return padded


class EmptyDataset(ValueError):
    """A label file list with no usable sample."""


def read_label_files(data_dir: str | Path, label_files: list[str]) -> list[tuple[Path, str]]:
    """``<relpath>\\t<label>`` lines → (image path under data_dir, label)."""
    items = []
    for label_file in label_files:
        for number, line in enumerate(Path(label_file).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            rel, sep, label = line.partition("\t")
            if not sep:
                raise ValueError(f"{label_file}:{number}: expected '<image path>\\t<label>', got {line!r}")
            items.append((Path(data_dir) / rel, label))
    return items


class RecDataset:
    """A SimpleDataSet held in memory: the synthetic sets are small and decoding once is cheapest."""

    def __init__(self, section: dict, char_dict: CharDict, shape: tuple[int, int, int], max_text_length: int):
        dataset = section["dataset"]
        items = read_label_files(dataset["data_dir"], list(dataset["label_file_list"]))
        self.images: list[np.ndarray] = []
        self.labels: list[list[int]] = []
        self.texts: list[str] = []
        self.dropped = 0
        for path, text in items:
            ids = char_dict.encode(text)
            if ids is None or len(ids) > max_text_length:
                self.dropped += 1  # PaddleOCR drops these samples too
                continue
            with Image.open(path) as image:
                self.images.append(resize_norm(image, shape))
            self.labels.append(ids)
            self.texts.append(text)
        if not self.images:
            raise EmptyDataset(f"no usable samples in {list(dataset['label_file_list'])}")
        self.max_text_length = max_text_length

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int):
        ids = self.labels[index]
        label = np.zeros((self.max_text_length,), dtype=np.int32)
        label[: len(ids)] = ids
        return self.images[index], label, np.int64(len(ids)), np.int64(index)


def list_images(image_dir: str | Path) -> list[Path]:
    suffixes = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".gif"}
    path = Path(image_dir)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"--image_dir {image_dir}: no such file or directory")
    images = sorted(p for p in path.iterdir() if p.suffix.lower() in suffixes)
    if not images:
        raise FileNotFoundError(f"--image_dir {image_dir}: no images ({', '.join(sorted(suffixes))})")
    return images
