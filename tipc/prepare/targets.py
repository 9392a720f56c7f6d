"""From a config and a mode to the list of things ``tipc prepare`` must make.

Pure apart from reading the training yml and the character dict it names:
nothing is written here (``tipc.prepare.apply`` does that).
"""

from __future__ import annotations

import itertools
import zlib
from dataclasses import dataclass
from pathlib import Path

from tipc.config.model import Field, TipcConfig
from tipc.errors import ConfigError
from tipc.plan.shellwords import split_words
from tipc.prepare.charset import NO_DICT_CHARSET, charset_for_dict
from tipc.prepare.sizes import Sizes
from tipc.prepare.trainyml import DEFAULT_IMAGE_HEIGHT, TrainYml, read_train_yml

_DEFAULT_MIN_LEN, _DEFAULT_MAX_LEN = 3, 8
_TRAINER_SCRIPTS = ("norm_train", "pact_train", "fpgm_train", "distill_train")
_EXPORT_SCRIPTS = ("norm_export", "quant_export", "fpgm_export", "distill_export")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".gif")


@dataclass(frozen=True, slots=True)
class TextStyle:
    """What every generated line of one model looks like."""

    charset: str
    image_height: int
    min_len: int
    max_len: int


@dataclass(frozen=True, slots=True)
class RecDataset:
    """A labelled set: images under ``data_dir`` plus one SimpleDataSet label file."""

    role: str  # "train" or "eval"
    data_dir: Path  # absolute
    label_file: Path  # absolute
    count: int
    seed: int
    style: TextStyle


@dataclass(frozen=True, slots=True)
class ImageDir:
    """Unlabelled images for the predictor's ``--image_dir``."""

    dir: Path  # absolute
    count: int
    seed: int
    style: TextStyle


Target = RecDataset | ImageDir


@dataclass(frozen=True, slots=True)
class MissingModel:
    """A whole_infer model (or checkpoint to export) absent from the repo."""

    path: str  # as the config wrote it
    line: int
    is_checkpoint: bool


@dataclass(frozen=True, slots=True)
class PrepareJob:
    targets: tuple[Target, ...]
    missing_models: tuple[MissingModel, ...]


def derive_seed(seed: int, *parts: str) -> int:
    """A seed per data set, so train, eval and inference images never coincide."""
    return zlib.crc32(":".join((str(seed), *parts)).encode("utf-8"))


def yml_of_script(field: Field, config_path: str) -> str | None:
    """The ``-c <yml>`` argument of a trainer/export script line (None when it has none)."""
    if field.is_null:
        return None
    try:
        words = split_words(field.value)
    except ValueError as exc:
        raise ConfigError(config_path, field.line, f"cannot split script '{field.value}': {exc}") from None
    for flag, value in itertools.pairwise(words):
        if flag in ("-c", "--config"):
            return value
    return None


def _script_fields(config: TipcConfig, train_modes: bool) -> list[Field]:
    """Fields whose scripts name the yml: the listed trainers first, then exports."""
    by_name = {name: getattr(config, name) for name in _TRAINER_SCRIPTS}
    by_name[config.custom_train.key] = config.custom_train
    fields = [by_name[name] for name in config.trainer.values() if name in by_name]
    exports = [getattr(config, name) for name in _EXPORT_SCRIPTS]
    return fields + exports if not train_modes or not fields else fields


def find_train_ymls(config: TipcConfig, repo: Path, *, train_modes: bool) -> tuple[TrainYml, ...]:
    """Every distinct yml the config's scripts name, read, in script order."""
    seen: dict[str, TrainYml] = {}
    for field in _script_fields(config, train_modes):
        yml = yml_of_script(field, config.path)
        if yml is None or yml in seen:
            continue
        path = repo / yml
        if not path.is_file():
            raise ConfigError(config.path, field.line, f"training yml '{yml}' not found under repo {repo}")
        seen[yml] = read_train_yml(path)
    if train_modes and not seen:
        raise ConfigError(
            config.path,
            config.trainer.line,
            "no trainer script with '-c <yml>': cannot tell where the training data goes",
        )
    return tuple(seen.values())


def _require_rec(yml: TrainYml) -> None:
    if yml.model_type == "rec":
        return
    kind = "detection" if yml.model_type == "det" else f"'{yml.model_type}'"
    raise ConfigError(
        str(yml.path),
        yml.model_type_line,
        f"prepare: {kind} datasets are not supported offline yet "
        "(only recognition models, Architecture.model_type: rec)",
    )


def text_style(yml: TrainYml | None, repo: Path) -> TextStyle:
    if yml is None:
        return TextStyle(NO_DICT_CHARSET, DEFAULT_IMAGE_HEIGHT, _DEFAULT_MIN_LEN, _DEFAULT_MAX_LEN)
    dict_path = repo / yml.dict_path if yml.dict_path else None
    charset = charset_for_dict(dict_path, named_in=str(yml.path))
    max_len = min(_DEFAULT_MAX_LEN, yml.max_text_length or _DEFAULT_MAX_LEN)
    return TextStyle(charset, yml.image_height, min(_DEFAULT_MIN_LEN, max_len), max_len)


def _rec_datasets(yml: TrainYml, repo: Path, sizes: Sizes, seed: int, style: TextStyle) -> list[RecDataset]:
    datasets = []
    for role, spec, count in (("train", yml.train, sizes.train), ("eval", yml.eval, sizes.eval)):
        if spec is None or count == 0:
            continue
        # Several label files share the count, so a mode's size is the size of the whole set.
        share = max(1, -(-count // len(spec.label_files)))
        for label in spec.label_files:
            datasets.append(
                RecDataset(
                    role,
                    (repo / spec.data_dir).absolute(),
                    (repo / label).absolute(),
                    share,
                    derive_seed(seed, role, label),
                    style,
                )
            )
    return datasets


def _infer_field(config: TipcConfig, mode: str) -> Field:
    # The bash reads --image_dir's value only in whole_infer; training modes use idx 11.
    return config.image_dir if mode == "whole_infer" else config.train_infer_img_dir


def _image_dir(config: TipcConfig, mode: str, repo: Path, sizes: Sizes, seed: int, style: TextStyle) -> list[ImageDir]:
    field = _infer_field(config, mode)
    if field.is_null or sizes.infer == 0:
        return []
    if Path(field.value).suffix.lower() in _IMAGE_SUFFIXES:
        raise ConfigError(
            config.path,
            field.line,
            f"prepare: image path '{field.value}' is a single file; only image directories are made",
        )
    return [ImageDir((repo / field.value).absolute(), sizes.infer, derive_seed(seed, "infer", field.value), style)]


def _missing_models(config: TipcConfig, repo: Path) -> tuple[MissingModel, ...]:
    if config.infer_model.is_null:
        return ()
    exports = config.infer_export.values()
    missing = []
    for index, model in enumerate(config.infer_model.values()):
        export = exports[index] if index < len(exports) else ""
        is_checkpoint = export not in ("", "null")
        path = repo / model
        present = path.with_name(path.name + ".pdparams").is_file() if is_checkpoint else path.is_dir()
        if not present:
            missing.append(MissingModel(model, config.infer_model.line, is_checkpoint))
    return tuple(missing)


def plan_prepare(config: TipcConfig, repo: Path, mode: str, sizes: Sizes, seed: int) -> PrepareJob:
    """The data sets ``mode`` reads, at the paths the config and its yml name."""
    train_modes = mode != "whole_infer"
    ymls = find_train_ymls(config, repo, train_modes=train_modes)
    for yml in ymls:
        _require_rec(yml)
    targets: list[Target] = []
    seen_labels: set[Path] = set()
    for yml in ymls if train_modes else ():
        style = text_style(yml, repo)
        for dataset in _rec_datasets(yml, repo, sizes, seed, style):
            if dataset.label_file not in seen_labels:  # a later yml reading the same file changes nothing
                seen_labels.add(dataset.label_file)
                targets.append(dataset)
    targets.extend(_image_dir(config, mode, repo, sizes, seed, text_style(ymls[0] if ymls else None, repo)))
    return PrepareJob(tuple(targets), () if train_modes else _missing_models(config, repo))
