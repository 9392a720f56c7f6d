"""Where goldens live, and how they read and write.

A golden is looked up per config, mode and inference precision in a golden folder (``--golden-dir``,
else ``golden/`` beside the config), first match wins:

1. ``<dir>/<config stem>/<mode>_<precision>.yaml`` (tipc's, one per precision where it matters)
2. ``<dir>/<config stem>/<mode>.yaml`` (tipc's, any precision; tolerances by precision)
3. ``<dir>/python_*<precision>*.txt``: PaddleOCR's ``test_tipc/results/`` files as they are
   (``<image>\\t<json boxes>`` or flat integers, what ``compare_results.py`` reads; predictions only)

Bad content is an ``InputError`` naming the file, the line and what was expected.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tipc.config.bounds import read_bounded
from tipc.config.yamldoc import YamlDoc, read_yaml
from tipc.errors import ConfigError, InputError
from tipc.files.write import under
from tipc.golden.model import TOLERANCE_FIELDS, Golden, Tolerance, TrainFacts, default_tolerance
from tipc.metrics.predictions import Box, Detected, MaskSummary, Prediction, Ranked, image_key, parse_boxes

HEADER = "# tipc golden results: see README.md, 'Golden results'. Written by `tipc golden update`; edit freely.\n"


class GoldenError(InputError):
    """A golden file that cannot be read: ``path:line: message``."""


def find_golden(folder: Path, config_stem: str, mode: str, precision: str) -> Path | None:
    """The golden file for a config, mode and precision, or None (no golden)."""
    for path in (golden_path(folder, config_stem, mode, precision), under(folder, config_stem, mode, suffix=".yaml")):
        if path.is_file():
            return path
    results = sorted(p for p in folder.glob("python_*.txt") if precision in p.name)
    if len(results) > 1:
        names = ", ".join(p.name for p in results)
        raise GoldenError(str(folder), 0, f"several results files for {precision} ({names}); expected one")
    return results[0] if results else None


def golden_path(folder: Path, config_stem: str, mode: str, precision: str) -> Path:
    """Where ``tipc golden update`` writes the golden of a config, mode and precision: each name made
    one safe component by the write door (a precision of ``../../x`` stays a file name in the folder)."""
    return under(folder, config_stem, f"{mode}_{precision}", suffix=".yaml")


def read_golden(path: Path, precision: str) -> Golden:
    if path.suffix == ".txt":
        return read_results_txt(path, precision)
    try:
        doc = read_yaml(path)
    except ConfigError as exc:
        raise GoldenError(exc.path, exc.line, exc.message) from None
    if not isinstance(doc.data, dict):
        raise GoldenError(str(path), 1, "expected a mapping with tolerance, train, eval and predictions")
    given = _numbers(doc, ("tolerance",), TOLERANCE_FIELDS)
    for name, value in given.items():
        if value < 0:
            raise _fail(doc, f"tolerance.{name}: {value}: expected a number >= 0", "tolerance", name)
    tolerance = default_tolerance(precision).merged(given)
    expected = _numbers(doc, ("eval",))
    train = None
    if doc.get("train") is not None:
        train_map = _mapping(doc, "train")
        floors = _numbers(doc, ("train", "metric_floor")) if "metric_floor" in train_map else {}
        _check_floors(doc, floors, expected, tolerance)
        drop = _number(doc, train_map.get("loss_drop", 0.0), "train", "loss_drop")
        if not 0 <= drop < 1:
            raise _fail(doc, f"train.loss_drop: {drop}: expected a fraction of the first loss, 0 <= drop < 1", "train")
        train = TrainFacts(loss_drop=drop, metric_floor=floors)
    predictions = {key: _prediction(doc, key, value) for key, value in _mapping(doc, "predictions").items()}
    return Golden(str(path), precision, tolerance, predictions, expected, train)


def _check_floors(
    doc: YamlDoc, floors: Mapping[str, float], expected: Mapping[str, float], tolerance: Tolerance
) -> None:
    """A floor no run that meets the golden's own eval value could pass is a mistake, not a check."""
    for name, floor in floors.items():
        if name in expected and floor > expected[name] + tolerance.metric:
            raise _fail(
                doc,
                f"train.metric_floor.{name}: {floor} is above eval.{name} ({expected[name]}) and its tolerance: "
                "no run that matches this golden could pass it",
                "train",
                "metric_floor",
                name,
            )


def _fail(doc: YamlDoc, message: str, *keys: str) -> GoldenError:
    return GoldenError(str(doc.path), doc.line(*keys) or 1, message)


def _mapping(doc: YamlDoc, *keys: str) -> dict[str, Any]:
    value = doc.get(*keys, default={})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(doc, f"{'.'.join(keys)}: expected a mapping, found {type(value).__name__}", *keys)
    return {str(k): v for k, v in value.items()}


def _number(doc: YamlDoc, value: Any, *keys: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(doc, f"{'.'.join(keys)}: expected a finite number, found {value!r:.60}", *keys)
    return float(value)


def _numbers(doc: YamlDoc, keys: tuple[str, ...], allowed: tuple[str, ...] = ()) -> dict[str, float]:
    """A mapping of names to numbers (only the ``allowed`` names, when given)."""
    found = {}
    for name, value in _mapping(doc, *keys).items():
        if allowed and name not in allowed:
            raise _fail(doc, f"{'.'.join(keys)}: unknown key {name!r}, expected {', '.join(allowed)}", *keys, name)
        found[name] = _number(doc, value, *keys, name)
    return found


PREDICTION_KEYS = ("text", "boxes", "top_k", "objects", "mask")
_SHAPES = "{text, score}, {boxes}, {top_k}, {objects} or {mask}"


def _prediction(doc: YamlDoc, key: str, value: Any) -> Prediction:
    where = ("predictions", key)
    if not isinstance(value, dict) or not (set(PREDICTION_KEYS) & value.keys()):
        raise _fail(doc, f"predictions.{key}: expected {_SHAPES}", *where)
    if "boxes" in value:
        boxes = parse_boxes(value["boxes"])
        if boxes is None:
            raise _fail(doc, f"predictions.{key}.boxes: expected a list of [[x, y], ...] boxes", *where)
        return Prediction(key, boxes=boxes)
    if "top_k" in value:
        return Prediction(key, top_k=tuple(_ranked(doc, key, item) for item in _items(doc, key, value, "top_k")))
    if "objects" in value:
        return Prediction(key, objects=tuple(_detected(doc, key, item) for item in _items(doc, key, value, "objects")))
    if "mask" in value:
        return Prediction(key, mask=_mask(doc, key, value["mask"]))
    text = value["text"]
    if not isinstance(text, str):
        raise _fail(doc, f"predictions.{key}.text: expected a string, found {text!r}", *where)
    return Prediction(key, text=text, score=_number(doc, value.get("score"), *where, "score"))


def _items(doc: YamlDoc, key: str, value: dict[str, Any], name: str) -> list[dict[str, Any]]:
    items = value[name]
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise _fail(doc, f"predictions.{key}.{name}: expected a list of mappings", "predictions", key)
    return items


def _class_id(doc: YamlDoc, key: str, item: dict[str, Any]) -> int:
    value = item.get("class_id")
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(doc, f"predictions.{key}: class_id: expected an integer, found {value!r:.60}", "predictions", key)
    return value


def _ranked(doc: YamlDoc, key: str, item: dict[str, Any]) -> Ranked:
    score = _number(doc, item.get("score"), "predictions", key, "score")
    return Ranked(_class_id(doc, key, item), score, str(item.get("label", "")))


def _detected(doc: YamlDoc, key: str, item: dict[str, Any]) -> Detected:
    score = _number(doc, item.get("score"), "predictions", key, "score")
    box = item.get("box")
    if not isinstance(box, list) or len(box) != 4:
        raise _fail(doc, f"predictions.{key}: box: expected [x_min, y_min, x_max, y_max]", "predictions", key)
    x0, y0, x1, y1 = (_number(doc, v, "predictions", key, "box") for v in box)
    return Detected(_class_id(doc, key, item), score, (x0, y0, x1, y1))


def _mask(doc: YamlDoc, key: str, value: Any) -> MaskSummary:
    where = ("predictions", key)
    expected = f"predictions.{key}.mask: expected {{shape: [height, width], fractions: {{class id: share}}}}"
    if not isinstance(value, dict) or not isinstance(value.get("fractions"), dict):
        raise _fail(doc, expected, *where)
    shape = value.get("shape")
    if not isinstance(shape, list) or len(shape) != 2 or not all(isinstance(v, int) and v >= 0 for v in shape):
        raise _fail(doc, expected, *where)
    fractions = []
    for cls, share in value["fractions"].items():
        if isinstance(cls, bool) or not isinstance(cls, int):
            raise _fail(doc, f"{expected}: class {cls!r} is not an integer", *where)
        fractions.append((cls, _number(doc, share, *where, "mask")))
    return MaskSummary(shape[0], shape[1], tuple(sorted(fractions)))


def read_results_txt(path: Path, precision: str) -> Golden:
    """PaddleOCR's ``test_tipc/results/*.txt``: ``<image path>\\t<json boxes | flat integers>``."""
    text = read_bounded(path, expected="a results file (python_*.txt)").decode("utf-8", errors="replace")
    predictions = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        image, tab, value = line.partition("\t")
        boxes = _txt_boxes(value) if tab else None
        if boxes is None:
            raise GoldenError(
                str(path), number, "expected '<image>\\t<json boxes>' or '<image>\\t<x1 y1 ... x4 y4 ...>'"
            )
        predictions[image_key(image)] = Prediction(image_key(image), boxes=boxes)
    return Golden(str(path), precision, default_tolerance(precision), predictions)


def _txt_boxes(value: str) -> tuple[Box, ...] | None:
    try:
        return parse_boxes(json.loads(value))
    except ValueError:
        pass
    try:
        flat = [float(v) for v in value.split()]
    except ValueError:
        return None
    if len(flat) % 8:
        return None
    return tuple(tuple(zip(flat[i : i + 8 : 2], flat[i + 1 : i + 8 : 2], strict=True)) for i in range(0, len(flat), 8))


def golden_text(golden: Golden, origin: str = "") -> str:
    """A golden as tipc's YAML (what ``read_golden`` reads back); ``origin``: a comment on where it came from."""
    doc: dict[str, Any] = {"precision": golden.precision, "tolerance": _plain(golden.tolerance)}
    if golden.train is not None:
        doc["train"] = {"loss_drop": golden.train.loss_drop, "metric_floor": dict(golden.train.metric_floor)}
    doc["eval"] = dict(golden.eval)
    doc["predictions"] = {key: _expected(p) for key, p in golden.predictions.items()}
    comment = f"# {origin}\n" if origin else ""
    return HEADER + comment + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _plain(tolerance: Tolerance) -> Mapping[str, float]:
    return {name: getattr(tolerance, name) for name in TOLERANCE_FIELDS}


def _expected(p: Prediction) -> dict[str, Any]:
    if p.boxes is not None:
        return {"boxes": [[list(point) for point in box] for box in p.boxes]}
    if p.top_k is not None:
        return {
            "top_k": [
                {"class_id": r.class_id, "score": r.score, **({"label": r.label} if r.label else {})} for r in p.top_k
            ]
        }
    if p.objects is not None:
        return {"objects": [{"class_id": d.class_id, "score": d.score, "box": list(d.box)} for d in p.objects]}
    if p.mask is not None:
        mask = p.mask
        return {"mask": {"shape": [mask.height, mask.width], "fractions": {c: round(f, 6) for c, f in mask.fractions}}}
    return {"text": p.text, "score": p.score}
