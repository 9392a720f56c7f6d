"""``tipc prepare`` for PaddleClas: ImageNet-style class lists, made offline from what the plan's stages read.

A train or eval stage reads ``DataLoader.<Train|Eval>.dataset`` of its yml (``-c``), with the stage's own ``-o``
overrides laid over it: images under ``image_root`` listed in ``cls_label_path`` as ``<path relative to image_root>
<class id>`` lines; an infer stage reads ``Global.infer_imgs`` from ``deploy/``. This writes that many synthetic
JPEGs (a few classes, each its own colour, so a model can learn them; no more than the yml's ``class_num``), the
lists, and the infer image. What exists is kept unless ``force`` (it may be the real data set).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError
from tipc.plan.model import Plan, Stage, StageKind
from tipc.prepare.sizes import Sizes
from tipc.suites.prepare import SUBDIR, colour, yml_of

SECTIONS = {StageKind.TRAIN: "Train", StageKind.EVAL: "Eval"}
CLASSES = 4  # classes the synthetic sets cycle through (fewer if the yml's class_num is smaller)
IMAGE_SIZE = 64


@dataclass(frozen=True, slots=True)
class ClassList:
    """One list file and the images it names."""

    label_file: Path
    image_root: Path
    count: int
    classes: int
    section: str  # Train or Eval


def overrides(stage: Stage) -> dict[str, str]:
    """The stage's ``-o key=value`` words."""
    argv = stage.argv
    return dict(argv[i + 1].split("=", 1) for i in range(len(argv) - 1) if argv[i] == "-o" and "=" in argv[i + 1])


def class_lists(plan: Plan, repo: Path, counts: dict[str, int]) -> tuple[ClassList, ...]:
    """What the plan's train and eval stages read (once per list file), ``counts`` images per section."""
    found: dict[Path, ClassList] = {}
    for stage in plan.stages():
        section = SECTIONS.get(stage.kind)
        yml = yml_of(stage)
        if section is None or yml is None:
            continue
        doc = read_yaml(repo / yml)
        over = overrides(stage)
        key = f"DataLoader.{section}.dataset"
        root = over.get(f"{key}.image_root") or doc.get("DataLoader", section, "dataset", "image_root")
        labels = over.get(f"{key}.cls_label_path") or doc.get("DataLoader", section, "dataset", "cls_label_path")
        if not isinstance(root, str) or not isinstance(labels, str):
            raise ConfigError(yml, 0, f"expected DataLoader.{section}.dataset.image_root and cls_label_path")
        class_num = over.get("Arch.class_num") or doc.get("Arch", "class_num") or CLASSES
        path = repo / labels
        found.setdefault(path, ClassList(path, repo / root, counts[section], min(CLASSES, int(class_num)), section))
    return tuple(found.values())


def infer_images(plan: Plan) -> tuple[Path, ...]:
    """The ``Global.infer_imgs`` files the infer stages read (from their own folder)."""
    found = {Path(s.cwd) / v for s in plan.stages() if s.kind is StageKind.INFER
             for k, v in overrides(s).items() if k == "Global.infer_imgs"}  # fmt: skip
    return tuple(sorted(found))


def _image(path: Path, label: int, rng: random.Random) -> None:
    from PIL import Image  # only when images are made

    color = tuple(min(255, max(0, c + rng.randint(-20, 20))) for c in colour(label))
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), color).save(path, "JPEG")


def prepare_imagenet(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
    """The dialect's ``prepare``: the plan's class lists (``sizes``' train and eval counts) and infer images."""
    counts = {"Train": sizes.train, "Eval": sizes.eval}
    return write(class_lists(plan, repo, counts), infer_images(plan), seed, force)


def write(lists: tuple[ClassList, ...], images: tuple[Path, ...], seed: int, force: bool) -> list[str]:
    """Make the sets; one line per list or image saying what was done."""
    rng = random.Random(seed)
    done = []
    for item in lists:
        if item.label_file.exists() and not force:
            done.append(f"kept        {item.label_file} (exists; --force replaces it)")
            continue
        rows = []
        for index in range(item.count):
            name = f"{SUBDIR}/{item.section.lower()}/{index:05d}.JPEG"
            label = index % item.classes
            _image(item.image_root / name, label, rng)
            rows.append(f"{name} {label}\n")
        item.label_file.parent.mkdir(parents=True, exist_ok=True)
        item.label_file.write_text("".join(rows))
        done.append(f"made {item.count:>6} images  {item.label_file} ({item.classes} classes)")
    for path in images:
        if path.exists() and not force:
            done.append(f"kept        {path}")
            continue
        _image(path, 0, rng)
        done.append(f"made      1 image   {path}")
    return done
