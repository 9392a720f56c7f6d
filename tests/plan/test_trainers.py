import pytest

from tests.support.plan_factory import make_config
from tipc.dialects.paddleocr.plan.trainers import resolve_trainer

LINES = dict(
    pact_train="pact_train:deploy/slim/quant.py -c q.yml -o",
    quant_export="quant_export:deploy/slim/export.py -c q.yml -o",
    fpgm_train="fpgm_train:deploy/slim/prune.py -c f.yml -o",
    fpgm_export="fpgm_export:deploy/slim/export_prune.py -c f.yml -o",
    distill_train="distill_train:tools/train.py -c d.yml -o",
    distill_export="distill_export:tools/export_model.py -c d.yml -o",
    custom_train="my_train:tools/my.py -c m.yml -o",
    export2="export2:tools/my_export.py -c m.yml -o",
)
CONFIG = make_config(to_static=True, **LINES)
NORM = CONFIG.norm_train.value


@pytest.mark.parametrize(
    "name, train_text, export_text, quant",
    [
        ("pact_train", "deploy/slim/quant.py -c q.yml -o", "deploy/slim/export.py -c q.yml -o", True),
        ("fpgm_train", "deploy/slim/prune.py -c f.yml -o", "deploy/slim/export_prune.py -c f.yml -o", False),
        ("distill_train", "tools/train.py -c d.yml -o", "tools/export_model.py -c d.yml -o", False),
        ("to_static_train", NORM + "  Global.to_static=true", CONFIG.norm_export.value, False),
        ("my_train", "tools/my.py -c m.yml -o", "tools/my_export.py -c m.yml -o", False),
        ("norm_train", NORM, CONFIG.norm_export.value, False),
        ("whatever_train", NORM, CONFIG.norm_export.value, False),
    ],
    ids=["pact", "fpgm", "distill", "to_static", "custom-slot-20", "norm", "unknown-is-norm"],
)
def test_dispatch_table(name, train_text, export_text, quant):
    trainer = resolve_trainer(CONFIG, name)
    assert (trainer.train_text, trainer.export.value, trainer.quant) == (train_text, export_text, quant)
    assert trainer.skip_reason is None


def test_to_static_needs_the_trailing_section():
    assert resolve_trainer(make_config(), "to_static_train").train_text == NORM


def test_null_custom_slot_selects_nothing():
    assert resolve_trainer(make_config(), "null").train_text == NORM


def test_null_script_gives_a_skip_reason():
    trainer = resolve_trainer(make_config(), "pact_train")
    assert trainer.skip_reason == "trainer 'pact_train': its script (pact_train, line 17) is null"


@pytest.mark.parametrize(
    "line, has_export",
    [
        ("norm_export:null", False),
        ("norm_export:", False),
        ("norm_export:tools/export_model.py", True),
    ],
    ids=["null", "empty", "script"],
)
def test_has_export(line, has_export):
    assert resolve_trainer(make_config(norm_export=line), "norm_train").has_export is has_export
