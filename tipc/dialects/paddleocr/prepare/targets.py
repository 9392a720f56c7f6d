"""From a config, its plan and a mode's sizes to the data sets ``tipc prepare`` must make.

The paths are those the plan's commands read (``tipc.dialects.paddleocr.prepare.reads``): each train or eval
stage's yml with that stage's own ``-o`` overrides laid over it, and each infer stage's
image dir. Pure apart from reading the ymls and the character dicts they name: nothing is
written here (``tipc.dialects.paddleocr.prepare.apply`` does that).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from tipc.config.model import Field, TipcConfig
from tipc.config.yamldoc import YamlDoc, read_yaml
from tipc.dialects.paddleocr.prepare.charset import NO_DICT_CHARSET, charset_for_dict
from tipc.dialects.paddleocr.prepare.families import Family, Unsupported, classify
from tipc.dialects.paddleocr.prepare.overrides import with_overrides
from tipc.dialects.paddleocr.prepare.reads import ImageRead, YmlRead, stage_reads
from tipc.dialects.paddleocr.prepare.styles import ClsStyle, DetStyle, Style, TextStyle
from tipc.dialects.paddleocr.prepare.trainyml import DEFAULT_IMAGE_HEIGHT, TrainYml, parse_train_yml
from tipc.errors import ConfigError
from tipc.plan.model import Plan, StageKind
from tipc.plan.shellwords import split_words
from tipc.prepare.sizes import Sizes
from tipc.prepare.toolargs import CONFIG_FLAGS, flag_value

_DEFAULT_MIN_LEN, _DEFAULT_MAX_LEN = 3, 8
DEFAULT_CLS_LABELS = ("0", "180")  # PaddleOCR's direction classifier when the yml lists none
_TRAINER_SCRIPTS = ("norm_train", "pact_train", "fpgm_train", "distill_train")
_EXPORT_SCRIPTS = ("norm_export", "quant_export", "fpgm_export", "distill_export")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".gif")
_COUNT_OF = {"Train": "train", "Eval": "eval"}


@dataclass(frozen=True, slots=True)
class LabelledSet:
    """Images under ``data_dir`` plus one SimpleDataSet label file."""

    role: str  # "train" or "eval"
    data_dir: Path  # absolute
    label_file: Path  # absolute
    count: int
    seed: int
    style: Style


@dataclass(frozen=True, slots=True)
class ImageDir:
    """Unlabelled images for the predictor's image dir."""

    dir: Path  # absolute
    count: int
    seed: int
    style: Style


Target = LabelledSet | ImageDir


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


@dataclass(frozen=True, slots=True)
class _Model:
    """A yml as one stage reads it."""

    yml: TrainYml
    family: Family | Unsupported
    stage: str = ""  # "" for the yml of the config's scripts that no stage of the plan reads
    line: int = 0  # the config line of the stage's script
    sections: tuple[str, ...] = ()  # the data sets the stage loads


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
    return flag_value(words, *CONFIG_FLAGS)


def text_style(yml: TrainYml | None, repo: Path) -> TextStyle:
    if yml is None:
        return TextStyle(NO_DICT_CHARSET, DEFAULT_IMAGE_HEIGHT, _DEFAULT_MIN_LEN, _DEFAULT_MAX_LEN)
    dict_path = repo / yml.dict_path if yml.dict_path else None
    charset = charset_for_dict(dict_path, named_in=str(yml.path))
    max_len = min(_DEFAULT_MAX_LEN, yml.max_text_length or _DEFAULT_MAX_LEN)
    return TextStyle(charset, yml.image_height, min(_DEFAULT_MIN_LEN, max_len), max_len)


def style_of(yml: TrainYml | None, family: Family, repo: Path) -> Style:
    text = text_style(yml, repo)
    if family is Family.DET:
        return DetStyle(text.charset, text.min_len, text.max_len)
    if family is Family.CLS:
        return ClsStyle(text, (yml.label_list if yml else ()) or DEFAULT_CLS_LABELS)
    return text


def _read_yml(repo: Path, yml: str, config: TipcConfig, line: int, docs: dict[str, YamlDoc]) -> YamlDoc:
    if yml not in docs:
        path = repo / yml
        if not path.is_file():
            raise ConfigError(config.path, line, f"training yml '{yml}' not found under repo {repo}")
        docs[yml] = read_yaml(path)
    return docs[yml]


def _plan_models(config: TipcConfig, reads: tuple[YmlRead, ...], repo: Path) -> list[_Model]:
    docs: dict[str, YamlDoc] = {}
    models = []
    for read in reads:
        if read.yml is None:
            if read.kind is StageKind.TRAIN:
                raise ConfigError(
                    config.path,
                    read.line,
                    f"stage {read.stage}: its command has no '-c <yml>': cannot tell where the training data goes",
                )
            continue
        yml = parse_train_yml(with_overrides(_read_yml(repo, read.yml, config, read.line, docs), read.overrides))
        models.append(_Model(yml, classify(yml), read.stage, read.line, read.sections))
    return models


def _script_model(config: TipcConfig, repo: Path) -> _Model | None:
    """The first yml the config's trainer or export scripts name: the model of a plan whose
    stages name none (whole_infer without an export)."""
    scripts = {name: getattr(config, name) for name in _TRAINER_SCRIPTS}
    scripts[config.custom_train.key] = config.custom_train
    trainers = [scripts[name] for name in config.trainer.values() if name in scripts]
    for field in [*trainers, *(getattr(config, name) for name in _EXPORT_SCRIPTS)]:
        yml = yml_of_script(field, config.path)
        if yml is not None:
            parsed = parse_train_yml(_read_yml(repo, yml, config, field.line, {}))
            return _Model(parsed, classify(parsed))
    return None


def _config_rel(config: TipcConfig, repo: Path) -> str:
    path = Path(config.path).absolute()
    return path.relative_to(repo).as_posix() if path.is_relative_to(repo) else str(path)


def _refusal(
    config: TipcConfig, plan: Plan, models: list[_Model], images: tuple[ImageRead, ...], refused: _Model, reason: str
) -> ConfigError:
    """The error naming every path the plan's stages read, and the online way to get them."""
    repo = Path(plan.cwd)
    needs: list[str] = []
    for model in models:
        for section in model.sections:
            spec = model.yml.train if section == "Train" else model.yml.eval
            if spec is not None:
                labels = ", ".join(spec.label_files) or "no label file"
                needs.append(f"{section}.dataset data_dir {spec.data_dir} with {labels}")
    needs.extend(f"images {image.path}" for image in images)
    return ConfigError(
        *refused.yml.model_type_at,
        f"prepare: {reason}: tipc makes offline data for rec, det and cls SimpleDataSet models only. "
        f"The stages read: {'; '.join(dict.fromkeys(needs)) or 'no data set'}. "
        "Make them with PaddleOCR's own script where the network reaches Paddle's hosts: "
        f"bash test_tipc/prepare.sh {_config_rel(config, repo)} {plan.mode} (in {repo})",
    )


def _supported(
    config: TipcConfig, plan: Plan, models: list[_Model], images: tuple[ImageRead, ...]
) -> list[tuple[_Model, Family]]:
    checked = []
    for model in models:
        if isinstance(model.family, Unsupported):
            raise _refusal(config, plan, models, images, model, model.family.reason)
        checked.append((model, model.family))
    return checked


def _labelled_sets(
    config: TipcConfig, models: list[tuple[_Model, Family]], repo: Path, sizes: Sizes, seed: int
) -> list[LabelledSet]:
    sets: dict[Path, tuple[LabelledSet, _Model]] = {}
    for model, family in models:
        style = style_of(model.yml, family, repo)
        for section in model.sections:
            spec = model.yml.train if section == "Train" else model.yml.eval
            role = _COUNT_OF[section]
            count = getattr(sizes, role)
            if spec is None or count == 0:
                continue
            # Several label files share the count, so a mode's size is the size of the whole set.
            share = max(1, -(-count // len(spec.label_files)))
            for label in spec.label_files:
                made = LabelledSet(
                    role, repo / spec.data_dir, repo / label, share, derive_seed(seed, role, label), style
                )
                _add_set(config, sets, made, model)
    return [made for made, _ in sets.values()]


def _add_set(
    config: TipcConfig, sets: dict[Path, tuple[LabelledSet, _Model]], made: LabelledSet, model: _Model
) -> None:
    """Keep the first set of each label file (a later stage reading it changes nothing), unless
    the later one reads it under another data_dir: the label lines cannot serve both."""
    earlier = sets.setdefault(made.label_file, (made, model))
    first, first_model = earlier
    if first.data_dir != made.data_dir:
        raise ConfigError(
            config.path,
            model.line,
            f"stage {model.stage} reads {made.label_file} under data_dir {made.data_dir}, stage "
            f"{first_model.stage} under {first.data_dir}; expected one data_dir per label file "
            "(the label lines are relative to it)",
        )


def _image_dirs(
    config: TipcConfig, images: tuple[ImageRead, ...], repo: Path, count: int, seed: int, style: Style
) -> list[ImageDir]:
    dirs: dict[Path, ImageDir] = {}
    for image in images if count else ():
        if Path(image.path).suffix.lower() in _IMAGE_SUFFIXES:
            raise ConfigError(
                config.path,
                image.line,
                f"prepare: image path '{image.path}' is a single file; only image directories are made",
            )
        where = repo / image.path
        dirs.setdefault(where, ImageDir(where, count, derive_seed(seed, "infer", image.path), style))
    return list(dirs.values())


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


def plan_prepare(config: TipcConfig, plan: Plan, sizes: Sizes, seed: int) -> PrepareJob:
    """The data sets ``plan``'s stages read (``plan.cwd`` is the repo), sized by ``sizes``."""
    repo = Path(plan.cwd).absolute()
    reads = stage_reads(plan, config)
    models = _plan_models(config, reads.ymls, repo)
    fallback = _script_model(config, repo) if not models and reads.images else None
    checked = _supported(config, plan, models or ([fallback] if fallback else []), reads.images)
    # The images the predictor reads look like the data of the model's first yml.
    main_yml, family = checked[0][0].yml if checked else None, checked[0][1] if checked else Family.REC
    targets: list[Target] = [*_labelled_sets(config, checked, repo, sizes, seed)]
    targets.extend(_image_dirs(config, reads.images, repo, sizes.infer, seed, style_of(main_yml, family, repo)))
    whole_infer = plan.mode == "whole_infer"
    return PrepareJob(tuple(targets), _missing_models(config, repo) if whole_infer else ())
