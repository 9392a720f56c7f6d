from __future__ import annotations

from pathlib import Path

import pytest

from tipc.metrics.evallog import eval_metrics

FIXTURES = Path(__file__).parent / "fixtures"
PREFIX = "[2025/03/04 09:10:02] ppocr INFO: "


def block(*lines: str) -> str:
    return "\n".join(PREFIX + line for line in lines)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            (FIXTURES / "eval_distillation.log").read_text(encoding="utf-8"),
            {
                "acc": 0.9249999537500023,
                "norm_edit_dis": 0.9871428,
                "Teacher_acc": 0.89,
                "Teacher_norm_edit_dis": 1.9999996003772225e-07,
                "fps": 10.6,
            },
        ),
        (block("metric eval ***************", "acc:0.5", "precision: 0.25"), {"acc": 0.5, "precision": 0.25}),
        (
            block("metric eval ***************", "acc:0.1") + "\n" + block("metric eval ***************", "acc:0.9"),
            {"acc": 0.9},
        ),
        (block("metric eval ***************", "hmean:0.8", "done", "acc:0.99"), {"hmean": 0.8}),
        ("metric eval ***************\nacc:0.75\nnorm_edit_dis:0.5\n", {"acc": 0.75, "norm_edit_dis": 0.5}),
        (block("load pretrain successful"), {}),
    ],
    ids=[
        "distillation-fixture",
        "spaces-after-colon",
        "last-block-wins",
        "prefixed-line-ends-block",
        "unprefixed",
        "no-block",
    ],
)
def test_eval_metrics(text, expected):
    assert eval_metrics(text) == expected
