"""``tipc prepare`` for PaddleClas (ImageNet-style class lists), PaddleSeg (image/label pairs) and PaddleDetection
(COCO-style detection json), made offline from what the plan's stages read.

A PaddleClas train or eval stage reads ``DataLoader.<Train|Eval>.dataset`` of its yml (``-c``), with the
stage's own ``-o`` overrides laid over it: images under ``image_root`` listed in ``cls_label_path`` as
``<path relative to image_root> <class id>`` lines; an infer stage reads ``Global.infer_imgs`` from ``deploy/``.
This writes that many synthetic JPEGs (a few classes, each its own colour, so a model can learn them), the
lists, and the infer image. A PaddleSeg train stage reads its yml's ``train_dataset`` and ``val_dataset``
(``_base_`` files merged): a ``Cityscapes`` set is its folder layout (``leftImg8bit/<split>/…_leftImg8bit.png``
beside ``gtFine/<split>/…_gtFine_labelTrainIds.png``), a ``Dataset`` set a list of ``image label`` lines; the
predictor's ``--image_path`` list gets images beside it. What exists is kept unless ``force`` (it may be the real
data set). A PaddleDetection train or eval stage reads its yml's ``TrainDataset`` / ``EvalDataset`` (``_BASE_``
files merged, class tags read as plain mappings) under the stage's ``Key=value`` words: images in
``dataset_dir/image_dir`` and a COCO json at ``dataset_dir/anno_path``; the predictor's ``--image_dir`` gets images.

Class counts follow the model: a PaddleDetection json lists as many categories as the yml's ``num_classes`` (an
80-class COCO model's eval maps each class it predicts to a category: with fewer it fails, ``KeyError: 3``), and a
PaddleSeg label uses no class id at or over its data set's ``num_classes``; the images cycle through at most a few
classes, so a short training can learn them.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError
from tipc.plan.model import Plan, Stage, StageKind
from tipc.prepare.sizes import Sizes

SECTIONS = {StageKind.TRAIN: "Train", StageKind.EVAL: "Eval"}
CLASSES = 4  # classes the synthetic sets cycle through (fewer if the yml's class_num is smaller)
IMAGE_SIZE = 64
SUBDIR = "tipc_synthetic"
MAX_CLASSES = 100_000  # a model's class count tipc makes data for (a json of that many categories is small)


@dataclass(frozen=True, slots=True)
class ClassList:
    """One list file and the images it names."""

    label_file: Path
    image_root: Path
    count: int
    classes: int
    section: str  # Train or Eval


def class_count(value: object, yml: Path, key: str, default: int) -> int:
    """A yml's class count (``default`` when it has none), or a ``ConfigError`` saying what was expected."""
    if value is None:
        return default
    if isinstance(value, int | str) and not isinstance(value, bool) and str(value).strip().isdigit():
        count = int(str(value).strip())
        if 1 <= count <= MAX_CLASSES:
            return count
    raise ConfigError(str(yml), 0, f"{key}: {str(value)[:40]!r}: expected a whole number from 1 to {MAX_CLASSES}")


def overrides(stage: Stage) -> dict[str, str]:
    """The stage's ``-o key=value`` words."""
    argv = stage.argv
    return dict(argv[i + 1].split("=", 1) for i in range(len(argv) - 1) if argv[i] == "-o" and "=" in argv[i + 1])


def yml_of(stage: Stage) -> str | None:
    argv = stage.argv
    return next((argv[i + 1] for i in range(len(argv) - 1) if argv[i] in ("-c", "--config")), None)


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

    base = ((label * 70) % 256, (label * 130 + 60) % 256, (label * 190 + 120) % 256)
    color = tuple(min(255, max(0, c + rng.randint(-20, 20))) for c in base)
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


# --- PaddleSeg: image/label pairs -------------------------------------------------------------------------------

SEG_SIZE = (128, 64)  # width, height: the transforms pad and crop to their own size
SEG_CLASSES = 4


def seg_yml(path: Path, depth: int = 0) -> dict[str, Any]:
    """A PaddleSeg yml with its ``_base_`` files merged under it (``_inherited_: False`` replaces a mapping)."""
    doc = read_yaml(path).data
    data: dict[str, Any] = dict(doc) if isinstance(doc, dict) else {}
    bases = data.pop("_base_", ())
    merged: dict[str, Any] = {}
    for base in [bases] if isinstance(bases, str) else list(bases):
        if depth > 8:
            raise ConfigError(str(path), 0, "_base_ files nest more than 8 deep: expected a chain that ends")
        merged = _merge(merged, seg_yml(path.parent / base, depth + 1))
    return _merge(merged, data)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and value.get("_inherited_", True):
            out[key] = _merge(out[key], value)
        else:
            out[key] = {k: v for k, v in value.items() if k != "_inherited_"} if isinstance(value, dict) else value
    return out


@dataclass(frozen=True, slots=True)
class PairSet:
    """Images and labels of one PaddleSeg data set: Cityscapes' folder layout, or a ``Dataset`` list."""

    kind: str  # Cityscapes or Dataset
    root: Path
    split: str  # train or val
    count: int
    list_file: Path | None = None  # Dataset: the list of "image label" lines
    classes: int = SEG_CLASSES  # the label ids drawn: fewer than the data set's num_classes


def pair_sets(plan: Plan, repo: Path, sizes: Sizes) -> tuple[list[PairSet], list[str]]:
    """The data sets the plan's train stages read (train and, for ``--do_eval``, val); what is not made, why."""
    found: dict[tuple[Path, str], PairSet] = {}
    skipped: list[str] = []
    for stage in plan.stages():
        yml = yml_of(stage)
        if stage.kind is not StageKind.TRAIN or yml is None:
            continue
        data = seg_yml(repo / yml)
        for key, split, count in (("train_dataset", "train", sizes.train), ("val_dataset", "val", sizes.eval)):
            spec = data.get(key)
            if not isinstance(spec, dict):
                continue
            kind, root = spec.get("type"), repo / str(spec.get("dataset_root", "."))
            classes = min(SEG_CLASSES, class_count(spec.get("num_classes"), repo / yml, f"{key}.num_classes", 19))
            if kind == "Cityscapes":
                found.setdefault((root, split), PairSet("Cityscapes", root, split, count, None, classes))
            elif kind == "Dataset":
                listed = repo / str(spec.get("train_path" if split == "train" else "val_path", f"{split}.txt"))
                found.setdefault((listed, split), PairSet("Dataset", root, split, count, listed, classes))
            else:
                skipped.append(f"not made    {key} of {yml}: type {kind} (tipc makes Cityscapes and Dataset sets)")
    return list(found.values()), skipped


def _seg_pair(image: Path, label: Path | None, index: int, classes: int = SEG_CLASSES) -> None:
    from PIL import Image  # only when images are made

    width, height = SEG_SIZE
    cls = index % classes
    mask = Image.new("L", SEG_SIZE, cls)
    mask.paste((cls + 1) % classes, (0, height // 2, width, height))
    colors = [((c * 70) % 256, (c * 130 + 60) % 256, (c * 190 + 120) % 256) for c in range(SEG_CLASSES)]
    picture = Image.new("RGB", SEG_SIZE, colors[cls])
    picture.paste(colors[(cls + 1) % classes], (0, height // 2, width, height))
    for path, content in ((image, picture), (label, mask)):
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        content.save(path, "PNG")


def prepare_pairs(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
    """The dialect's ``prepare``: the plan's image/label pairs, and the images the predictor's list names."""
    del seed  # the pairs are drawn, not sampled: the same every time
    sets, done = pair_sets(plan, repo, sizes)
    for item in sets:
        marker = item.list_file or item.root / "gtFine" / item.split
        if marker.exists() and not force:
            done.append(f"kept        {marker} (exists; --force replaces it)")
            continue
        rows = []
        for index in range(item.count):
            if item.kind == "Cityscapes":
                stem = f"tipc_{index:06d}_000000"
                image = item.root / "leftImg8bit" / item.split / "tipc" / f"{stem}_leftImg8bit.png"
                label = item.root / "gtFine" / item.split / "tipc" / f"{stem}_gtFine_labelTrainIds.png"
            else:
                image = item.root / SUBDIR / item.split / f"{index:05d}.png"
                label = item.root / SUBDIR / item.split / f"{index:05d}_label.png"
            _seg_pair(image, label, index, item.classes)
            rows.append(f"{image.relative_to(item.root)} {label.relative_to(item.root)}\n")
        if item.list_file is not None:
            item.list_file.parent.mkdir(parents=True, exist_ok=True)
            item.list_file.write_text("".join(rows))
        done.append(f"made {item.count:>6} pairs   {marker} ({item.kind}, {item.split}, {item.classes} classes)")
    done.extend(_seg_infer_lists(plan, sizes, force))
    return done


def _seg_infer_lists(plan: Plan, sizes: Sizes, force: bool) -> list[str]:
    """A ``--image_path`` that names a list file: that many images beside it, listed."""
    done = []
    lists = {Path(s.cwd) / t.split("=", 1)[1] for s in plan.stages() if s.kind is StageKind.INFER
             for t in s.argv if t.startswith("--image_path=")}  # fmt: skip
    for listed in sorted(lists):
        if listed.suffix not in (".list", ".txt") or (listed.exists() and not force):
            done.append(f"kept        {listed}" if listed.exists() else f"not made    {listed} (not a list file)")
            continue
        names = [f"{SUBDIR}/infer/{index:05d}.png" for index in range(max(1, sizes.infer))]
        for index, name in enumerate(names):
            _seg_pair(listed.parent / name, None, index)
        listed.write_text("".join(f"{name}\n" for name in names))
        done.append(f"made {len(names):>6} images  {listed}")
    return done


# --- PaddleDetection: COCO-style detection json -------------------------------------------------------------------

COCO_SIZE = (160, 128)
COCO_CATEGORIES = 3  # the categories the boxes cycle through (fewer if the model's num_classes is smaller)
COCO_SETS = {StageKind.TRAIN: "TrainDataset", StageKind.EVAL: "EvalDataset"}


def det_yml(path: Path, depth: int = 0) -> dict[str, Any]:
    """A PaddleDetection yml with its ``_BASE_`` files merged under it."""
    data = read_yaml(path, tagged=True).data
    data = dict(data) if isinstance(data, dict) else {}
    merged: dict[str, Any] = {}
    for base in data.pop("_BASE_", ()) or ():
        if depth > 8:
            raise ConfigError(str(path), 0, "_BASE_ files nest more than 8 deep: expected a chain that ends")
        merged = _merge(merged, det_yml(path.parent / base, depth + 1))
    return _merge(merged, data)


@dataclass(frozen=True, slots=True)
class CocoSet:
    images: Path
    annotations: Path
    count: int
    classes: int = COCO_CATEGORIES  # the categories the json lists: the model's num_classes


def coco_sets(plan: Plan, repo: Path, sizes: Sizes) -> list[CocoSet]:
    found: dict[Path, CocoSet] = {}
    for stage in plan.stages():
        key, yml = COCO_SETS.get(stage.kind), yml_of(stage)
        if key is None or yml is None:
            continue
        merged = det_yml(repo / yml)
        spec = merged.get(key)
        words = dict(t.split("=", 1) for t in stage.argv if "=" in t and not t.startswith("-"))
        if not isinstance(spec, dict):
            continue
        classes = class_count(words.get("num_classes", merged.get("num_classes")), repo / yml, "num_classes", 80)
        root = repo / words.get(f"{key}.dataset_dir", str(spec.get("dataset_dir", ".")))
        anno = root / words.get(f"{key}.anno_path", str(spec.get("anno_path", "annotations.json")))
        images = root / words.get(f"{key}.image_dir", str(spec.get("image_dir", "images")))
        count = sizes.train if stage.kind is StageKind.TRAIN else sizes.eval
        found.setdefault(anno, CocoSet(images, anno, count, classes))
    return list(found.values())


def _coco_image(path: Path, index: int) -> list[float]:
    """One picture with one coloured box; its box as COCO's [x, y, w, h]."""
    from PIL import Image, ImageDraw  # only when images are made

    width, height = COCO_SIZE
    picture = Image.new("RGB", COCO_SIZE, (40, 40, 40))
    x, y = 10 + (index * 17) % (width // 2), 10 + (index * 11) % (height // 2)
    box = [float(x), float(y), float(width // 3), float(height // 3)]
    color = ((index * 70) % 256, (index * 130 + 60) % 256, (index * 190 + 120) % 256)
    ImageDraw.Draw(picture).rectangle((x, y, x + box[2], y + box[3]), fill=color)
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(path, "JPEG")
    return box


def prepare_coco(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
    """The dialect's ``prepare``: the COCO sets the train and eval stages read, and the infer images."""
    del seed  # drawn, not sampled
    done = []
    for item in coco_sets(plan, repo, sizes):
        if item.annotations.exists() and not force:
            done.append(f"kept        {item.annotations} (exists; --force replaces it)")
            continue
        images, annotations = [], []
        for index in range(item.count):
            name = f"tipc_{index:06d}.jpg"
            box = _coco_image(item.images / name, index)
            images.append({"id": index + 1, "file_name": name, "width": COCO_SIZE[0], "height": COCO_SIZE[1]})
            category = index % min(COCO_CATEGORIES, item.classes) + 1
            annotations.append({"id": index + 1, "image_id": index + 1, "category_id": category,
                                "bbox": box, "area": box[2] * box[3], "iscrowd": 0})  # fmt: skip
        categories = [{"id": c + 1, "name": f"class{c + 1}", "supercategory": "tipc"} for c in range(item.classes)]
        item.annotations.parent.mkdir(parents=True, exist_ok=True)
        doc = {"images": images, "annotations": annotations, "categories": categories}
        item.annotations.write_text(json.dumps(doc))
        done.append(f"made {item.count:>6} images  {item.annotations} (COCO, {item.classes} categories)")
    folders = {Path(s.cwd) / t.split("=", 1)[1] for s in plan.stages() if s.kind is StageKind.INFER
               for t in s.argv if t.startswith("--image_dir=")}  # fmt: skip
    for folder in sorted(folders):
        if folder.is_dir() and any(folder.iterdir()) and not force:
            done.append(f"kept        {folder}")
            continue
        for index in range(max(1, sizes.infer)):
            _coco_image(folder / f"tipc_{index:06d}.jpg", index)
        done.append(f"made {max(1, sizes.infer):>6} images  {folder}")
    return done
