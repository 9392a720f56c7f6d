"""The generic dialect: a checkout no dialect recognises is planned as the common test_train_inference_python.sh runs
its config, with a note that says so and names what it could not place; a config in no checkout still reads as the
dialect that reads those (tipc's own examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.config_text import TRAIN_BENCHMARK, config_text
from tipc.cli.main import main
from tipc.errors import ConfigError
from tipc.plan.model import PlanOptions, StageKind
from tipc.suites import front, generic

CONFIG_REL = "test_tipc/configs/rec/train_infer_python.txt"
SAVE = "./test_tipc/output/rec/lite_train_lite_infer/norm_train_gpus_0_autocast_fp32"


def _config(root: Path, text: str, rel: str = CONFIG_REL) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_checkout_no_dialect_recognises_is_planned_as_the_common_bash_runs_it(tmp_path: Path) -> None:
    config = _config(tmp_path, config_text())
    plan = front.plan_path(config, PlanOptions("lite_train_lite_infer", repo=str(tmp_path), python="py"))
    assert front.dialect_for(config) == (generic.DIALECT, "")
    assert plan.notes[1].startswith("suite generic: no dialect recognises this checkout")
    assert plan.notes[1].endswith("every line is one it reads")
    train, export, *infers = plan.chains[0].stages
    assert (train.kind, export.kind, {s.kind for s in infers}) == (StageKind.TRAIN, StageKind.EXPORT, {StageKind.INFER})
    assert train.argv[1:] == (
        "tools/train.py", "-c", "test_tipc/configs/rec/rec.yml", "-o", "Global.print_batch_step=1",
        "Train.loader.shuffle=false", "Global.use_gpu=True", f"Global.save_model_dir={SAVE}", "Global.epoch_num=3",
        "Global.auto_cast=fp32", "Train.loader.batch_size_per_card=16",
    )  # fmt: skip
    assert export.argv[-2:] == (f"Global.checkpoints={SAVE}/latest", f"Global.save_inference_dir={SAVE}")
    assert f"--rec_model_dir={SAVE}/Student" in infers[0].argv


def test_the_note_names_the_sections_and_lines_the_common_bash_never_reads(tmp_path: Path) -> None:
    section = config_text(tail=(TRAIN_BENCHMARK,)).removeprefix(config_text())
    text = f"{config_text()}--extra:1\n{section}"
    config = _config(tmp_path, text)
    note = front.plan_path(config, PlanOptions("whole_infer", python="py")).notes[1]
    lines = text.splitlines()
    extra, section = lines.index("--extra:1") + 1, next(n for n, t in enumerate(lines, 1) if "train_benchmark" in t)
    assert note.endswith(f"not placed, so not planned: '--extra' (line {extra}), section 'train_benchmark_params' "
                         f"(line {section})")  # fmt: skip


def test_a_config_in_no_checkout_reads_as_the_default_dialect_and_the_generic_one_when_named(tmp_path: Path) -> None:
    config = _config(tmp_path, config_text(), "configs/train_infer_python.txt")
    assert front.dialect_for(config)[0].default
    assert front.dialect_for(config, "generic") == (generic.DIALECT, "suite generic: named with --suite")
    plan = front.plan_path(config, PlanOptions("lite_train_lite_infer", python="py", suite="generic"))
    assert plan.notes[0] == "suite generic: named with --suite"
    assert plan.notes[2].startswith("suite generic: no dialect recognises this checkout")


@pytest.mark.parametrize("mode", ["benchmark_train", "klquant_whole_infer"])
def test_a_mode_the_generic_dialect_does_not_plan_is_refused_naming_the_ones_it_does(tmp_path: Path, mode) -> None:
    loaded = front.load(_config(tmp_path, config_text()))
    with pytest.raises(ConfigError, match=f"mode '{mode}'.*expected one of lite_train_lite_infer, "):
        front.check_mode(loaded, mode)


def test_tipc_plan_shows_the_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, config_text())
    assert main(["plan", "--config", str(config), "--mode", "lite_train_lite_infer", "--python", "py"]) == 0
    assert "suite generic: no dialect recognises this checkout" in capsys.readouterr().out
