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
        (
            "ppcls INFO: [Train][Epoch 1/2][Iter: 0/2]lr(Cosine): 0.1, top1: 0.0, CELoss: 6.5, loss: 6.5, "
            "batch_cost: 0.3s, reader_cost: 0.03, ips: 20.0 samples/s, eta: 0:00:01\n"
            "ppcls INFO: [Train][Epoch 1/2][Avg]top1: 0.0, CELoss: 6.4, loss: 6.4\n"
            "ppcls INFO: [Train][Epoch 2/2][Iter: 0/2]lr(Cosine): 0.3, top1: 0.5, CELoss: 4.25, loss: 4.25, "
            "batch_cost: 0.2s, reader_cost: 0.02, ips: 30.0 samples/s, eta: 0:00:00\n",
            {"ips": 30.0, "loss": 4.25, "steps": 2},
        ),
        (
            "INFO: [TRAIN] epoch: 1, iter: 10/20, loss: 12.5, lr: 0.003, batch_cost: 9.6, reader_cost: 0.3, "
            "ips: 0.25 samples/sec | ETA 00:01:36\n"
            "INFO: [TRAIN] epoch: 2, iter: 20/20, loss: 5.5, lr: 0.0003, batch_cost: 9.2, reader_cost: 0.1, "
            "ips: 0.5 samples/sec | ETA 00:00:00\n",
            {"ips": 0.5, "loss": 5.5, "steps": 2},
        ),
        (
            "ppdet INFO: Epoch: [0] [ 0/50] learning_rate: 0.000100 loss: 3.75 loss_cls: 1.5 eta: 0:01:00 "
            "batch_cost: 0.5 data_cost: 0.1 ips: 4.0 images/s\n"
            "ppdet INFO: Epoch: [0] [20/50] learning_rate: 0.000200 loss: 2.5 loss_cls: 1.0 eta: 0:00:30 "
            "batch_cost: 0.4 data_cost: 0.1 ips: 6.0 images/s\n",
            {"ips": 6.0, "loss": 2.5, "steps": 2},
        ),
    ],
    ids=[
        "distillation-fixture",
        "single-step",
        "first-step-excluded",
        "ansi-wrapped",
        "crashed-no-steps",
        "paddleclas-avg-lines-not-steps",
        "paddleseg",
        "paddledetection",
    ],
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
