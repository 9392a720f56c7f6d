from __future__ import annotations

from pathlib import Path

import pytest

from tipc.metrics.trainlog import step_values, train_metrics

FIXTURES = Path(__file__).parent / "fixtures"
STEP = (
    "[2025/03/04 09:00:0{n}] ppocr INFO: epoch: [1/1], global_step: {n}, lr: 0.001000, loss: {loss}, "
    "avg_reader_cost: 0.001 s, avg_batch_cost: 0.5 s, avg_samples: 16.0, ips: {ips} samples/s, eta: 0:00:01"
)


def steps(*pairs) -> str:
    return "\n".join(STEP.format(n=i + 1, loss=loss, ips=ips) for i, (loss, ips) in enumerate(pairs))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            (FIXTURES / "train_distillation.log").read_text(encoding="utf-8"),
            {"ips": (32.0 + 40.0 + 24.0) / 3, "loss": 15.0, "steps": 4},
        ),
        (steps((9.5, 12.0)), {"ips": 12.0, "loss": 9.5, "steps": 1}),
        (steps((9.5, 2.0), (8.0, 10.0), (7.25, 20.0)), {"ips": 15.0, "loss": 7.25, "steps": 3}),
        ("\x1b[33m" + steps((3.0, 1.0), (2.0, 5.0)) + "\x1b[0m", {"ips": 5.0, "loss": 2.0, "steps": 2}),
        ("Traceback (most recent call last):\nAttributeError: boom\n", {"ips": None, "loss": None, "steps": 0}),
    ],
    ids=["distillation-fixture", "single-step", "first-step-excluded", "ansi-wrapped", "crashed-no-steps"],
)
def test_train_metrics(text, expected):
    result = train_metrics(text)
    assert result == {k: pytest.approx(v) if isinstance(v, float) else v for k, v in expected.items()}


def test_step_values_keep_every_named_number():
    first = step_values((FIXTURES / "train_distillation.log").read_text(encoding="utf-8"))[0]
    assert first["loss"] == 120.5
    assert first["loss_ctc_Teacher_1"] == 60.4
    assert first["global_step"] == 1
    assert "epoch" not in first  # "[1/2]" is not a number
