"""benchmark_train plans against ``benchmark_train.sh`` (docs/spec.md §6.4).

The expected commands are written from the script's reading, not from tipc's output: the script sets
line 4 (``gpu_list``) to ``0`` or the ``NxCy`` id list, line 6 (autocast) to the precision (``amp`` for
fp16 with PARAMS), line 7/9 to ``benchmark_train=<epoch>``/``=<bs>``, lines 24/30 (eval, norm_export) to
null, and on one card runs a profiling pass with line 13 set to the quoted profiler option. The harness
then builds ``${python} ${run_train} ${set_use_gpu} ${set_save_model} ${set_epoch} ${set_pretrain}
${set_batchsize} ${set_amp_config} ${set_train_params1}`` (``-m paddle.distributed.launch --gpus=<ids>``
before the script on several cards). Logs: ``${BENCHMARK_LOG_DIR}/{train_log,profiling_log}/<repo>_<model>_
bs<bs>_<fp>_<DP>_<NxCy>_{log,profiling}``. ``test_benchmark_bash.py`` runs the script itself.
"""

from __future__ import annotations

import pytest

from tests.support.config_text import TO_STATIC, TRAIN_BENCHMARK, config_text
from tests.support.plan_factory import PATH
from tipc.config import ConfigError
from tipc.config.benchmark import DeviceNum, benchmark_params, parse_selector, parse_selectors
from tipc.dialects.paddleocr.config import parse_config_text
from tipc.dialects.paddleocr.config.formats import config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.dialects.paddleocr.plan.benchmark import BenchRun, benchmark_runs
from tipc.errors import SettingsError
from tipc.plan import PlanOptions
from tipc.plan.model import BenchmarkOptions

YML = "test_tipc/configs/rec/rec.yml"
L = "./test_tipc/output/rec/benchmark_train"
SCRIPT = ("tools/train.py", "-c", YML, "-o", "Global.print_batch_step=1", "Train.loader.shuffle=false")
LOGS = "/bench"


def bench_config(*lines: str, to_static: bool = False, **roles: str):
    section = (TRAIN_BENCHMARK[0], lines or TRAIN_BENCHMARK[1])
    tail = (section, TO_STATIC) if to_static else (section,)
    return parse_config_text(config_text(tail=tail, **roles), PATH)


def bench_plan(params: str | None = None, profiling: str = "True", to_static: bool = False, **options):
    selectors = parse_selectors(params) if params else ()
    benchmark = BenchmarkOptions(selectors, LOGS, profiling)
    return build_plan(
        bench_config(to_static=to_static),
        PlanOptions("benchmark_train", repo="/r/PaddleOCR", python="py", benchmark=benchmark, **options),
    )


def train(save: str, epoch: int, bs: int, *extra: str, use_gpu: str = "True") -> tuple[str, ...]:
    return (
        *SCRIPT,
        f"Global.use_gpu={use_gpu}",
        f"Global.save_model_dir={L}/{save}",
        f"Global.epoch_num={epoch}",
        f"Train.loader.batch_size_per_card={bs}",
        *extra,
    )


AMP = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")
PROFILER = "--profiler_options=batch_range=[10,20];state=GPU"


@pytest.mark.parametrize(
    ("params", "profiling", "expected"),
    [
        (
            "dynamic_bs8_fp32_DP_N1C1",
            "True",
            [
                (
                    "norm_train-bs8-fp32-DP-N1C1::profile",
                    ("py", *train("norm_train_gpus_0_autocast_fp32", 1, 8, PROFILER)),
                    f"{LOGS}/profiling_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_profiling",
                ),
                (
                    "norm_train-bs8-fp32-DP-N1C1::train",
                    ("py", *train("norm_train_gpus_0_autocast_fp32", 1, 8)),
                    f"{LOGS}/train_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_log",
                ),
            ],
        ),
        (
            "dynamic_bs8_fp32_DP_N1C1",
            "False",
            [
                (
                    "norm_train-bs8-fp32-DP-N1C1::profile",
                    ("py", *train("norm_train_gpus_0_autocast_fp32", 1, 8, PROFILER + ";timer_only=False")),
                    f"{LOGS}/profiling_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_profiling",
                ),
                (
                    "norm_train-bs8-fp32-DP-N1C1::train",
                    ("py", *train("norm_train_gpus_0_autocast_fp32", 1, 8)),
                    f"{LOGS}/train_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_log",
                ),
            ],
        ),
        (
            "dynamic_bs16_fp16_DP_N1C4",
            "no",
            [
                (
                    "norm_train-bs16-amp-DP-N1C4::train",
                    (
                        "py",
                        "-m",
                        "paddle.distributed.launch",
                        "--gpus=0,1,2,3",
                        f"--log_dir={L}/norm_train_gpus_0,1,2,3_autocast_amp_launch_log",
                        *train("norm_train_gpus_0,1,2,3_autocast_amp", 4, 16, *AMP),
                    ),
                    f"{LOGS}/train_log/PaddleOCR_rec_bs16_fp16_DP_N1C4_log",
                ),
            ],
        ),
        (
            "dynamic_bs8_fp32_DP_N1C1",
            "no",
            [
                (
                    "norm_train-bs8-fp32-DP-N1C1::train",
                    ("py", *train("norm_train_gpus_0_autocast_fp32", 1, 8)),
                    f"{LOGS}/train_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_log",
                ),
            ],
        ),
    ],
    ids=["one-card-profiled", "timer-only-false", "fp16-is-amp-4-cards-4-epochs", "no-profiling"],
)
def test_runs_are_the_scripts_commands(params, profiling, expected):
    plan = bench_plan(params, profiling)
    assert [(s.id, s.argv, s.log) for s in plan.stages()] == expected
    assert {s.env["FLAGS_a"] for s in plan.stages()} == {"1"}  # the flags line, exported into every run


def test_the_profiling_pass_is_judged_by_its_exit_code_alone():
    profile, train = bench_plan("dynamic_bs8_fp32_DP_N1C1").stages()
    assert (profile.outputs, train.outputs) == ((), (f"{L}/norm_train_gpus_0_autocast_fp32/latest.pdparams",))
    assert profile.speed is None and train.speed is not None


def test_without_params_the_section_lists_run_on_four_cards():
    plan = bench_plan()
    assert [c.id for c in plan.chains] == ["norm_train-bs32-fp32-DP-N1C4", "norm_train-bs32-amp-DP-N1C4"]
    assert [s.speed.model_name for s in plan.stages()] == ["rec_bs32_fp32_DP", "rec_bs32_fp16_DP"]
    assert all(s.argv[3] == "--gpus=0,1,2,3" and "Global.epoch_num=1" in s.argv for s in plan.stages())


def test_eval_and_export_are_null_as_the_script_makes_them():
    plan = bench_plan("dynamic_bs8_fp32_DP_N1C1", "no")
    assert {s.id.rpartition("::")[2]: s.reason for s in plan.skipped} == {
        "eval": "eval script (eval, line 24) is null",
        "export": "export script (norm_export, line 30) is null",
        "infer": "no export (norm_export, line 30 is null): nothing to infer with",
    }


def test_dynamic_to_static_trains_the_to_static_trainer_with_its_suffix():
    plan = bench_plan("dynamicTostatic_bs8_fp32_DP_N1C1", "no", to_static=True)
    (stage,) = plan.stages()
    assert stage.id == "to_static_train-bs8-fp32-DP-N1C1::train"
    assert stage.argv[1:8] == (*SCRIPT, "Global.to_static=true")  # after the fixed -o args
    assert stage.log == f"{LOGS}/train_log/PaddleOCR_rec_bs8_fp32_DP_N1C1_d2sT_log"


def test_the_speed_file_is_the_analysis_steps():
    plan = bench_plan("dynamic_bs8_fp32_DP_N1C1,dynamic_bs8_fp32_DP_N1C2", "no")
    one, two = (s.speed for s in plan.stages())
    assert one.file == f"{LOGS}/index/PaddleOCR_rec_bs8_fp32_DP_N1C1_speed"
    assert (one.speed_unit, one.cards, two.speed_unit, two.cards) == ("samples/s", 1, "images/s", 2)


def test_on_cpu_two_cards_are_two_processes():
    plan = bench_plan("dynamic_bs8_fp32_DP_N1C2", "no", device="cpu")
    (stage,) = plan.stages()
    assert stage.argv[1:4] == ("-m", "paddle.distributed.launch", "--nproc_per_node=2")
    assert "Global.use_gpu=False" in stage.argv and "Global.epoch_num=2" in stage.argv


def test_several_nodes_take_their_addresses_from_ips():
    plan = bench_plan("dynamic_bs8_fp32_DP_N2C4", "no", ips=("10.0.0.1", "10.0.0.2"))
    (stage,) = plan.stages()
    assert stage.argv[3:5] == ("--ips=10.0.0.1,10.0.0.2", "--gpus=0,1")
    assert "Global.epoch_num=8" in stage.argv
    with pytest.raises(ConfigError) as err:
        bench_plan("dynamic_bs8_fp32_DP_N2C4", "no")
    assert str(err.value).startswith(f"{PATH}:4: benchmark run N2C4: expected 2 node addresses")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("dynamic_bs8_fp32_DP_N1C1", ("dynamic", "8", "fp32", "DP", DeviceNum(1, 1), False)),
        ("dynamicTostatic_bs64_fp16_DP_N1C8", ("dynamicTostatic", "64", "fp16", "DP", DeviceNum(1, 8), True)),
        ("dynamic_bs2_null_DP_N4C32", ("dynamic", "2", "null", "DP", DeviceNum(4, 32), False)),
        ("dynamicTostatic", ("dynamicTostatic", None, "", "DP", DeviceNum(1, 4), True)),
    ],
    ids=["one-card", "to-static", "four-nodes", "bare-to-static"],
)
def test_params_words_read_as_the_script_reads_them(word, expected):
    s = parse_selector(word)
    assert (s.model_type, s.batch_size, s.precision, s.run_mode, s.device, s.to_static) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dynamic_bs8_fp32_DP", "expected 5 '_'-separated parts"),
        ("dynamic_b8_fp32_DP_N1C1", "batch part 'b8': expected bs<N>"),
        ("dynamic_bs8_fp32_DP_C8", "device part 'C8': expected N<nodes>C<cards>"),
        ("dynamic_bs8_fp32_DP_N4C2", "expected at least one card per node"),
        ("dynamic_bs8_fp32_DP_N1C1,", "an empty word"),
    ],
    ids=["parts", "batch", "device", "cards", "empty"],
)
def test_bad_params_say_what_was_expected(text, message):
    with pytest.raises(SettingsError, match="--benchmark-params") as err:
        parse_selectors(text)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (("batch_size:0", "fp_items:fp32", "epoch:1", "--profiler_options:x", "flags:null"), ":53: batch_size: '0'"),
        (("batch_size:8", "fp_items:fp32", "epoch:one", "--profiler_options:x", "flags:null"), ":55: epoch: 'one'"),
        (("batch_size:8", "fp_items:fp32", "epoch:1", "--profiler_options:x", "flags:A=1;B"), ":57: flags: 'B'"),
    ],
    ids=["batch", "epoch", "flag"],
)
def test_bad_section_values_name_file_and_line(lines, message):
    with pytest.raises(ConfigError) as err:
        benchmark_params(bench_config(*lines))
    assert str(err.value).startswith(PATH + message)


def test_a_config_without_the_section_does_not_run_benchmark_train():
    config = parse_config_text(config_text(), PATH)
    assert "benchmark_train" not in config_modes(config)
    with pytest.raises(ConfigError, match="expected a 'train_benchmark_params' section"):
        build_plan(config, PlanOptions("benchmark_train", python="py"))


def test_runs_multiply_epochs_by_nodes_and_cards_only_with_params():
    params = benchmark_params(bench_config())
    assert benchmark_runs(params, ()) == (
        BenchRun("32", "fp32", "DP", DeviceNum(1, 4), 1),
        BenchRun("32", "amp", "DP", DeviceNum(1, 4), 1),
    )
    assert benchmark_runs(params, parse_selectors("dynamic_bs8_fp32_DP_N2C16,dynamic_bs8_fp32_DP_N2C16")) == (
        BenchRun("8", "fp32", "DP", DeviceNum(2, 16), 32),
    )
