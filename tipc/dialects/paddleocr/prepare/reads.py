"""What each stage of a plan reads, taken from the argv the stage will run.

A train stage reads its yml's ``Train`` and ``Eval`` data sets (training builds the eval
loader too), an eval stage the ``Eval`` set, each after the stage's own ``-o`` overrides; an
export stage reads no data but names the model's yml; an infer stage reads the images of its
image-dir flag. Config lines for errors are those of the fields that wrote each word.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from tipc.config.model import NULL, Field, TipcConfig
from tipc.config.yamldoc import Origin
from tipc.dialects.paddleocr.plan.trainers import resolve_trainer
from tipc.dialects.paddleocr.prepare.overrides import Override, parse_override
from tipc.plan.model import Chain, Plan, Stage, StageKind
from tipc.prepare.toolargs import CONFIG_FLAGS, flag_value, opt_pairs, tool_words

_SECTIONS = {StageKind.TRAIN: ("Train", "Eval"), StageKind.EVAL: ("Eval",), StageKind.EXPORT: ()}


@dataclass(frozen=True, slots=True)
class YmlRead:
    stage: str  # stage id
    kind: StageKind
    yml: str | None  # the -c value as the argv spells it; None: the command names no yml
    line: int  # config line of the script naming it
    sections: tuple[str, ...]  # the data sets the stage loads
    overrides: tuple[Override, ...]


@dataclass(frozen=True, slots=True)
class ImageRead:
    stage: str
    path: str  # as the argv spells it
    line: int


@dataclass(frozen=True, slots=True)
class StageReads:
    ymls: tuple[YmlRead, ...]
    images: tuple[ImageRead, ...]


def stage_reads(plan: Plan, config: TipcConfig) -> StageReads:
    ymls: list[YmlRead] = []
    images: list[ImageRead] = []
    image_field = infer_image_field(config, plan.mode)
    for chain in plan.chains:
        for stage in chain.stages:
            words = tool_words(stage.argv)
            if stage.kind is StageKind.INFER:
                path = None if config.image_dir.key == NULL else flag_value(words, config.image_dir.key)
                if path:
                    images.append(ImageRead(stage.id, path, image_field.line))
                continue
            ymls.append(_yml_read(config, chain, stage, words))
    return StageReads(tuple(ymls), tuple(images))


def infer_image_field(config: TipcConfig, mode: str) -> Field:
    """The line the predictor's image dir comes from: the bash reads ``--image_dir``'s value only
    in whole_infer; training modes use ``train_infer_img_dir``."""
    return config.image_dir if mode == "whole_infer" else config.train_infer_img_dir


def _yml_read(config: TipcConfig, chain: Chain, stage: Stage, words: tuple[str, ...]) -> YmlRead:
    first = _script_fields(config, chain, stage.kind)
    yml = flag_value(words, *CONFIG_FLAGS)
    overrides = tuple(
        parse_override(word, Origin(config.path, _line_of(config, word, first), f"-o {word} of stage {stage.id}"))
        for word in opt_pairs(words).values()
    )
    line = _line_of(config, yml, first) if yml else first[0].line
    return YmlRead(stage.id, stage.kind, yml, line, _SECTIONS[stage.kind], overrides)


def _script_fields(config: TipcConfig, chain: Chain, kind: StageKind) -> tuple[Field, ...]:
    """The lines most likely to hold the stage's words, searched before any other."""
    if kind is StageKind.EVAL:
        return (config.eval, config.eval_param1)
    if not chain.trainer:  # a whole_infer chain: its export is infer_export's
        return (config.infer_export,)
    trainer = resolve_trainer(config, chain.trainer)
    if kind is StageKind.EXPORT:
        return (trainer.export,)
    extra = (trainer.extra,) if trainer.extra is not None else ()
    return (trainer.train, *extra, config.train_param1)


def _all_fields(config: TipcConfig) -> Iterable[Field]:
    for item in dataclasses.fields(config):
        value = getattr(config, item.name)
        if isinstance(value, Field):
            yield value
    if config.to_static is not None:
        yield config.to_static


def _line_of(config: TipcConfig, word: str, first: tuple[Field, ...]) -> int:
    """The line whose text holds ``word``, or whose key is ``word``'s key (a ``key:value`` param
    line becomes ``key=value``); 0 when no line has it."""
    key = word.partition("=")[0]
    for field in (*first, *_all_fields(config)):
        if word in field.value or field.key == key:
            return field.line
    return 0
