"""tipc's plans beside a suite's recorded bash (``suite_bash``): one verdict per config × mode."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.suite_bash import ROOT, Ran
from tipc.config.modes import Mode
from tipc.dialects.paddledetection import planner as paddledetection
from tipc.errors import ConfigError
from tipc.plan import PlanOptions
from tipc.suites.dialect import Dialect
from tipc.suites.variants import apply_variant

PLAN_ROOT = "/tipc-parity-root"  # the repo the plans are built for; shown as ROOT, as in the recordings
# Launch flags that depend on the machine, which tipc adds and the suites' bash does not (README: left out).
MACHINE_FLAGS = ("--log_dir=", "--host=", "--start_port=")


def seg_weights_fix(config: Path, recorded: tuple[Ran, ...]) -> tuple[Ran, ...]:
    """PaddleSeg (docs/suites.md): after a train with ``--do_eval`` tipc plans ``<save>/<train_model_name>``
    (PaddleSeg writes it), where the recorded bash, which looks at the disk, found nothing and took ``iter_N/``."""
    name = next(
        (
            line.split(":", 1)[1].strip()
            for line in config.read_text().splitlines()
            if line.startswith("train_model_name:")
        ),
        "",
    )
    fixed, evaluated = [], False
    for ran in recorded:
        if any(token.endswith("train.py") for token in ran.argv):
            evaluated = "--do_eval" in ran.argv
        argv = tuple(_ITER.sub(f"/{name}", t) if evaluated else t for t in ran.argv)
        fixed.append(Ran(argv, ran.cwd, ran.cuda))
    return tuple(fixed)


def det_custom_op_fix(config: Path, recorded: tuple[Ran, ...]) -> tuple[Ran, ...]:
    """PaddleDetection's dino: tipc does not install the custom operator the bash installs before each train."""
    del config
    return tuple(r for r in recorded if r.argv[:1] != (paddledetection.CUSTOM_OP_SCRIPT,))


def clas_weights_fix(config: Path, recorded: tuple[Ran, ...]) -> tuple[Ran, ...]:
    """PaddleClas (docs/suites.md): tipc evaluates and exports ``<save>/<train_model_name>``, where PaddleClas writes
    its checkpoints; the bash looks in ``<save>/<model>/`` (``<save>/RecModel/``)."""
    values = dict(_key_values(config))
    stale = re.compile(
        rf"/(?:{re.escape(values.get('model_name', ''))}|RecModel)/{re.escape(values.get('train_model_name', ''))}$"
    )
    return tuple(Ran(tuple(stale.sub(f"/{values.get('train_model_name', '')}", t) for t in r.argv), r.cwd, r.cuda)
                 for r in recorded)  # fmt: skip


def _key_values(config: Path) -> list[tuple[str, str]]:
    return [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in config.read_text().splitlines())]


def null_script_fix(config: Path, recorded: tuple[Ran, ...]) -> tuple[Ran, ...]:
    """PaddleRec (docs/suites.md): where the inference line is ``null`` the bash runs ``python null …`` for each
    cell; tipc plans no such stage."""
    del config
    return tuple(r for r in recorded if r.argv[:1] != ("null",))


def speech_null_export_fix(config: Path, recorded: tuple[Ran, ...]) -> tuple[Ran, ...]:
    """PaddleSpeech (docs/suites.md): its configs' ``norm_export: null`` keeps a space the bash compares with, so it
    runs ``<python> null`` as an export; tipc reads the value as null and exports nothing."""
    del config
    return tuple(r for r in recorded if r.argv != ("null",))


_ITER = re.compile(r"/iter_\d*/model\.pdparams$")
# Documented differences (docs/suites.md): suite -> (name, the recording as tipc means to differ from it)
FIXES: dict[str, tuple[str, Callable[[Path, tuple[Ran, ...]], tuple[Ran, ...]]]] = {
    "PaddleSeg": ("weights after --do_eval", seg_weights_fix),
    "PaddleClas": ("weights where PaddleClas writes them", clas_weights_fix),
    "PaddleDetection": ("no custom operator install", det_custom_op_fix),
    "PaddleRec": ("no 'null' inference script", null_script_fix),
    "PaddleSpeech": ("no export of a 'null' script", speech_null_export_fix),
}


@dataclass(frozen=True, slots=True)
class Cell:
    config: str
    mode: str
    verdict: str  # "match", "fixed: <fix>", "nothing: <why>", "refused: <why>", "differs: <first difference>"

    @property
    def matches(self) -> bool:
        """Same commands (a documented fix aside), or none on either side."""
        return self.verdict.startswith(("match", "fixed:", "nothing:"))


def planned(dialect: Dialect, config: Path, mode: Mode, device: str = "") -> tuple[Ran, ...] | str:
    """What tipc would run, as the recorder writes it; the refusal's message when it refuses. ``device``: npu or
    xpu, as the suite's device script runs it."""
    try:
        loaded, _ = apply_variant(dialect.load(str(config)), dialect.name, dialect.devices, device, dialect.parse)
        if mode not in dialect.modes(loaded):
            return f"refused: mode {mode} not among {', '.join(dialect.modes(loaded))}"
        options = PlanOptions(mode, repo=PLAN_ROOT, python="python", device=device or "gpu")  # type: ignore[arg-type]
        plan = dialect.build(loaded, options, lambda name: "")
    except ConfigError as error:
        return f"refused: {error}"
    return tuple(
        Ran(
            tuple(t.replace(PLAN_ROOT, ROOT) for t in stage.argv[1:] if not t.startswith(MACHINE_FLAGS)),
            stage.cwd.replace(PLAN_ROOT, ROOT),
            None,
        )
        for stage in plan.stages()
    )


def compare(dialect: Dialect, config: Path, mode: Mode, recorded: tuple[Ran, ...], device: str = "") -> Cell:
    ours = planned(dialect, config, mode, device)
    if isinstance(ours, str):
        # No command either way is agreement: the bash runs nothing where tipc refuses (and says why).
        verdict = f"nothing: {ours}" if not recorded else ours
        return Cell(str(config), mode, verdict)
    mine = [(r.argv, r.cwd) for r in ours]
    if as_planned(recorded) == mine:
        return Cell(str(config), mode, "match")
    fix = FIXES.get(dialect.name)
    theirs = as_planned(fix[1](config, recorded) if fix else recorded)
    if theirs == mine and fix:
        return Cell(str(config), mode, f"fixed: {fix[0]}")
    for index, (a, b) in enumerate(zip(theirs, mine, strict=False)):
        if a != b:
            return Cell(str(config), mode, f"differs: command {index}: bash {a} / tipc {b}")
    return Cell(str(config), mode, f"differs: bash ran {len(theirs)} commands, tipc plans {len(mine)}")


def as_planned(recorded: tuple[Ran, ...]) -> list[tuple[tuple[str, ...], str]]:
    return [(r.argv, ROOT if r.cwd == "." else f"{ROOT}/{r.cwd}") for r in recorded]
