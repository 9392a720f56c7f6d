"""``tipc prepare`` for PaddleSeg: image/label pairs, made offline from what the plan's stages read.

A train stage reads its yml's ``train_dataset`` and ``val_dataset`` (``_base_`` files merged): a ``Cityscapes`` set
is its folder layout (``leftImg8bit/<split>/…_leftImg8bit.png`` beside ``gtFine/<split>/…_gtFine_labelTrainIds.png``),
a ``Dataset`` set a list of ``image label`` lines; the predictor's ``--image_path`` list gets images beside it. A
label uses no class id at or over its data set's ``num_classes``; the images cycle through at most a few classes, so
a short training can learn them. What exists is kept unless ``force`` (it may be the real data set).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tipc.plan.model import Plan, StageKind
from tipc.prepare.sizes import Sizes
from tipc.suites.prepare import SUBDIR, class_count, colour, merged_yml, yml_of

SEG_SIZE = (128, 64)  # width, height: the transforms pad and crop to their own size
SEG_CLASSES = 4


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
        data = merged_yml(repo / yml, "_base_")
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
    colors = [colour(c) for c in range(SEG_CLASSES)]
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
