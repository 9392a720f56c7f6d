"""Goldens in the other suites' predictor formats, end to end: a PaddleClas checkout's chain runs (its scripts
stand-ins that print what predict_cls.py prints), ``tipc golden update`` writes its top-k golden, the next run's
check passes, and a run whose scores moved fails naming the image."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from tests.suites.test_front import clas_checkout
from tipc.cli.main import main
from tipc.plan.model import PlanOptions
from tipc.proc.executor import ProcessExecutor
from tipc.results.records import StageRecord, Status
from tipc.run.plan_run import PlanRun, RunSettings
from tipc.suites import front

MODE = "lite_train_lite_infer"
OPTION = "import sys\nopts = dict(a.split('=', 1) for a in sys.argv if '=' in a)\n"
TRAIN = OPTION + (
    "import pathlib\nout = pathlib.Path(opts['Global.output_dir'])\nout.mkdir(parents=True, exist_ok=True)\n"
    "(out / 'latest.pdparams').write_bytes(b'w')\n"
    "for i, loss in enumerate((6.9, 3.1)):\n"
    "    print(f'[Train][Epoch 1/2][Iter: {i}/2]lr(LinearWarmup): 0.1, top1: 0.0, CELoss: {loss}, loss: {loss}')\n"
)
EXPORT = OPTION + (
    "import pathlib\nout = pathlib.Path(opts['Global.save_inference_dir'])\nout.mkdir(parents=True, exist_ok=True)\n"
    "(out / 'inference.pdiparams').write_bytes(b'w')\n"
)
PREDICT = OPTION + (
    "import os\nname = os.path.basename(opts['Global.infer_imgs'])\nscore = os.environ.get('FAKE_SCORE', '0.81')\n"
    "print(f\"{name}:\\tclass id(s): [7, 2], score(s): [{score}, 0.12], label_name(s): ['owl', 'hawk']\")\n"
)


def checkout(root: Path) -> Path:
    config = clas_checkout(root)
    for path, text in (("tools/train.py", TRAIN), ("tools/export_model.py", EXPORT),
                       ("deploy/python/predict_cls.py", PREDICT)):  # fmt: skip
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return config


def run(config: Path, repo: Path, golden: Path) -> dict[str, StageRecord]:
    options = PlanOptions(mode=MODE, repo=str(repo), python=sys.executable, golden_dir=str(golden), device="cpu")
    plan = front.plan_path(config, options)
    session = PlanRun(plan, RunSettings(), ProcessExecutor(grace=0.2))
    session.begin()
    records = {s.name: session.run_stage(s) for s in plan.stages()}
    session.end()
    return records


def test_a_classification_golden_is_written_then_judges_the_next_runs(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "PaddleClas"
    config = checkout(repo)
    golden = tmp_path / "golden"
    first = run(config, repo, golden)
    assert first["golden"].status is Status.NO_GOLDEN, first["golden"].reason
    results = Path(first["train"].log).parent
    assert main(["golden", "update", "--from", str(results), "--golden-dir", str(golden)]) == 0
    written = Path(capsys.readouterr().out.strip())
    doc = yaml.safe_load(written.read_text())
    assert doc["predictions"] == {
        "ILSVRC2012_val_00000001.JPEG": {
            "top_k": [{"class_id": 7, "score": 0.81, "label": "owl"}, {"class_id": 2, "score": 0.12, "label": "hawk"}]
        }
    }
    again = run(config, repo, golden)
    assert again["golden"].status is Status.PASSED, again["golden"].reason
    monkeypatch.setenv("FAKE_SCORE", "0.70")
    moved = run(config, repo, golden)
    assert moved["golden"].status is Status.FAILED
    assert "ILSVRC2012_val_00000001.JPEG scores: expected [0.81, 0.12], found [0.7, 0.12]" in moved["golden"].reason
