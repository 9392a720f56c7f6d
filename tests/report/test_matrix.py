from __future__ import annotations

import pytest

from tests.support.anchors import make_anchors
from tipc.report.matrix import build_matrix, cell, columns, ordered_row_keys
from tipc.report.naming import row_key, stage_key
from tipc.results.records import StageRecord, Status


def rec(sid: str, status=Status.PASSED, node=0, **kw) -> StageRecord:
    chain, name = sid.split("::")
    return StageRecord(id=sid, kind=name.split("[")[0], chain=chain, status=status, node_rank=node, **kw)


def test_columns_put_kinds_first_then_infer_cases_in_run_order():
    records = [
        rec("a::infer[cpu-fp32-bs1]"),
        rec("a::export"),
        rec("a::train"),
        rec("b::infer[cpu-fp32-bs6]"),
        rec("b::eval"),
    ]
    cols = columns(records)
    assert [c.key for c in cols] == ["train", "eval", "export", "infer[cpu-fp32-bs1]", "infer[cpu-fp32-bs6]"]
    assert cols[3].parts == ("cpu", "fp32", "bs1") and cols[3].title == "cpu-fp32-bs1"


@pytest.mark.parametrize(
    "record, status, text, note, in_title",
    [
        (None, "none", "—", "", "no such stage, or the run's selection left it out"),
        (rec("a::train", duration=12.34), "passed", "passed", "12.3 s", "a::train: passed"),
        (rec("a::train", Status.FAILED, returncode=2), "failed", "FAILED", "", "exit code 2"),
        (
            rec("a::export", Status.BLOCKED, reason="a::train failed (see ./S.log)"),
            "blocked",
            "blocked",
            "a::train failed (see ./S.log)",
            "a::train failed",
        ),
        (
            rec("a::export", Status.SKIPPED, reason="not applicable: trainer 0 owns the model and this is node 1"),
            "skipped",
            "skipped",
            "not applicable: trainer 0 owns the model and th…",
            "this is node 1",
        ),
        (
            rec("a::train", Status.HUNG, reason="no output for 300 s", duration=301),
            "hung",
            "HUNG",
            "301.0 s",
            "no output for 300 s",
        ),
    ],
    ids=["absent", "passed", "failed-exit-code", "blocked-says-why", "skipped-long-reason-cut", "hung"],
)
def test_cell(record, status, text, note, in_title):
    c = cell(record, "x" if record else "")
    assert (c.status, c.text, c.note) == (status, text, note)
    assert in_title in c.title


@pytest.mark.parametrize(
    "run_id, carried",
    [
        ("R2", False),
        ("R1", True),
        ("", True),
    ],
    ids=["this-run", "earlier-run", "earlier-run-before-ids"],
)
def test_carried_cells_say_which_run_made_them(run_id, carried):
    records = [rec("a::train", Status.FAILED, run_id=run_id, reason="exit code 1")]
    anchors = make_anchors((stage_key(r) for r in records), "stage", False)
    (c,) = (
        build_matrix(
            records, anchors, make_anchors((row_key(r) for r in records), "chain", False), False, {(0, ""): "R2"}
        )
        .rows[0]
        .cells
    )
    assert bool(c.carried) is carried and c.anchor == "stage-a-train"
    if carried:
        assert c.note == c.carried and c.carried in c.title and "exit code 1" in c.title
        assert c.carried == (f"from earlier run {run_id}" if run_id else "from an earlier run (before run ids)")


def test_multi_node_rows_keep_a_chains_nodes_together():
    records = [
        rec("a::train", node=0),
        rec("b::train", node=0),
        rec("a::train", node=1),
        rec("a::export", Status.SKIPPED, node=1, reason="n/a"),
    ]
    assert ordered_row_keys(records) == (("a", 0), ("a", 1), ("b", 0))
    stage_anchors = make_anchors((stage_key(r) for r in records), "stage", True)
    m = build_matrix(records, stage_anchors, make_anchors((row_key(r) for r in records), "chain", True), True)
    assert [(r.label, r.node) for r in m.rows] == [("a", "node 0"), ("a", "node 1"), ("b", "node 0")]
    assert [c.status for c in m.rows[1].cells] == ["passed", "skipped"]
    assert m.rows[1].cells[0].anchor == "stage-a-train-n1"


def test_anchors_are_unique_even_when_slugs_collide():
    anchors = make_anchors([("a::b c", 0), ("a::b-c", 0), ("a::b c", 0)], "stage", False)
    assert list(anchors.values()) == ["stage-a-b-c", "stage-a-b-c-2"]
