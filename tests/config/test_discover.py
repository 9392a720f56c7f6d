"""``--config DIR``: the train_*.txt configs below a directory."""

from __future__ import annotations

from pathlib import Path

from tipc.dialects.paddleocr.config.discover import train_configs


def test_every_train_config_below_sorted_hidden_and_other_configs_left_out(tmp_path: Path) -> None:
    names = [
        "b/train_infer_python.txt",
        "a/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt",
        "a/deeper/still/train_pact_infer_python.txt",
        "a/model_linux_gpu_normal_normal_infer_cpp_linux_gpu_cpu.txt",
        "a/train_infer_python.yml",
        ".git/train_infer_python.txt",
        "a/.cache/train_infer_python.txt",
    ]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert [p.relative_to(tmp_path).as_posix() for p in train_configs(tmp_path)] == [
        "a/deeper/still/train_pact_infer_python.txt",
        "a/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt",
        "b/train_infer_python.txt",
    ]


def test_a_symlinked_directory_loop_ends(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "train_infer_python.txt").write_text("")
    (tmp_path / "m" / "loop").symlink_to(tmp_path, target_is_directory=True)
    assert train_configs(tmp_path) == (tmp_path / "m" / "train_infer_python.txt",)
