"""The doctor against a real PaddleOCR checkout (read, never written): what would make its stages
fail is failed with the reason. Runs when ``TIPC_PADDLEOCR`` names a checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.doctor.checks import State
from tipc.doctor.known_bad import check_known_bad, load_table
from tipc.doctor.target import needs_auto_log_by_name
from tipc.doctor.weights import check_pretrained, train_ymls
from tipc.plan import PlanOptions

CHECKOUT = os.environ.get("TIPC_PADDLEOCR", "")
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="TIPC_PADDLEOCR is not set: no PaddleOCR checkout to read")
DET = "test_tipc/configs/det_mv3_db_v2_0/train_infer_python.txt"
REC = "test_tipc/configs/PP-OCRv3_mobile_rec/train_infer_python.txt"


def plan(config: str):
    root = Path(CHECKOUT)
    return build_plan(
        load_config(str(root / config)), PlanOptions("lite_train_lite_infer", repo=str(root), python="py")
    )


def test_the_detection_configs_missing_backbone_weights_fail_with_their_name():
    p = plan(DET)
    if (Path(CHECKOUT) / "pretrain_models/MobileNetV3_large_x0_5_pretrained.pdparams").exists():
        pytest.skip("this checkout has the weights (its prepare.sh ran)")
    check = check_pretrained(p, train_ymls(p))
    assert check.state is State.FAIL
    assert "loads ./pretrain_models/MobileNetV3_large_x0_5_pretrained" in check.detail


@pytest.mark.parametrize(
    ("config", "numpy", "state"),
    [(DET, "2.4.0", State.FAIL), (DET, "2.3.5", State.PASS), (REC, "2.4.0", State.PASS)],
    ids=["detection-with-numpy-2.4", "detection-with-numpy-2.3", "recognition-with-numpy-2.4"],
)
def test_numpy_2_4_fails_the_detection_training_only(config, numpy, state):
    p = plan(config)
    texts = [t.text for t in train_ymls(p)]
    (check,) = check_known_bad(Path(CHECKOUT), texts, {"numpy": numpy}, load_table())
    assert check.state is state, check.detail


def test_paddleocrs_predictors_import_auto_log_by_name():
    p = build_plan(load_config(str(Path(CHECKOUT) / REC)), PlanOptions("whole_infer", repo=CHECKOUT, python="py"))
    # its benchmark stages run tools/infer/predict_rec.py, which does `import auto_log` itself
    assert needs_auto_log_by_name(p) == "tools/infer/predict_rec.py"
