"""The training ymls a plan reads, and the pretrained weights its trainings load.

A training whose ``Global.pretrained_model`` names weights that are not there fails at its start
(PaddleOCR's ``load_pretrained_params`` asserts ``<path>.pdparams`` exists, a trailing
``.pdparams`` taken off first); the bash's ``prepare.sh`` downloads them, tipc does not. The value
is the train command's ``-o`` override when it gives one, else the yml's, resolved against the
stage's directory as the trainer would. A URL is downloaded by the trainer; weights under the run's
output folder are made by the run: neither is checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tipc.config.yamldoc import YamlDoc, read_yaml
from tipc.doctor.checks import Check, State
from tipc.errors import TipcError
from tipc.plan.model import Plan, Stage, StageKind
from tipc.prepare.toolargs import flag_value, opt_pairs, tool_words

KEY = "Global.pretrained_model"
NAME = "pretrained weights"
SHOWN = 3
FIX = (
    "download the weights the config names (the suite's test_tipc/prepare.sh does for its modes) "
    f"or run without them: {KEY}=null"
)


@dataclass(frozen=True, slots=True)
class TrainYml:
    stage: Stage
    doc: YamlDoc | None  # None: the yml did not read (the stage's own failure says why)
    text: str = ""  # the yml's text ("" when it did not read)


def train_ymls(plan: Plan) -> Iterator[TrainYml]:
    """Each training stage with the yml its ``-c`` names, read once per file."""
    docs: dict[Path, tuple[YamlDoc | None, str]] = {}
    for stage in plan.stages():
        if stage.kind is not StageKind.TRAIN:
            continue
        yml = flag_value(tool_words(stage.argv), "-c", "--config")
        if yml is None:
            continue
        path = Path(plan.cwd) / stage.cwd / yml
        if path not in docs:
            try:
                doc = read_yaml(path)
                docs[path] = doc, path.read_text(encoding="utf-8", errors="replace")
            except (TipcError, OSError):
                docs[path] = None, ""
        yield TrainYml(stage, *docs[path])


def pretrained_value(stage: Stage, doc: YamlDoc | None) -> str:
    """``Global.pretrained_model`` as the trainer sees it: the ``-o`` word's, else the yml's ("" for none)."""
    word = opt_pairs(tool_words(stage.argv)).get(KEY)
    value = word.partition("=")[2] if word is not None else (doc.get("Global", "pretrained_model") if doc else None)
    text = "" if value is None else str(value).strip()
    return "" if text.lower() in ("", "null", "none", "~", "false") else text


def weights_exist(path: Path) -> bool:
    base = str(path)[: -len(".pdparams")] if str(path).endswith(".pdparams") else str(path)
    return Path(base + ".pdparams").is_file()


def check_pretrained(plan: Plan, trains: Iterable[TrainYml]) -> Check:
    output = (Path(plan.cwd) / plan.output_dir).resolve()
    missing: dict[str, str] = {}  # value -> the first stage naming it
    checked = 0
    for t in trains:
        value = pretrained_value(t.stage, t.doc)
        if not value or "://" in value:
            continue
        path = (Path(plan.cwd) / t.stage.cwd / value).resolve()
        if path.is_relative_to(output):
            continue
        checked += 1
        if not weights_exist(path):
            missing.setdefault(value, t.stage.id)
    if not checked:
        return Check(NAME, State.NA, f"no training loads {KEY} from a local file")
    if not missing:
        return Check(NAME, State.PASS, f"every {KEY} the trainings load exists ({checked} stages)")
    named = "; ".join(f"{stage} loads {value}" for value, stage in list(missing.items())[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    return Check(
        NAME,
        State.FAIL,
        f"{len(missing)} {KEY} value(s) name weights that do not exist (<path>.pdparams, where the trainer "
        f"looks), so those trainings will fail at their start: {named}{more}",
        FIX,
    )
