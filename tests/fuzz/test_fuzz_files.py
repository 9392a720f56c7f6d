"""Property: every reader of the read door, and every command over input files, gives its value or a
clear error (``TipcError``, exit 2 at the fronts), never another exception, a hang or unbounded memory.

Covers golden files, training ymls and ``target.yaml`` (one YAML loader), the trend history, matrix
summaries, thumbnails, and ``tipc report`` / ``tipc merge`` / ``tipc golden update`` over fuzzed
results folders. Derandomized and bounded in examples and time, like the other fuzz tests.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tracemalloc
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from tests.support.recorded_runs import ResultsWriter
from tipc.cli.main import main
from tipc.config.locate import declared_repo
from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError, TipcError
from tipc.golden.files import GoldenError, read_golden
from tipc.history.legacy import TREND_FILE, read_page_rows, read_trends
from tipc.history.reports import record_run
from tipc.history.store import HISTORY_FILE
from tipc.report.thumbs import NotShown, _thumbnail
from tipc.results.records import Status

FUZZ = settings(
    max_examples=120,
    deadline=timedelta(seconds=2),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
MEMORY = 64 << 20  # what any one read may take at most

# YAML's own syntax, what the loader bounds (aliases, depth, numbers, control characters), and words.
YAML_TOKENS = (
    "\n", "  ", ": ", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "&b ", "*b", "<<: ", "!!python/object:os.system ",
    "!!int ", "!!float ", "!!binary ", "'", '"', "\\0", "\\e", "\x00", "\x1b", "\x07", "#", "---\n", "...\n",
    "9" * 70, "1e999", ".nan", ".inf", "-.inf", "~", "null", "true", "tolerance", "score", "metric", "box",
    "train", "loss_drop", "metric_floor", "eval", "predictions", "text", "boxes", "repo", "a.png", "0.5", "-1",
)  # fmt: skip
yaml_texts = st.one_of(
    st.lists(st.sampled_from(YAML_TOKENS), max_size=40).map("".join),
    st.text(max_size=200),
    st.sampled_from(("[" * 500, "a: &a [" + "*a, " * 50 + "]", "- " * 300 + "x")),
)
golden_like = st.fixed_dictionaries(
    {},
    optional={
        "tolerance": st.dictionaries(
            st.sampled_from(("score", "metric", "box", "x")), st.floats() | st.text(max_size=3)
        ),
        "train": st.fixed_dictionaries(
            {}, optional={"loss_drop": st.floats(), "metric_floor": st.dictionaries(st.just("acc"), st.floats())}
        ),
        "eval": st.dictionaries(st.sampled_from(("acc", "hmean")), st.floats()),
        "predictions": st.dictionaries(
            st.sampled_from(("a.png", "b.jpg")),
            st.fixed_dictionaries({"text": st.text(max_size=5), "score": st.floats()}) | st.integers(),
        ),
    },
).map(lambda d: json.dumps(d, allow_nan=True).replace("NaN", ".nan").replace("Infinity", ".inf"))


def bounded(call: Callable[[], Any]) -> Any:
    """``call()`` with the memory it allocates bounded."""
    tracemalloc.start()
    try:
        return call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEMORY, f"{peak} bytes"


def fresh(factory: pytest.TempPathFactory, name: str, text: str | bytes) -> Path:
    path = factory.mktemp("f") / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


@FUZZ
@given(st.one_of(yaml_texts, golden_like))
def test_golden_file(tmp_path_factory, text):
    path = fresh(tmp_path_factory, "lite_train_lite_infer_fp32.yaml", text)
    try:
        bounded(lambda: read_golden(path, "fp32"))
    except GoldenError as exc:
        assert str(exc).startswith(f"{path}")


YAML_READERS = {"rec.yml": read_yaml, "target.yaml": lambda path: declared_repo(path.parent / "c.txt")}


@pytest.mark.parametrize("name", sorted(YAML_READERS), ids=["target-yaml", "training-yml"])
@FUZZ
@given(text=yaml_texts)
def test_training_yml_and_target_yaml(tmp_path_factory, name, text):
    path = fresh(tmp_path_factory, name, text)
    try:
        bounded(lambda: YAML_READERS[name](path))
    except ConfigError as exc:
        assert str(exc).startswith(f"{path}")


figure = st.one_of(st.floats(), st.integers(), st.booleans(), st.text(max_size=3), st.none())
history_lines = st.one_of(
    st.fixed_dictionaries(
        {
            "schema": st.sampled_from((1, 1, 2, "1")),
            "run": st.text(max_size=4),
            "config": st.sampled_from(("c.txt", "d.txt")),
            "stages": st.lists(
                st.fixed_dictionaries(
                    {"id": st.just("c::train"), "node": st.just(0), "figures": st.dictionaries(st.just("ips"), figure)}
                ),
                max_size=2,
            ),
        }
    ).map(lambda d: json.dumps(d, allow_nan=True).encode()),
    st.binary(max_size=40),
    st.just(b"[" * 100_000),
)


@FUZZ
@given(st.lists(history_lines, max_size=6))
def test_trend_history(tmp_path_factory, lines):
    path = fresh(tmp_path_factory, TREND_FILE, b"\n".join(lines))
    warnings: list[str] = []
    runs = read_trends(path, warnings.append)
    assert all(str(path) in w for w in warnings)
    for run in runs:  # NaN and Infinity never reach a drawing: the line is skipped with a warning
        assert all(isinstance(v, float) and math.isfinite(v) for v in run.figures.values())
    # the store imports the old history: whatever it held, nothing raises
    record_run(path.parent / HISTORY_FILE, path, "m", "lite_train_lite_infer", (), (), 5, warnings.append)


@FUZZ
@given(st.one_of(st.binary(max_size=80), st.just(b'{"rows": ' * 50_000)))
def test_matrix_summary(tmp_path_factory, body):
    path = fresh(tmp_path_factory, "matrix.json", body)
    with contextlib.suppress(ValueError, OSError):  # its contract: the overview skips such an entry, warning
        read_page_rows(path)


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("1", (width, height)).save(out, format="PNG")
    return out.getvalue()


@FUZZ
@given(
    st.one_of(
        st.binary(max_size=64).map(lambda b: b"\x89PNG\r\n\x1a\n" + b),
        st.binary(max_size=64).map(lambda b: b"\xff\xd8\xff" + b),
        st.tuples(st.integers(1, 40), st.integers(1, 40)).map(lambda wh: png(*wh)),
        st.just(png(6000, 6000)),
    )
)
def test_image(tmp_path_factory, data):
    path = fresh(tmp_path_factory, "a.png", data)
    thumb = bounded(lambda: _thumbnail(path, 0, len(data)))
    assert isinstance(thumb, NotShown) or (thumb.width <= 240 and thumb.height <= 160)


record_fields = st.fixed_dictionaries(
    {},
    optional={
        "log": st.sampled_from(("/etc/passwd", "../x.log", "", "/dev/zero", "a.log")),
        "cwd": st.sampled_from(("/", "", "..", "/tmp")),
        "shard": st.sampled_from(("", "1/2", "x/y", "-5/2", "1/1000000000")),
        "model": st.sampled_from((".", "..", "模型", "a/b", "\x1b[2J")),
        "infer": st.fixed_dictionaries({"precision": st.sampled_from(("fp32", "../../x", ""))}),
    },
)
info_fields = st.fixed_dictionaries(
    {},
    optional={
        "model": st.sampled_from((".", "..", "模型", "a/b", "\x1b[2J", "")),
        "mode": st.sampled_from(("lite_train_lite_infer", "..", "/abs")),
        "run_id": st.sampled_from(("r1", "../../r", "")),
        "shard": st.sampled_from(("", "1/1", "x/y", "1/1000000000")),
        "config": st.sampled_from(("c.txt", "", "/nonexistent/c.txt")),
    },
)


def results_folder(root: Path, record: dict[str, Any], info: dict[str, Any], status: Status) -> Path:
    writer = ResultsWriter(root / "results")
    made = writer.add("c", "infer[cpu]", status, log_text="Predicts of a.png:('x', 0.9)\n")
    writer.records[-1] = made.__class__(**{**made.__dict__, **record})
    writer.write(**info)
    (writer.root / "results_python.log").write_text("ok\n")
    return writer.root


@FUZZ
@given(
    record_fields,
    info_fields,
    st.sampled_from((Status.PASSED, Status.FAILED)),
    st.sampled_from(("report", "merge", "golden")),
)
def test_commands_over_fuzzed_results_folders(tmp_path_factory, capsys, record, info, status, name):
    root = tmp_path_factory.mktemp("c")
    try:
        folder = results_folder(root, record, info, status)
    except (TypeError, ValueError):  # the writer refuses what a record cannot hold: no folder to read
        return
    argv = {
        "report": ["report", str(folder), "--out", str(root / "reports")],
        "merge": ["merge", str(folder), "--out", str(root / "merged")],
        "golden": ["golden", "update", "--from", str(folder), "--golden-dir", str(root / "golden")],
    }[name]
    try:
        code = main(argv)
    except TipcError:  # pragma: no cover - main prints these itself
        pytest.fail("main let a TipcError through")
    err = capsys.readouterr().err
    assert code in (0, 1, 2) and "Traceback" not in err
    written = [p for p in root.rglob("*") if p.is_file()]
    assert all(p.is_relative_to(root) for p in written)
    assert not any("root:x:0:0" in p.read_text(errors="replace") for p in written if p.suffix == ".html")
