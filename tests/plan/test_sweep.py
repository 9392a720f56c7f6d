import pytest

from tests.support.plan_factory import make_config
from tipc.dialects.paddleocr.plan.sweep import NO_GPU, cpu_skip_rule, gpu_skip_rule, infer_sweep
from tipc.errors import ConfigError


@pytest.mark.parametrize(
    "mkldnn, precision, quant, reason",
    [
        ("False", "fp32", False, None),
        ("False", "fp16", False, "fp16 on CPU needs mkldnn (enable_mkldnn=False)"),
        ("True", "fp16", False, None),
        ("False", "int8", False, None),
        ("True", "fp32", True, "quant model on CPU needs precision int8 (precision=fp32)"),
        ("False", "int8", True, None),
        ("True", "fp16", True, "quant model on CPU needs precision int8 (precision=fp16)"),
    ],
    ids=["plain", "fp16-no-mkldnn", "fp16-mkldnn", "int8-non-quant-runs", "quant-fp32", "quant-int8", "quant-fp16"],
)
def test_cpu_rules(mkldnn, precision, quant, reason):
    assert cpu_skip_rule(mkldnn, precision, quant) == reason


@pytest.mark.parametrize(
    "trt, precision, quant, reason",
    [
        ("False", "fp32", False, None),
        ("False", "fp16", False, "fp16/int8 on GPU needs TensorRT (use_tensorrt=False, precision=fp16)"),
        ("True", "fp16", False, None),
        ("True", "int8", False, "int8 on GPU needs a quant model (precision=int8)"),
        ("True", "int8", True, None),
        ("False", "int8", True, "fp16/int8 on GPU needs TensorRT (use_tensorrt=False, precision=int8)"),
        ("False", "fp32", True, None),
        ("True", "fp16_x", False, None),
    ],
    ids=[
        "plain",
        "fp16-no-trt",
        "fp16-trt",
        "int8-non-quant",
        "int8-quant-trt",
        "int8-quant-no-trt",
        "quant-fp32",
        "substring-match",
    ],
)
def test_gpu_rules(trt, precision, quant, reason):
    assert gpu_skip_rule(trt, precision, quant) == reason


def labels(sweep):
    return [c.label for c in sweep.cases]


def test_loop_order_cpu_then_gpu_as_listed():
    config = make_config(
        infer_use_gpu="--use_gpu:False|True",
        enable_mkldnn="--enable_mkldnn:True|False",
        cpu_threads="--cpu_threads:1|6",
        batch_size="--rec_batch_num:1|6",
        use_tensorrt="--use_tensorrt:False|True",
        precision="--precision:fp32|fp16",
    )
    sweep = infer_sweep(config, quant=False)
    assert labels(sweep) == [
        "cpu-mkldnn_True-threads_1-fp32-bs1",
        "cpu-mkldnn_True-threads_1-fp16-bs1",
        "cpu-mkldnn_True-threads_1-fp32-bs6",
        "cpu-mkldnn_True-threads_1-fp16-bs6",
        "cpu-mkldnn_True-threads_6-fp32-bs1",
        "cpu-mkldnn_True-threads_6-fp16-bs1",
        "cpu-mkldnn_True-threads_6-fp32-bs6",
        "cpu-mkldnn_True-threads_6-fp16-bs6",
        "cpu-mkldnn_False-threads_1-fp32-bs1",
        "cpu-mkldnn_False-threads_1-fp32-bs6",
        "cpu-mkldnn_False-threads_6-fp32-bs1",
        "cpu-mkldnn_False-threads_6-fp32-bs6",
        "gpu-trt_False-fp32-bs1",
        "gpu-trt_False-fp32-bs6",
        "gpu-trt_True-fp32-bs1",
        "gpu-trt_True-fp32-bs6",
        "gpu-trt_True-fp16-bs1",
        "gpu-trt_True-fp16-bs6",
    ]
    assert [d.name for d in sweep.dropped] == [
        "infer[cpu-mkldnn_False-threads_1-fp16-bs1]",
        "infer[cpu-mkldnn_False-threads_1-fp16-bs6]",
        "infer[cpu-mkldnn_False-threads_6-fp16-bs1]",
        "infer[cpu-mkldnn_False-threads_6-fp16-bs6]",
        "infer[gpu-trt_False-fp16-bs1]",
        "infer[gpu-trt_False-fp16-bs6]",
    ]


def test_pact_quant_model_drops_every_cpu_case():
    sweep = infer_sweep(make_config(), quant=True)
    assert labels(sweep) == ["gpu-trt_False-fp32-bs1"]
    assert [(d.name, d.reason) for d in sweep.dropped] == [
        ("infer[cpu-mkldnn_False-threads_6-fp32-bs1]", "quant model on CPU needs precision int8 (precision=fp32)")
    ]


def test_no_gpu_drops_gpu_cases_after_the_rules():
    config = make_config(precision="--precision:fp32|fp16")
    sweep = infer_sweep(config, quant=False, gpu_available=False)
    assert labels(sweep) == ["cpu-mkldnn_False-threads_6-fp32-bs1"]
    assert [d.reason for d in sweep.dropped] == [
        NO_GPU,
        "fp16/int8 on GPU needs TensorRT (use_tensorrt=False, precision=fp16)",
        "fp16 on CPU needs mkldnn (enable_mkldnn=False)",
    ]


def test_cases_carry_the_config_literals():
    config = make_config(infer_use_gpu="--use_gpu:gpu|cpu")
    assert [(c.device, c.use_gpu) for c in infer_sweep(config, quant=False).cases] == [("gpu", "gpu"), ("cpu", "cpu")]


def test_unsupported_device_value_is_listed():
    sweep = infer_sweep(make_config(infer_use_gpu="--use_gpu:tpu"), quant=False)
    assert sweep.cases == ()
    assert [(d.name, d.reason) for d in sweep.dropped] == [
        ("infer[use_gpu_tpu]", "--use_gpu value 'tpu' (line 41): only True/False/gpu/cpu are supported")
    ]


def test_an_npu_or_xpu_plan_takes_its_word_for_the_accelerator_and_gpu_no_more():
    """The device script rewrites the main script's "gpu" to its word (``--device npu``)."""
    for word in ("npu", "xpu"):
        sweep = infer_sweep(make_config(infer_use_gpu=f"--use_gpu:{word}|gpu|False"), quant=False, plan_device=word)
        assert {c.use_gpu for c in sweep.cases} == {word, "False"}
        assert [d.name for d in sweep.dropped] == ["infer[use_gpu_gpu]"]
    assert [d.name for d in infer_sweep(make_config(infer_use_gpu="--use_gpu:npu"), quant=False).dropped] == [
        "infer[use_gpu_npu]"
    ]


@pytest.mark.parametrize(
    "lines",
    [
        dict(infer_use_gpu="--use_gpu:True|gpu"),
        dict(batch_size="--rec_batch_num:1|1"),
    ],
    ids=["same-device-twice", "same-batch-twice"],
)
def test_repeated_values_are_errors(lines):
    with pytest.raises(ConfigError, match="repeats"):
        infer_sweep(make_config(**lines), quant=False)
