"""What the verdict rests on, said at the top of the report: exit codes only, goldens, regressions;
a case that predicted nothing named beside the verdict."""

from __future__ import annotations

import pytest

from tests.report.test_predictions import infer, rec_log, render
from tests.support.recorded_runs import CPU_CHAIN, ResultsWriter
from tipc.results.records import StageRecord, Status
from tipc.run.criteria import Criteria, EmptyCase, criteria_of


@pytest.mark.parametrize(
    ("criteria", "text"),
    [
        (Criteria(True, 0, 0), "checked: exit codes only (no golden compared, no figure judged against earlier runs)"),
        (Criteria(True, 2, 0), "checked: exit codes, goldens (2 chains)"),
        (Criteria(True, 0, 4), "checked: exit codes, regressions (4 figures)"),
        (Criteria(True, 1, 3), "checked: exit codes, goldens (1 chains), regressions (3 figures)"),
        (Criteria(False, 0, 0), "checked: nothing (no stage ran)"),
    ],
    ids=["exit-codes-only", "goldens", "regressions", "all-three", "nothing-ran"],
)
def test_the_criteria_in_words(criteria, text):
    assert criteria.text() == text


@pytest.mark.parametrize(
    ("status", "goldens"),
    [(Status.PASSED, 1), (Status.FAILED, 1), (Status.DIFFERS, 1), (Status.NO_GOLDEN, 0), (Status.BLOCKED, 0)],
    ids=["passed", "failed", "differs", "no-golden-file", "blocked"],
)
def test_a_golden_check_counts_when_it_compared_with_a_golden_file(status, goldens):
    records = [
        StageRecord(id="c::train", kind="train", chain="c", status=Status.PASSED),
        StageRecord(id="c::golden", kind="golden", chain="c", status=status),
    ]
    assert criteria_of(records).goldens == goldens


def test_the_top_of_the_page_says_exit_codes_only_and_names_the_case_that_predicted_nothing(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    writer.add(CPU_CHAIN, "train", Status.PASSED, returncode=0)
    infer(writer, 1, rec_log((f"w{i}.png", "", 0.0) for i in range(8)))
    infer(writer, 6, rec_log([("w0.png", "hello", 0.9)]))
    doc = render(writer, tmp_path)
    banner = doc.find("header", cls="banner")
    assert banner.find(id="verdict").attrs["data-overall"] == "passed"
    assert banner.find(id="criteria").attrs["data-checked"] == "exit codes"
    assert "checked: exit codes only" in banner.find(id="criteria").text
    (empty,) = banner.find_all("div", cls="all-empty-top")  # beside the verdict, not only further down
    assert (empty.attrs["data-chain"], empty.attrs["data-case"]) == (
        CPU_CHAIN,
        "infer[cpu-mkldnn_False-threads_1-fp32-bs1]",
    )
    assert "every prediction empty (8 of 8)" in empty.text


def test_a_golden_check_is_named_among_the_criteria(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    writer.add(CPU_CHAIN, "train", Status.PASSED, returncode=0)
    writer.add(CPU_CHAIN, "golden", Status.PASSED, "no findings\n", metrics={"findings": 0})
    doc = render(writer, tmp_path)
    assert doc.find(id="criteria").attrs["data-checked"] == "exit codes,goldens"
    assert not doc.find_all("div", cls="all-empty-top")


def test_empty_case_text():
    assert EmptyCase("c", "infer[bs1]", 8).text() == (
        "c · infer[bs1]: every prediction empty (8 of 8): the model recognised or detected nothing"
    )
    assert EmptyCase("c", "infer[bs1]", 8, "ab").text() == (
        "c · infer[bs1]: every prediction the same ('ab', 8 of 8): the model gives one answer whatever the image"
    )


def test_an_agreement_check_is_named_among_the_criteria():
    """A paddle2onnx chain's agreement of ONNX Runtime with Paddle Inference judged the run: the line says so,
    failed or passed, never "exit codes only"."""
    records = [
        StageRecord(id="c::infer", kind="infer", chain="c", status=Status.PASSED),
        StageRecord(id="c::agree", kind="agree", chain="c", status=Status.FAILED),
    ]
    criteria = criteria_of(records)
    assert criteria.checked() == ("exit codes", "agreement")
    assert criteria.text() == "checked: exit codes, agreement (1 chains)"


@pytest.mark.parametrize(
    ("predictions", "empty"),
    [
        ([("a.png", "", 0.0), ("b.png", "", 0.0)], (EmptyCase("c", "infer[bs1]", 2),)),
        ([("a.png", "", 0.0), ("b.png", "hi", 0.9), ("c.png", "", 0.0)], ()),
        ([("a.png", "hi", 0.9), ("b.png", "", 0.0)], ()),
        ([], ()),
        ([("a.png", "hi", 0.9), ("b.png", "hi", 0.4), ("c.png", "hi", 0.7)], (EmptyCase("c", "infer[bs1]", 3, "hi"),)),
        ([("a.png", "hi", 0.9), ("b.png", "hi", 0.4), ("c.png", "ho", 0.7)], ()),
        ([("a.png", "hi", 0.9)], ()),
    ],
    ids=["all-empty", "one-found-midway", "first-found", "no-predictions", "all-same", "one-differs", "one-image"],
)
def test_a_case_is_flagged_only_when_every_prediction_is_empty_or_the_same(tmp_path, predictions, empty):
    log = tmp_path / "infer.log"
    log.write_text("header line\n" + rec_log(predictions) + "\t\n")
    record = StageRecord(id="c::infer[bs1]", kind="infer", chain="c", status=Status.PASSED, log=str(log))
    assert criteria_of([record]).empty == empty
