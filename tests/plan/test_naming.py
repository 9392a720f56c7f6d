import pytest

from tipc.plan.model import StageKind
from tipc.plan.naming import kind_of


@pytest.mark.parametrize(
    "name, kind",
    [
        ("train", StageKind.TRAIN),
        ("eval", StageKind.EVAL),
        ("export", StageKind.EXPORT),
        ("infer[cpu-mkldnn_False-threads_6-fp32-bs1]", StageKind.INFER),
        ("infer[use_gpu_xpu]", StageKind.INFER),
        ("infer_model", StageKind.INFER),
        ("something", None),
    ],
    ids=["train", "eval", "export", "infer-case", "dropped-device", "whole-infer-model-list", "unknown"],
)
def test_kind_of(name, kind):
    assert kind_of(name) is kind
