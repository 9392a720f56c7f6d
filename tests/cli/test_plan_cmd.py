"""``tipc plan`` through tipc.cli.main (only the plan command registered, so other commands' state never matters)."""

import json
import os

import pytest

from tests.support.config_text import config_text


@pytest.fixture
def tipc(command, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    return command("plan")


@pytest.fixture
def config(tmp_path):
    directory = tmp_path / "test_configs" / "rec"
    directory.mkdir(parents=True)
    path = directory / "train.txt"
    path.write_text(config_text(gpu_list="gpu_list:0"))
    return path


def test_json_output(tipc, config, tmp_path):
    code, out, _ = tipc(
        "--config", "rec/train.txt", "--mode", "lite_train_lite_infer", "--python", "py", "--format", "json"
    )
    data = json.loads(out)
    assert code == 0
    assert [s["id"] for s in data["stages"]][:2] == ["norm_train-gpus_0-fp32::train", "norm_train-gpus_0-fp32::export"]
    assert data["stages"][0]["cwd"] == str(tmp_path)
    assert data["stages"][0]["argv"][0] == "py"
    assert {"model", "mode", "stages", "skipped", "notes"} <= set(data)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["rec", "test_configs", "train.txt"]  # nothing written


def test_text_output_with_repo_and_device(tipc, config, tmp_path):
    (tmp_path / "sub").mkdir()
    code, out, _ = tipc(
        "--config", str(config), "--mode", "whole_infer", "--repo", "sub", "--device", "cpu", "--python", "py"
    )
    assert code == 0
    assert f"cwd: {tmp_path / 'sub'}\n" in out
    assert "infer_model_0::infer[cpu-mkldnn_False-threads_6-fp32-bs1]\n" in out
    assert "infer_model_0::infer[gpu-trt_False-fp32-bs1]: no GPU on this node (device cpu)" in out


def test_declared_repo_is_the_default(tipc, config, tmp_path):
    (tmp_path / "target").mkdir()
    (config.parent / "target.yaml").write_text("repo: ../../target\n")
    _, out, _ = tipc("--config", str(config), "--mode", "whole_infer", "--format", "json")
    assert json.loads(out)["cwd"] == str(tmp_path / "target")


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--config", "rec/train.txt", "--mode", "nope"), "unknown mode 'nope': expected one of lite_train_lite_infer"),
        (("--config", "missing.txt", "--mode", "whole_infer"), "missing.txt: config not found"),
    ],
    ids=["bad-mode", "missing-config"],
)
def test_bad_input_exits_2(tipc, config, argv, message):
    code, out, err = tipc(*argv)
    assert (code, out) == (2, "")
    assert err.startswith("tipc: error: ") and message in err


def test_bad_config_line(tipc, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(config_text(gpu_list="gpu_list:0|zz"))
    code, _, err = tipc("--config", str(path), "--mode", "lite_train_lite_infer")
    assert code == 2
    assert (
        err == f"tipc: error: {path}:4: gpu_list: entry 'zz': expected -1 (CPU), a GPU id, a comma list of ids, "
        f"or '<ip>,<ip>;<ids>'\n"
    )


def test_json_schema_is_the_issues(tipc, tmp_path):
    """The object ``tipc plan --format json`` promises, on a shipped multi-node config found under
    test_configs/: every stage's argv starts with the interpreter, ``requires`` names earlier stages."""
    code, out, _ = tipc(
        "--config",
        "PP-OCRv3_mobile_rec/train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt",
        "--mode",
        "lite_train_lite_infer",
        "--python",
        "/opt/py",
        "--format",
        "json",
        "--device",
        "gpu",
        "--node-rank",
        "0",
        "--start-port",
        "17000",
    )
    data = json.loads(out)
    assert code == 0
    assert (data["model"], data["mode"]) == ("PP-OCRv3_mobile_rec", "lite_train_lite_infer")
    seen = set()
    for stage in data["stages"]:
        assert stage["kind"] in ("train", "eval", "export", "infer")
        assert stage["argv"][0] == "/opt/py" and all(isinstance(t, str) for t in stage["argv"])
        assert not {">", "2>&1"} & set(stage["argv"])  # redirection is the runner's job, not a token
        assert all(isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in stage["env"].items())
        assert stage["cwd"] == str(tmp_path) and stage["log"].startswith("./test_tipc/output/PP-OCRv3_mobile_rec/")
        assert set(stage["requires"]) <= seen
        seen.add(stage["id"])
    train = data["stages"][0]
    assert train["argv"][1:7] == [
        "-m",
        "paddle.distributed.launch",
        "--ips=127.0.0.2,127.0.0.3",
        "--gpus=0,1",
        "--host=127.0.0.2",
        "--start_port=17000",
    ]
    assert train["env"]["FLAGS_START_PORT"] == "17000" and "/node0/" in train["log"]
    infer = data["stages"][-1]
    assert "--rec_image_shape=3,48,320" in infer["argv"]  # the config's quotes resolved, no shell
    assert all(set(s) == {"id", "reason"} and all(isinstance(v, str) for v in s.values()) for s in data["skipped"])
    assert data["notes"][:2] == ["python: /opt/py (from --python)", "device gpu (--device gpu)"]
    assert all(isinstance(n, str) for n in data["notes"])


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "{path}: empty file: expected a TIPC config starting with the 'train_params' header"),
        (b"=====train_params=====\nmodel_name:x\x00y\n", "{path}:2: binary content (NUL byte): expected a text config"),
        (
            b"=====train_params=====\nmodel_name:x\npython:python3\n",
            "{path}:3: truncated config: it ends at line 3 ('python'); expected key 'gpu_list' (role gpu_list) next",
        ),
    ],
    ids=["empty", "binary", "truncated"],
)
def test_bad_files_exit_2_without_traceback(tipc, tmp_path, content, message):
    path = tmp_path / "c.txt"
    path.write_bytes(content)
    code, out, err = tipc("--config", str(path), "--mode", "whole_infer")
    assert (code, out, err) == (2, "", f"tipc: error: {message.format(path=path)}\n")


def test_unknown_mode_text(tipc, config):
    code, _, err = tipc("--config", "rec/train.txt", "--mode", "benchmark_infer")
    assert (code, err) == (
        2,
        f"tipc: error: {config}: unknown mode 'benchmark_infer': expected one of "
        "lite_train_lite_infer, lite_train_whole_infer, whole_train_whole_infer, whole_infer, benchmark_train, "
        "paddle2onnx_infer, klquant_whole_infer\n",
    )


def test_benchmark_train_without_its_section_names_the_config(tipc, config):
    code, _, err = tipc("--config", "rec/train.txt", "--mode", "benchmark_train")
    assert code == 2 and err.startswith(f"tipc: error: {config}:2: mode 'benchmark_train': expected a")


def test_a_shipped_ptq_config_prints_its_plan(tipc, tmp_path):
    code, out, err = tipc(
        "--config",
        "ch_PP-OCRv3_det/train_ptq_infer_python.txt",
        "--mode",
        "whole_infer",
        "--python",
        "py",
        "--device",
        "gpu",
    )
    assert (code, err) == (0, "")
    assert out.startswith("model ch_PP-OCRv3_det_KL, mode whole_infer: 3 stages, 0 skipped\n")
    assert (
        "infer_model_0::export\n  argv: py deploy/slim/quantization/quant_kl.py -c configs/det/PP-OCRv3/PP-OCRv3_det_cml.yml"
        " -o Global.pretrained_model=./inference/PP-OCRv3_mobile_det_infer/"
        " Global.save_inference_dir=./inference/PP-OCRv3_mobile_det_infer/_klquant\n"
    ) in out
    assert "infer_model_0::infer[gpu-trt_False-int8-bs1]\n" in out


@pytest.mark.parametrize("mode", ["lite_train_lite_infer", "whole_train_whole_infer"])
def test_a_ptq_config_in_another_mode_exits_2(tipc, mode):
    code, out, err = tipc("--config", "ch_PP-OCRv3_det/train_ptq_infer_python.txt", "--mode", mode)
    assert (code, out) == (2, "")
    assert err.startswith("tipc: error: ") and err.endswith(
        f"ch_PP-OCRv3_det/train_ptq_infer_python.txt:1: mode '{mode}': a KL quantization config runs only in "
        "whole_infer (test_ptq_inference_python.sh runs nothing in other modes): expected --mode whole_infer\n"
    )


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    """``tipc plan … | head``: the pipe closes before the plan is written."""
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tipc",
                "plan",
                "--config",
                "PP-OCRv3_mobile_rec/train_infer_python.txt",
                "--mode",
                "lite_train_lite_infer",
                "--format",
                "json",
            ],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")
