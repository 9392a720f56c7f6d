import pytest

from tipc.cluster.device import choose_device, detect_device
from tipc.errors import ClusterError


def which_none(_name):
    return None


def which_smi(name):
    return "/usr/bin/nvidia-smi" if name == "nvidia-smi" else None


@pytest.mark.parametrize(
    "env, which, dev0, expected",
    [
        ({}, which_none, False, ("cpu", "no CUDA device: no nvidia-smi on PATH and no /dev/nvidia0")),
        ({}, which_smi, False, ("gpu", "nvidia-smi found at /usr/bin/nvidia-smi")),
        ({}, which_none, True, ("gpu", "/dev/nvidia0 exists")),
        ({"CUDA_VISIBLE_DEVICES": ""}, which_smi, True, ("cpu", "CUDA_VISIBLE_DEVICES='' hides every GPU")),
        ({"CUDA_VISIBLE_DEVICES": "-1"}, which_smi, True, ("cpu", "CUDA_VISIBLE_DEVICES='-1' hides every GPU")),
        ({"CUDA_VISIBLE_DEVICES": "1"}, which_smi, False, ("gpu", "nvidia-smi found at /usr/bin/nvidia-smi")),
    ],
    ids=["nothing", "nvidia-smi", "dev-node", "hidden-empty", "hidden-minus-one", "one-visible"],
)
def test_detect(env, which, dev0, expected):
    assert detect_device(env, which, lambda p: dev0 and p == "/dev/nvidia0") == expected


@pytest.mark.parametrize(
    "requested, expected",
    [
        ("cpu", ("cpu", "--device cpu")),
        ("gpu", ("gpu", "--device gpu")),
        ("auto", ("cpu", "--device auto: no CUDA device: no nvidia-smi on PATH and no /dev/nvidia0")),
    ],
    ids=["cpu", "gpu-taken-as-given", "auto"],
)
def test_choose(requested, expected):
    assert choose_device(requested, {}, which_none, lambda p: False) == expected


def test_choose_rejects_unknown():
    with pytest.raises(ClusterError, match="expected auto, cpu, gpu, npu or xpu"):
        choose_device("tpu", {}, which_none, lambda p: False)
