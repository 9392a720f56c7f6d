"""``--device npu`` and ``--device xpu`` beside each suite's own ``test_train_inference_python_npu.sh`` and
``_xpu.sh``: the device script rewrites a copy of the config and calls the main script with a recording
interpreter (``tests/support/suite_bash``); tipc plans the same config with the same rewrites
(``tipc.suites.variants``). A device adds no difference of its own: of the cells (config × mode) where tipc's
plan agrees with the suite's main script (``tests/suites/test_parity.py``, whose fixes apply here too; PaddleOCR's
own differences are documented in docs/guide/bash-differences.md), at least 99 % agree under each device script."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.suites.test_parity import MODES, ROOT, TARGET
from tests.support.suite_bash import record_suite
from tests.support.suite_parity import compare
from tipc.suites import registry
from tipc.suites.dialect import CONFIG_DIR
from tipc.suites.variants import VARIANT_DEVICES

pytestmark = [
    pytest.mark.skipif(ROOT is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


def scripts() -> list[tuple[str, str]]:
    """Every (dialect, device) whose suite ships that device's script in its snapshot."""
    assert ROOT is not None
    return [
        (d.name, device)
        for d in registry.dialects()
        for device in VARIANT_DEVICES
        if device in d.devices and (ROOT / d.name / "test_tipc" / f"test_train_inference_python_{device}.sh").is_file()
    ]


@pytest.mark.parametrize(
    ("name", "device"), [pytest.param(*s, id="-".join(s)) for s in (scripts() if ROOT is not None else [])]
)
def test_the_device_plans_run_what_the_suites_device_script_runs(name: str, device: str) -> None:
    assert ROOT is not None
    dialect = next(d for d in registry.dialects() if d.name == name)
    suite = ROOT / name
    configs = dialect.configs(suite / CONFIG_DIR)
    main = record_suite(suite, configs, MODES)
    recorded = record_suite(suite, configs, MODES, f"test_train_inference_python_{device}.sh")
    cells = [(c, m) for c in configs for m in MODES]
    agreeing = [(c, m) for c, m in cells if compare(dialect, c, m, main[(str(c), m)]).matches]
    found = [compare(dialect, c, m, recorded[(str(c), m)], device) for c, m in agreeing]
    share = sum(c.matches for c in found) / len(found)
    kinds = Counter(c.verdict.split(":", 1)[0] for c in found)
    print(f"\n{name} --device {device}: {len(cells)} cells, {len(agreeing)} agree with the main script; of those "
          f"{share:.1%} agree with the {device} script: {dict(kinds)}")  # fmt: skip
    for cell in (c for c in found if not c.matches):
        print(f"  {Path(cell.config).relative_to(ROOT)} {cell.mode}: {cell.verdict[:300]}")
    assert share >= TARGET


def test_every_suite_that_ships_a_device_script_has_its_rewrites():
    """A device script in a snapshot whose dialect declares no rewrites for it would go unplanned, unnoticed."""
    assert ROOT is not None
    for dialect in registry.dialects():
        for device in VARIANT_DEVICES:
            if (ROOT / dialect.name / "test_tipc" / f"test_train_inference_python_{device}.sh").is_file():
                assert device in dialect.devices, f"{dialect.name} ships a {device} script; its dialect has no rewrites"
