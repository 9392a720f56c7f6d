from __future__ import annotations

from pathlib import Path

import pytest

from tipc.config.locate import declared_repo, find_configs, resolve_config, target_configs
from tipc.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def make(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")


def test_resolve_config_prefers_the_path_as_given(tmp_path: Path) -> None:
    make(tmp_path, "mine.txt", "test_configs/mine.txt")
    given = tmp_path / "mine.txt"
    assert resolve_config(str(given), tmp_path) == given


def test_resolve_config_falls_back_to_test_configs(tmp_path: Path) -> None:
    make(tmp_path, "test_configs/m/a.txt")
    assert resolve_config("m/a.txt", tmp_path) == tmp_path / "test_configs" / "m" / "a.txt"


def test_resolve_config_finds_a_checkouts_own_test_tipc_configs(tmp_path: Path) -> None:
    make(tmp_path / "ocr", "test_tipc/configs/m/a.txt")
    make(tmp_path / "tipc", "test_configs/m/a.txt")
    found = resolve_config("m/a.txt", tmp_path / "ocr", tmp_path / "tipc")
    assert found == tmp_path / "ocr" / "test_tipc" / "configs" / "m" / "a.txt"


def test_resolve_config_names_every_place_tried(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_config("m/none.txt", tmp_path)
    error = caught.value
    assert (error.path, error.line) == ("m/none.txt", 0)
    assert error.message == (
        f"config not found: tried 'm/none.txt' and '{tmp_path / 'test_configs/m/none.txt'}' "
        f"and '{tmp_path / 'test_tipc/configs/m/none.txt'}'"
    )


def test_resolve_config_finds_the_shipped_configs() -> None:
    found = resolve_config("PP-OCRv3_mobile_rec/train_infer_python.txt", REPO)
    assert found == REPO / "test_configs" / "PP-OCRv3_mobile_rec" / "train_infer_python.txt"


def test_declared_repo_is_none_without_target_yaml(tmp_path: Path) -> None:
    assert declared_repo(tmp_path / "c.txt") is None


@pytest.mark.parametrize(
    "text",
    ["repo: ../checkout\n", "# the checkout\nrepo: '../checkout'\nother: 1\n"],
    ids=["plain", "quoted-with-others"],
)
def test_declared_repo_resolves_relative_to_the_yaml(tmp_path: Path, text: str) -> None:
    (tmp_path / "checkout").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "target.yaml").write_text(text)
    assert declared_repo(tmp_path / "configs" / "c.txt") == (tmp_path / "checkout").resolve()


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("name: x\nother: y\n", 1, "no 'repo' key: expected 'repo: <path relative to this file>'"),
        ("\n\nrepo: ../missing\n", 3, "repo '../missing' is not a directory (resolved: {missing})"),
        ("repo:\n", 1, "expected 'repo: <path>', found an empty or non-text value"),
        ("repo: [a, b]\n", 1, "expected 'repo: <path>', found an empty or non-text value"),
        ("- repo\n", 1, "expected a mapping with 'repo: <path>'"),
        ("", 0, "expected a mapping with 'repo: <path>'"),
    ],
    ids=["no-repo-key", "missing-dir", "empty-value", "list-value", "not-a-mapping", "empty-file"],
)
def test_declared_repo_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    (tmp_path / "configs").mkdir()
    target = tmp_path / "configs" / "target.yaml"
    target.write_text(text)
    with pytest.raises(ConfigError) as caught:
        declared_repo(tmp_path / "configs" / "c.txt")
    missing = (tmp_path / "missing").resolve()
    assert (caught.value.path, caught.value.line, caught.value.message) == (
        str(target),
        line,
        message.format(missing=missing),
    )


def test_declared_repo_reports_yaml_syntax_errors_with_their_line(tmp_path: Path) -> None:
    (tmp_path / "target.yaml").write_text("repo: ok\nrepo: [unclosed\n")
    with pytest.raises(ConfigError) as caught:
        declared_repo(tmp_path / "c.txt")
    assert caught.value.line == 3
    assert caught.value.message.startswith("cannot read it as YAML: expected 'repo: <path>'")


def test_find_configs_lists_txt_under_test_configs_dirs_only(tmp_path: Path) -> None:
    make(
        tmp_path,
        "test_configs/b/y.txt",
        "test_configs/a/x.txt",
        "test_configs/a/target.yaml",
        "examples/demo/test_configs/z.txt",
        "docs/notes.txt",
        ".venv/lib/test_configs/hidden.txt",
    )
    expected = ("examples/demo/test_configs/z.txt", "test_configs/a/x.txt", "test_configs/b/y.txt")
    assert find_configs(tmp_path) == tuple(tmp_path / name for name in expected)
    assert find_configs(tmp_path / "test_configs") == tuple(tmp_path / name for name in expected[1:])


def test_find_configs_finds_the_shipped_configs() -> None:
    names = {path.relative_to(REPO).as_posix() for path in find_configs(REPO)}
    assert {
        "test_configs/PP-OCRv3_mobile_rec/train_infer_python.txt",
        "test_configs/ch_PP-OCRv3_det/train_infer_python.txt",
        "test_configs/rec_mv3_none_bilstm_ctc_v2_0/train_infer_python.txt",
    } <= names


def test_target_configs_lists_a_checkouts_train_configs_only(tmp_path: Path) -> None:
    make(
        tmp_path,
        "test_tipc/configs/b/train_infer_python.txt",
        "test_tipc/configs/a/train_ptq_infer_python.txt",
        "test_tipc/configs/a/model_linux_gpu_normal_normal_infer_cpp_linux_gpu_cpu.txt",
        "test_tipc/configs/a/a.yml",
        "test_tipc/train_elsewhere.txt",
    )
    expected = ("test_tipc/configs/a/train_ptq_infer_python.txt", "test_tipc/configs/b/train_infer_python.txt")
    assert target_configs(tmp_path) == tuple(tmp_path / name for name in expected)
    assert target_configs(tmp_path / "test_tipc") == ()
