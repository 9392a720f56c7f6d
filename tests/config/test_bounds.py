"""Hostile input is refused early and quickly: file kinds, sizes, symlink loops, line lengths, lists
that multiply, and error messages that quote excerpts only."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tipc.config import ConfigError, bounds
from tipc.config.bounds import MAX_CONFIG_BYTES, MAX_LINE_CHARS, MAX_STAGES, excerpt
from tipc.config.locate import declared_repo, resolve_config
from tipc.dialects.paddleocr.config import load_config, parse_config_text
from tipc.dialects.paddleocr.config.formats import PADDLEOCR_MODES
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "test_configs" / "PP-OCRv3_mobile_rec" / "train_infer_python.txt"
PATH = "c.txt"
# A message quotes at most two excerpts of config text; everything else is fixed wording.
MESSAGE_CHARS = 400


def shipped(lines: dict[str, str]) -> str:
    """The shipped config's text with the line of each key replaced by the given text."""
    return "".join(lines.get(line.partition(":")[0], line) + "\n" for line in SHIPPED.read_text().splitlines())


def error_of(call) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        call()
    return caught.value


def test_excerpt_cuts_long_text_only():
    assert excerpt("x" * 80) == "x" * 80
    assert excerpt("x" * 81) == "x" * 80 + "…"


# --- what is read -------------------------------------------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    os.mkfifo(path)
    return path


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    path.mkdir()
    return path


def _too_large(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    path.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    return path


def _self_loop(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    path.symlink_to(path)
    return path


def _two_link_loop(tmp_path: Path) -> Path:
    (tmp_path / "b.txt").symlink_to(tmp_path / "c.txt")
    (tmp_path / "c.txt").symlink_to(tmp_path / "b.txt")
    return tmp_path / "c.txt"


def _broken_link(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    path.symlink_to(tmp_path / "gone.txt")
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_fifo, "is a FIFO (named pipe): expected a TIPC config file"),
        (_directory, "is a directory: expected a TIPC config file"),
        (lambda _: Path("/dev/zero"), "is a character device: expected a TIPC config file"),
        (
            _too_large,
            f"is {MAX_CONFIG_BYTES + 1} bytes, over the limit of {MAX_CONFIG_BYTES} bytes: "
            "expected a TIPC config file (real ones are under 10 KiB)",
        ),
        (_self_loop, "symlink loop (too many levels of symbolic links): expected a TIPC config file"),
        (_two_link_loop, "symlink loop (too many levels of symbolic links): expected a TIPC config file"),
        (_broken_link, "broken symlink (its target does not exist): expected a TIPC config file"),
    ],
    ids=["fifo", "directory", "dev-zero", "over-size-limit", "symlink-to-itself", "symlink-loop", "broken-symlink"],
)
def test_only_regular_files_of_bounded_size_are_read(tmp_path, make, message):
    path = make(tmp_path)
    error = error_of(lambda: load_config(path))
    assert (error.path, error.line, error.message) == (str(path), 0, message)


def test_a_fifo_swapped_in_after_the_check_is_caught_without_blocking(tmp_path, monkeypatch):
    regular = tmp_path / "regular.txt"
    regular.write_text("x")
    fifo = _fifo(tmp_path)
    monkeypatch.setattr(bounds, "stat_path", lambda *_: os.stat(regular))  # the check saw a regular file
    error = error_of(lambda: load_config(fifo))
    assert error.message == "is a FIFO (named pipe): expected a TIPC config file"


def test_target_yaml_is_read_within_the_size_limit(tmp_path):
    (tmp_path / "target.yaml").write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    error = error_of(lambda: declared_repo(tmp_path / "c.txt"))
    assert error.message.startswith(f"is {MAX_CONFIG_BYTES + 1} bytes, over the limit")


# --- finding the file -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arg", "places"),
    [
        ("/nowhere/c.txt", ["/nowhere/c.txt"]),
        ("m/none.txt", ["m/none.txt", "{root}/test_configs/m/none.txt", "{root}/test_tipc/configs/m/none.txt"]),
    ],
    ids=["absolute", "relative"],
)
def test_config_not_found_lists_each_place_once(tmp_path, arg, places):
    error = error_of(lambda: resolve_config(arg, tmp_path, tmp_path))  # one root given twice
    tried = " and ".join(f"'{place.format(root=tmp_path)}'" for place in places)
    assert error.message == f"config not found: tried {tried}"


def test_resolve_config_names_a_symlink_loop(tmp_path):
    loop = _self_loop(tmp_path)
    error = error_of(lambda: resolve_config(str(loop), tmp_path))
    assert (error.path, error.message) == (
        str(loop),
        "symlink loop (too many levels of symbolic links): expected a TIPC config file",
    )


# --- linear time ------------------------------------------------------------------------------------


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_a_60_kib_value_plans_in_well_under_a_second():
    # Split once per chain (the trainer's script) and once per infer case (the predictor's flag).
    value = "a" * (60 * 1024)
    text = shipped(
        {"norm_train": f"norm_train:tools/train.py -c x.yml -o Global.x={value}", "--benchmark": f"--benchmark:{value}"}
    )
    config = parse_config_text(text, PATH)
    seconds = _timed(lambda: [build_plan(config, PlanOptions(mode, python="py")) for mode in PADDLEOCR_MODES])
    assert seconds < 1.0


def test_a_10_mb_value_is_refused_quickly_naming_its_line():
    text = shipped({"norm_train": "norm_train:tools/train.py -o " + "a" * 10_000_000})
    error = error_of(lambda: parse_config_text(text, PATH))
    assert error.line == 16
    assert error.message.startswith(
        f"line of 10000029 characters, over the limit of {MAX_LINE_CHARS}: "
        "expected a 'key:value' line, found 'norm_train:tools/train.py -o aaa"
    )
    assert _timed(lambda: error_of(lambda: parse_config_text(text, PATH))) < 1.0


def test_lists_that_multiply_past_the_stage_limit_are_refused_before_planning():
    many = "|".join(str(n) for n in range(40))
    text = shipped(
        {
            "--cpu_threads": f"--cpu_threads:{many}",
            "--rec_batch_num": f"--rec_batch_num:{many}",
            "--enable_mkldnn": "--enable_mkldnn:True|False",
            "--precision": "--precision:fp32|fp16|int8",
        }
    )
    config = parse_config_text(text, PATH)
    error = error_of(lambda: build_plan(config, PlanOptions("lite_train_lite_infer", python="py")))
    assert error.line == 43
    assert (
        f"over the limit of {MAX_STAGES}: expected shorter lists (the longest: '--cpu_threads' with 40 values)"
        in error.message
    )


# --- excerpts -------------------------------------------------------------------------------------

LONG = "x" * 5000


@pytest.mark.parametrize(
    "text",
    [
        f"{LONG}\n",
        shipped({"gpu_list": f"gpu_list:{LONG}"}),
        shipped({"trainer": f"trainers{LONG}:norm_train"}),
        shipped({"trainer": f"trainer{LONG}"}),
        shipped({"Global.epoch_num": f"Global.epoch_num:{LONG}=3|whole_train_whole_infer=1"}),
        shipped({"norm_train": f'norm_train:tools/train.py "{LONG}'}),
        shipped({"--cpu_threads": f"--cpu_threads:{LONG}|{LONG}"}),
        shipped({"model_name": f"====={LONG}=====\nmodel_name:x"}),
    ],
    ids=[
        "first-line",
        "gpu-entry",
        "wrong-key",
        "no-colon",
        "mode-item",
        "unclosed-quote",
        "repeated-item",
        "unknown-section",
    ],
)
def test_errors_quote_excerpts_of_long_text(text):
    def plan():
        config = parse_config_text(text, PATH)
        build_plan(config, PlanOptions("lite_train_lite_infer", python="py"))

    error = error_of(plan)
    assert len(error.message) < MESSAGE_CHARS and "x…" in error.message
