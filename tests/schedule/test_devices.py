"""The GPU list (given > TIPC_GPUS_AVAILABLE > the driver's) and an xdist worker's slot of it."""

from __future__ import annotations

import pytest

from tipc.schedule.devices import ENV, available_gpus, worker_index, worker_slot


@pytest.fixture
def driver(tmp_path):
    d = tmp_path / "gpus"
    d.mkdir()
    for pci in ("0000:01:00.0", "0000:02:00.0"):
        (d / pci).mkdir()
    return d


@pytest.mark.parametrize(
    ("given", "env", "visible", "with_driver", "ids"),
    [
        ("0,1,2,3", "5,6", None, True, ("0", "1", "2", "3")),
        (None, "5,6", "7", True, ("5", "6")),
        (None, None, "4,7", True, ("4", "7")),
        (None, None, "", True, ()),
        (None, None, "GPU-1a2b,GPU-3c4d", True, ("0", "1")),
        (None, None, None, True, ("0", "1")),
        (None, "", None, True, ("0", "1")),
        (None, None, None, False, ()),
    ],
    ids=[
        "option-wins",
        "env-next",
        "own-visible-devices",
        "hidden",
        "uuids-skipped",
        "driver-last",
        "empty-env-ignored",
        "none",
    ],
)
def test_where_the_list_comes_from(given, env, visible, with_driver, ids, driver, tmp_path):
    environ = {**({} if env is None else {ENV: env}), **({} if visible is None else {"CUDA_VISIBLE_DEVICES": visible})}
    assert available_gpus(given, environ, driver if with_driver else tmp_path / "no-driver") == ids


@pytest.mark.parametrize(
    ("given", "env", "source"), [("0,x", None, "--gpus-available"), (None, "1,1", ENV)], ids=["option", "env"]
)
def test_a_bad_list_names_its_source(given, env, source, tmp_path):
    with pytest.raises(ValueError, match=f"^{source} "):
        available_gpus(given, {} if env is None else {ENV: env}, tmp_path)


@pytest.mark.parametrize(
    ("gpus", "index", "workers", "slot"),
    [
        (("0", "1", "2", "3", "4", "5", "6", "7"), 3, 4, ("6", "7")),
        (("0", "1", "2", "3", "4", "5", "6", "7"), 0, 8, ("0",)),
        (("0", "1", "2"), 1, 2, ("1",)),
        (("0", "1"), 2, 3, ()),
    ],
    ids=["two-each", "one-each", "remainder-idle", "more-workers-than-gpus"],
)
def test_worker_slots_are_disjoint_runs_of_the_list(gpus, index, workers, slot):
    assert worker_slot(gpus, index, workers) == slot


@pytest.mark.parametrize(
    ("workerid", "index"), [("gw0", 0), ("gw12", 12), ("custom", 0)], ids=["gw0", "gw12", "no-number"]
)
def test_worker_index(workerid, index):
    assert worker_index(workerid) == index
