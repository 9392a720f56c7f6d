"""What a PaddleOCR-style training yml says about the data it reads.

Only the keys that decide where data lives and what it must look like:
``Train``/``Eval`` ``dataset.name``, ``dataset.data_dir`` and
``dataset.label_file_list``, the transforms' names, ``Global.character_dict_path``,
``Global.max_text_length``, ``Global.label_list`` and the image height of the
resize transform. Parse a ``YamlDoc`` with a stage's overrides laid over it
(``tipc.dialects.paddleocr.prepare.overrides``) to see what that stage reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tipc.config.yamldoc import YamlDoc, read_yaml

DEFAULT_IMAGE_HEIGHT = 32
# Transforms whose presence marks a detection pipeline even without model_type.
_DET_TRANSFORMS = ("DetLabelEncode", "MakeShrinkMap", "MakeBorderMap", "EastRandomCropData")


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """One ``SimpleDataSet``: paths as the yml wrote them (relative to the repo)."""

    data_dir: str
    label_files: tuple[str, ...]  # () when the yml lists none (an LMDB data set)
    name: str = ""  # the dataset class, e.g. SimpleDataSet ("" when the yml does not say)


@dataclass(frozen=True, slots=True)
class TrainYml:
    path: Path
    model_type: str  # "rec", "det", ...; "rec" when the yml does not say and nothing says det
    train: DatasetSpec | None
    eval: DatasetSpec | None
    dict_path: str | None
    max_text_length: int | None
    image_height: int
    model_type_at: tuple[str, int] = ("", 0)  # (file, line) that set Architecture.model_type (line 0: none)
    transforms: tuple[str, ...] = ()  # Train's then Eval's transform names
    label_list: tuple[str, ...] = ()  # Global.label_list (direction classifiers)


def _dataset(doc: YamlDoc, section: str) -> DatasetSpec | None:
    dataset = doc.get(section, "dataset")
    if dataset is None:
        return None
    if not isinstance(dataset, dict):
        raise doc.error(f"{section}.dataset: expected a mapping, found {type(dataset).__name__}", section, "dataset")
    data_dir = dataset.get("data_dir")
    if not isinstance(data_dir, str) or not data_dir.strip():
        raise doc.error(
            f"{section}.dataset.data_dir: expected a directory path, found {data_dir!r}", section, "dataset", "data_dir"
        )
    # LMDB-style data sets have no label files; whether that suits the model is families' call.
    labels = dataset.get("label_file_list", [])
    if isinstance(labels, str):
        labels = [labels]
    present = "label_file_list" in dataset
    if (
        not isinstance(labels, list)
        or (present and not labels)
        or not all(isinstance(x, str) and x.strip() for x in labels)
    ):
        raise doc.error(
            f"{section}.dataset.label_file_list: expected a non-empty list of paths, found {labels!r}",
            section,
            "dataset",
            "label_file_list",
        )
    name = dataset.get("name")
    name = name.strip() if isinstance(name, str) else ""
    return DatasetSpec(data_dir.strip(), tuple(x.strip() for x in labels), name)


def _transform_names(doc: YamlDoc) -> list[tuple[str, object]]:
    ops: list[tuple[str, object]] = []
    for section in ("Train", "Eval"):
        transforms = doc.get(section, "dataset", "transforms") or []
        for op in transforms if isinstance(transforms, list) else []:
            if isinstance(op, dict):
                ops.extend(op.items())
            elif isinstance(op, str):
                ops.append((op, None))
    return ops


def height_from_shape(shape: object) -> int | None:
    """The height in a CHW (``[3,48,320]``), HWC (``[48,320,3]``) or HW (``[32,100]``) shape."""
    if not isinstance(shape, (list, tuple)) or not all(isinstance(x, int) for x in shape):
        return None
    if len(shape) == 3:
        height = shape[1] if shape[0] in (1, 3) else shape[0] if shape[-1] in (1, 3) else None
    elif len(shape) == 2:
        height = shape[0]
    else:
        height = None
    return height if height is not None and height > 0 else None


def _image_height(doc: YamlDoc, ops: list[tuple[str, object]]) -> int:
    for name, args in ops:
        if "Resize" in name and isinstance(args, dict):
            height = height_from_shape(args.get("image_shape"))
            if height:
                return height
    return height_from_shape(doc.get("Global", "d2s_train_image_shape")) or DEFAULT_IMAGE_HEIGHT


def _model_type(doc: YamlDoc, ops: list[tuple[str, object]]) -> str:
    declared = doc.get("Architecture", "model_type")
    if isinstance(declared, str) and declared.strip():
        return declared.strip()
    return "det" if any(name in _DET_TRANSFORMS for name, _ in ops) else "rec"


def _max_text_length(doc: YamlDoc) -> int | None:
    value = doc.get("Global", "max_text_length")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise doc.error(
            f"Global.max_text_length: expected a positive integer, found {value!r}", "Global", "max_text_length"
        )
    return value


def _label_list(doc: YamlDoc) -> tuple[str, ...]:
    value = doc.get("Global", "label_list")
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(x, (str, int)) for x in value):
        raise doc.error(
            f"Global.label_list: expected a non-empty list of labels, found {value!r}", "Global", "label_list"
        )
    return tuple(str(x) for x in value)


def parse_train_yml(doc: YamlDoc) -> TrainYml:
    if not isinstance(doc.data, dict):
        raise doc.error(f"expected a mapping at the top level, found {type(doc.data).__name__}")
    ops = _transform_names(doc)
    dict_path = doc.get("Global", "character_dict_path")
    return TrainYml(
        path=doc.path,
        model_type=_model_type(doc, ops),
        train=_dataset(doc, "Train"),
        eval=_dataset(doc, "Eval"),
        dict_path=dict_path.strip() if isinstance(dict_path, str) and dict_path.strip() else None,
        max_text_length=_max_text_length(doc),
        image_height=_image_height(doc, ops),
        model_type_at=doc.where("Architecture", "model_type"),
        transforms=tuple(name for name, _ in ops),
        label_list=_label_list(doc),
    )


def read_train_yml(path: Path) -> TrainYml:
    return parse_train_yml(read_yaml(path))
