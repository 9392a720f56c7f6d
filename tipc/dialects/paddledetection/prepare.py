"""``tipc prepare`` for PaddleDetection: COCO-style detection json, made offline from what the plan's stages read.

A train or eval stage reads its yml's ``TrainDataset`` / ``EvalDataset`` (``_BASE_`` files merged, class tags read
as plain mappings) under the stage's ``Key=value`` words: images in ``dataset_dir/image_dir`` and a COCO json at
``dataset_dir/anno_path``; the predictor's ``--image_dir`` gets images. The json lists as many categories as the
yml's ``num_classes`` (an 80-class COCO model's eval maps each class it predicts to a category: with fewer it fails,
``KeyError: 3``); the boxes cycle through at most a few, so a short training can learn them. What exists is kept
unless ``force`` (it may be the real data set).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tipc.plan.model import Plan, StageKind
from tipc.prepare.sizes import Sizes
from tipc.suites.prepare import class_count, colour, merged_yml, yml_of

COCO_SIZE = (160, 128)
COCO_CATEGORIES = 3  # the categories the boxes cycle through (fewer if the model's num_classes is smaller)
COCO_SETS = {StageKind.TRAIN: "TrainDataset", StageKind.EVAL: "EvalDataset"}


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
        merged = merged_yml(repo / yml, "_BASE_", tagged=True)
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
    color = colour(index)
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
