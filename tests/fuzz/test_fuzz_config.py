"""Property: any config text gives a Plan or a ``ConfigError`` (``path:line: …``) in every mode, never
another exception and never a hang; a plan's paths stay inside the output root.

Examples are shipped configs with a few values replaced (mostly by ``|`` lists of words the planner
reads), shipped configs with a few lines mutated (keys or whole lines replaced, lines dropped,
repeated, swapped or inserted), and raw text. Derandomized and without an example
database, so every run tries the same examples; bounded to a few seconds.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tipc.config import ConfigError
from tipc.config.locate import find_configs
from tipc.dialects.paddleocr.config import parse_any_config_text
from tipc.dialects.paddleocr.config.formats import config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.plan.model import BenchmarkOptions

REPO = Path(__file__).resolve().parents[2]
SEEDS = tuple(tuple(path.read_text().splitlines()) for path in find_configs(REPO / "test_configs"))
PATH = "fuzz/train_infer_python.txt"  # no such file: build_plan has nothing to hash
ROOT = "out"
# Characters with a meaning in the format (':', '|', '=', '#', '=====') or in a shell, names and paths.
SPECIAL = ":|=#;,/.\\\"' \t\r%$-_~*?[]{}()<>&\x0b\x1b\u00e9\u2028"
FUZZ = settings(
    max_examples=200,
    deadline=timedelta(seconds=1),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Words the planner gives a meaning to, and words that would climb out of a folder.
WORDS = (
    "null",
    "True",
    "False",
    "gpu",
    "cpu",
    "amp",
    "fp32",
    "fp16",
    "int8",
    "0",
    "1",
    "0,1",
    "-1",
    "127.0.0.1,127.0.0.2;0,1",
    "lite_train_lite_infer=3",
    "whole_infer=1",
    "norm_train",
    "pact_train",
    "to_static_train",
    "..",
    "/",
    "../x",
    '"a b"',
    "'",
    "-o",
)

pieces = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(codec="utf-8"), max_size=120)
# '|' lists of meaningful words: values that get past the reader into the planner.
word_lists = st.lists(st.sampled_from(WORDS) | pieces, min_size=1, max_size=4).map("|".join)


@st.composite
def value_mutations(draw) -> str:
    """A shipped config with the values of a few ``key:value`` lines replaced: gets past the reader."""
    lines = list(draw(st.sampled_from(SEEDS)))
    entries = [i for i, line in enumerate(lines) if ":" in line]
    for index in draw(st.lists(st.sampled_from(entries), min_size=1, max_size=6)):
        lines[index] = f"{lines[index].partition(':')[0]}:{draw(word_lists)}"
    return "\n".join(lines)


@st.composite
def structure_mutations(draw) -> str:
    """A shipped config with a few lines replaced, dropped, repeated, swapped or inserted."""
    lines = list(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1)) if lines else 0
        _key, _, value = lines[index].partition(":") if lines else ("", "", "")
        action = draw(st.sampled_from(("key", "line", "drop", "repeat", "swap", "insert")))
        if action == "key":
            lines[index] = f"{draw(pieces)}:{value}"
        elif action == "line":
            lines[index] = draw(pieces)
        elif action == "drop" and lines:
            del lines[index]
        elif action == "repeat" and lines:
            lines.insert(index, lines[index])
        elif action == "swap" and lines:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        else:
            lines.insert(index, draw(pieces))
    return draw(st.sampled_from(("\n", "\r\n"))).join(lines)


def check(text: str, device: str) -> None:
    try:
        config = parse_any_config_text(text, PATH)
        for mode in config_modes(config):
            # benchmark_train's logs go under BENCHMARK_LOG_DIR: here the same root, to hold them to it too
            bench = BenchmarkOptions(log_dir=ROOT)
            plan = build_plan(config, PlanOptions(mode, python="py", device=device, output_root=ROOT, benchmark=bench))
            for stage in plan.stages():
                assert os.path.normpath(stage.log).startswith(ROOT + os.sep), stage.log
    except ConfigError as error:
        assert str(error).startswith(f"{PATH}:") and error.line >= 0
        assert len(error.message) < 1000  # excerpts, never whole lines


@FUZZ
@given(value_mutations(), st.sampled_from(("gpu", "cpu")))
def test_configs_with_fuzzed_values_plan_or_fail_with_a_config_error(text, device):
    check(text, device)


@FUZZ
@given(structure_mutations())
def test_configs_with_fuzzed_lines_plan_or_fail_with_a_config_error(text):
    check(text, "gpu")


@FUZZ
@given(st.text(alphabet=st.sampled_from(SPECIAL + "\nab01") | st.characters(codec="utf-8")))
def test_any_text_plans_or_fails_with_a_config_error(text):
    check(text, "gpu")
