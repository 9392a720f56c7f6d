"""``tipc plan`` through tipc.cli.main (only the plan command registered, so other commands' state never matters)."""

import json

import pytest

from tipc.cli import main

from .plan_factory import config_text


@pytest.fixture
def tipc(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(main, "COMMANDS", {"plan": main.COMMANDS["plan"]})
    monkeypatch.chdir(tmp_path)

    def run(*argv):
        code = main.main(["plan", *argv])
        out, err = capsys.readouterr()
        return code, out, err
    return run


@pytest.fixture
def config(tmp_path):
    directory = tmp_path / "test_configs" / "rec"
    directory.mkdir(parents=True)
    path = directory / "train.txt"
    path.write_text(config_text(gpu_list="gpu_list:0"))
    return path


def test_json_output(tipc, config, tmp_path):
    code, out, _ = tipc("--config", "rec/train.txt", "--mode", "lite_train_lite_infer", "--python", "py",
                        "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert [s["id"] for s in data["stages"]][:2] == ["norm_train-gpus_0-fp32::train", "norm_train-gpus_0-fp32::export"]
    assert data["stages"][0]["cwd"] == str(tmp_path)
    assert data["stages"][0]["argv"][0] == "py"
    assert {"model", "mode", "stages", "skipped", "notes"} <= set(data)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["rec", "test_configs", "train.txt"]  # nothing written


def test_text_output_with_repo_and_device(tipc, config, tmp_path):
    code, out, _ = tipc("--config", str(config), "--mode", "whole_infer", "--repo", "sub", "--device", "cpu",
                        "--python", "py")
    assert code == 0
    assert f"cwd: {tmp_path / 'sub'}\n" in out
    assert "infer_model_0::infer[cpu-mkldnn_False-threads_6-fp32-bs1]\n" in out
    assert "infer_model_0::infer[gpu-trt_False-fp32-bs1]: no GPU: --device cpu" in out


def test_declared_repo_is_the_default(tipc, config, tmp_path):
    (tmp_path / "target").mkdir()
    (config.parent / "target.yaml").write_text("repo: ../../target\n")
    _, out, _ = tipc("--config", str(config), "--mode", "whole_infer", "--format", "json")
    assert json.loads(out)["cwd"] == str(tmp_path / "target")


@pytest.mark.parametrize("argv, message", [
    (("--config", "rec/train.txt", "--mode", "nope"), "unknown mode 'nope': expected one of lite_train_lite_infer"),
    (("--config", "missing.txt", "--mode", "whole_infer"), "missing.txt: config not found"),
], ids=["bad-mode", "missing-config"])
def test_bad_input_exits_2(tipc, config, argv, message):
    code, out, err = tipc(*argv)
    assert (code, out) == (2, "")
    assert err.startswith("tipc: error: ") and message in err


def test_bad_config_line(tipc, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(config_text(gpu_list="gpu_list:0|zz"))
    code, _, err = tipc("--config", str(path), "--mode", "lite_train_lite_infer")
    assert code == 2
    assert err == f"tipc: error: {path}:4: gpu_list: entry 'zz': expected -1 (CPU), a GPU id, a comma list of ids, " \
                  f"or '<ip>,<ip>;<ids>'\n"
