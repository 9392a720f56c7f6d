"""The bash's reading and splicing primitives (``tipc.suites.bash``), table-driven against what bash itself does."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tipc.errors import ConfigError
from tipc.plan.fragments import DROPPED
from tipc.suites.bash import BashLines, dirname, ifs_fields, mode_param, param, path_param

SPLITS = ["a:b", "a::b", ":a", "a:", "a:b:c", "", "-o Global.device:gpu", "x"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to compare with")
@pytest.mark.parametrize("text", SPLITS, ids=repr)
def test_colon_fields_are_what_bash_splits(text: str) -> None:
    script = 'IFS=":"; array=(${1}); printf "%s\\0" "${array[@]}"'
    done = subprocess.run(["bash", "-c", script, "-", text], capture_output=True, text=True, check=True)
    bash = done.stdout.split("\0")[:-1]
    assert ifs_fields(text, ":") == (bash if bash != [""] or text else [])


LINES = BashLines.parse("===train_params===\n\nmodel_name:m\npython:py:3\n-o Global.device:gpu\nhttps://x:y\n", "c.txt")


@pytest.mark.parametrize(
    ("index", "key", "value", "first_key", "first_value", "line"),
    [
        (1, "model_name", "m", "model_name", "m", 3),
        (2, "python", "py", "python", "py:3", 4),
        (3, "-o Global.device", "gpu", "-o Global.device", "gpu", 5),
        (4, "https", "//x", "https", "//x:y", 6),
        (9, "", "", "", "", 0),
    ],
    ids=["plain", "second-colon", "dash-o-key", "url", "past-the-end"],
)
def test_entries_skip_empty_lines_and_read_keys_both_ways(index, key, value, first_key, first_value, line) -> None:
    assert (LINES.colon_key(index), LINES.colon_value(index)) == (key, value)
    assert (LINES.first_colon_key(index), LINES.first_colon_value(index)) == (first_key, first_value)
    assert LINES.line(index) == line


def test_a_file_that_does_not_start_with_a_header_names_its_first_line() -> None:
    with pytest.raises(ConfigError) as error:
        BashLines.parse("\nmodel_name:m\n", "c.txt")
    assert (error.value.line, error.value.message) == (2, "expected the 'train_params' header, found 'model_name:m'")


@pytest.mark.parametrize(
    ("text", "mode", "value"),
    [
        ("--iters:lite_train_lite_infer=20|whole_train_whole_infer=1000", "whole_train_whole_infer", "1000"),
        ("--iters:lite_train_lite_infer=20", "whole_infer", ""),
        ("--iters:20", "lite_train_lite_infer", ""),
        ("--iters:=5", "", "5"),
    ],
    ids=["its-mode", "no-item", "scalar", "empty-mode-item"],
)
def test_mode_param_picks_the_item_of_the_mode(text: str, mode: str, value: str) -> None:
    assert mode_param(text, mode) == value


@pytest.mark.parametrize(
    ("key", "value", "argv"),
    [
        ("-o Global.epochs", "2", ("-o", "Global.epochs=2")),
        ("--iters", "20", ("--iters=20",)),
        ("null", "2", None),
        ("--iters", "null", None),
        ("--iters", "", None),
    ],
    ids=["dash-o", "flag", "null-key", "null-value", "empty-value"],
)
def test_param_splits_as_eval_or_drops_as_func_set_params(key: str, value: str, argv: tuple[str, ...] | None) -> None:
    fragment = param(key, value, LINES, 1)
    assert fragment == DROPPED if argv is None else fragment.argv == argv


def test_a_made_up_path_stays_one_token_after_a_split_key() -> None:
    assert path_param("-o Global.output_dir", "./out dir/x", LINES, 1).argv == ("-o", "Global.output_dir=./out dir/x")


@pytest.mark.parametrize(
    ("path", "expected"),
    [("./a/model.pdparams", "./a"), ("a/", "."), ("model", "."), ("/x", "/"), ("a//b/", "a")],
    ids=repr,
)
def test_dirname_is_coreutils(path: str, expected: str) -> None:
    assert dirname(path) == expected
    if shutil.which("dirname"):
        assert subprocess.run(["dirname", path], capture_output=True, text=True).stdout.strip() == expected
