"""Property: any bytes in a results folder give records, a warning naming the file and line, or a
``ResultsError`` (exit 2 at the fronts); never another exception. Covers ``results.jsonl``,
``run.json``, report history summaries and merge inputs. Derandomized and bounded, like the config fuzz."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tipc.cluster.merge import merge_dirs
from tipc.errors import ResultsError
from tipc.history.legacy import read_summary
from tipc.results.folder import read_records, read_run_info
from tipc.results.records import RunInfo, StageRecord, Status

FUZZ = settings(
    max_examples=150,
    deadline=timedelta(seconds=1),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
GOOD_RECORD = json.loads(
    StageRecord(
        id="c::train",
        kind="train",
        chain="c",
        status=Status.PASSED,
        run_id="r1",
        model="m",
        mode="lite_train_lite_infer",
    ).to_json()
)
GOOD_INFO = json.loads(RunInfo(model="m", mode="lite_train_lite_infer", config="c.txt", run_id="r1").to_json())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def mutated(good: dict) -> st.SearchStrategy[dict]:
    """``good`` with some fields replaced by any JSON value, or removed."""
    keys = st.sampled_from(sorted(good))
    return st.dictionaries(keys, json_values | st.just(None), max_size=4).flatmap(
        lambda changes: st.sets(keys, max_size=2).map(
            lambda dropped: {k: v for k, v in {**good, **changes}.items() if k not in dropped}
        )
    )


lines = st.one_of(
    mutated(GOOD_RECORD).map(lambda d: json.dumps(d, allow_nan=True).encode()),
    json_values.map(lambda v: json.dumps(v, allow_nan=True).encode()),
    st.binary(max_size=80),
)


@FUZZ
@given(st.lists(lines, max_size=6))
def test_records_file(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("r") / "results.jsonl"
    path.write_bytes(b"\n".join(body))
    warnings: list[str] = []
    records = read_records(path, warnings.append)
    assert all(isinstance(r, StageRecord) for r in records)
    assert all(w.startswith(f"tipc: skipped {path}:") for w in warnings)
    try:
        read_records(path)
    except ResultsError as exc:
        assert str(exc).startswith(f"{path}:")


@FUZZ
@given(st.one_of(mutated(GOOD_INFO).map(lambda d: json.dumps(d).encode()), st.binary(max_size=80)))
def test_run_info(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("r") / "run.json"
    path.write_bytes(body)
    try:
        assert isinstance(read_run_info(path), RunInfo)
    except ResultsError as exc:
        assert str(exc).startswith(f"{path}:")


@FUZZ
@given(st.one_of(json_values.map(lambda v: json.dumps(v).encode()), st.binary(max_size=80)))
def test_history_summary(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("s") / "summary.json"
    path.write_bytes(body)
    try:
        read_summary(path)
    except ResultsError as exc:
        assert str(path) in str(exc)


@FUZZ
@given(st.lists(lines, max_size=4), mutated(GOOD_INFO))
def test_merge_inputs(tmp_path_factory, body, info):
    root = tmp_path_factory.mktemp("m")
    node = Path(root / "node0")
    node.mkdir()
    (node / "results.jsonl").write_bytes(b"\n".join(body))
    (node / "run.json").write_text(json.dumps(info))
    (node / "results_python.log").write_text("")
    try:
        merge_dirs([node], root / "merged")
    except ResultsError as exc:
        assert str(exc).startswith(str(root))
