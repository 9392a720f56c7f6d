"""Keys real configs write in a known slot (``quant_train`` on the pact_train line ...) and item modes no
script runs: read as the bash reads them, each with a note; anything else stays an error."""

from __future__ import annotations

import pytest

from tests.support.config_text import config_text
from tests.support.plan_factory import make_plan
from tipc.config import ConfigError, Field
from tipc.dialects.paddleocr.config import parse_config_text
from tipc.dialects.paddleocr.config.variants import SLOT_VARIANTS

PATH = "cfg.txt"


def note(line: int, key: str, slot: str) -> str:
    return (
        f"train_params: line {line}: key '{key}' read in the {slot} slot, where real configs write it "
        f"(the bash reads the line by position; a trainer named '{key}' selects it)"
    )


# (role lines, expected fields, expected notes): the shapes of the real configs, then combinations.
VARIANT_CASES = [
    (
        {"pact_train": "quant_train:null"},
        {"pact_train": Field("quant_train", "null", 17)},
        (note(17, "quant_train", "pact_train"),),
    ),
    (
        {"pact_train": "quant_export:null"},
        {"pact_train": Field("quant_export", "null", 17)},
        (note(17, "quant_export", "pact_train"),),
    ),
    (
        {"fpgm_train": "fpgm_export:null"},
        {"fpgm_train": Field("fpgm_export", "null", 18)},
        (note(18, "fpgm_export", "fpgm_train"),),
    ),
    (
        {"pact_train": "quant_export:null", "fpgm_train": "fpgm_export:null"},
        {"pact_train": Field("quant_export", "null", 17), "fpgm_train": Field("fpgm_export", "null", 18)},
        (note(17, "quant_export", "pact_train"), note(18, "fpgm_export", "fpgm_train")),
    ),
    (
        {"pact_train": "", "fpgm_train": "fpgm_export:null"},
        {"pact_train": Field("pact_train", "null", 0), "fpgm_train": Field("fpgm_export", "null", 17)},
        (
            "train_params: missing key 'pact_train' (role pact_train) after line 16; read as null",
            note(17, "fpgm_export", "fpgm_train"),
        ),
    ),
]


@pytest.mark.parametrize(
    ("lines", "fields", "notes"),
    VARIANT_CASES,
    ids=["quant_train-as-pact", "quant_export-as-pact", "fpgm_export-as-fpgm", "det_r18_ct-shape", "pact-missing"],
)
def test_a_variant_key_is_read_in_its_slot_with_a_note(lines, fields, notes):
    config = parse_config_text(config_text(**lines), PATH)
    assert {role: getattr(config, role) for role in fields} == fields
    assert config.notes == notes


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        ({"fpgm_train": "quant_train:null"}, 18, "expected key 'fpgm_train' (role fpgm_train), found 'quant_train'"),
        (
            {"pact_train": "fpgm_export:null"},
            18,
            "expected key 'distill_train' (role distill_train), found 'fpgm_train'",
        ),
        (
            {"distill_train": "distill_export:null"},
            19,
            "expected key 'distill_train' (role distill_train), found 'distill_export'",
        ),
        ({"pact_train": "quant_trian:null"}, 17, "expected key 'pact_train' (role pact_train), found 'quant_trian'"),
    ],
    ids=["pact-variant-in-fpgm-slot", "fpgm-variant-before-its-slot", "no-distill-variant", "misspelt-variant"],
)
def test_a_variant_elsewhere_is_still_an_error(lines, line, message):
    with pytest.raises(ConfigError) as caught:
        parse_config_text(config_text(**lines), PATH)
    assert (caught.value.line, caught.value.message) == (line, message)


@pytest.mark.parametrize(("slot", "key"), [(s, k) for s, keys in SLOT_VARIANTS.items() for k in keys], ids=str)
def test_the_trainer_named_by_a_variant_selects_its_slot(slot, key):
    """As in the bash: the trainer list is compared with the keys written, so the variant key is the name."""
    script = f"{slot}:deploy/slim/quantization/quant.py -c q.yml -o"
    plan = make_plan(trainer=f"trainer:{key}", **{slot: f"{key}:{script.partition(':')[2]}"})
    train = plan.stage(f"{key}-gpus_0-fp32::train")
    assert train.argv[1:3] == ("deploy/slim/quantization/quant.py", "-c")
    assert any(
        n.startswith(f"train_params: line {17 if slot == 'pact_train' else 18}: key '{key}'") for n in plan.notes
    )


def test_a_quant_train_variant_keeps_the_quant_flag_of_its_slot():
    """The pact slot's infer sweep drops CPU cases that are not int8, whatever key names it."""
    plan = make_plan(
        gpu_list="gpu_list:0",
        trainer="trainer:quant_train",
        pact_train="quant_train:deploy/slim/quantization/quant.py -c q.yml -o",
        quant_export="quant_export:deploy/slim/quantization/export_model.py -c q.yml -o",
    )
    assert plan.stage("quant_train-gpus_0-fp32::export").argv[1] == "deploy/slim/quantization/export_model.py"
    assert [s.id for s in plan.skipped if "cpu" in s.id] == [
        "quant_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]"
    ]


UNREAD_ITEM = (
    "line 9: item 'whole_train_lite_infer=4' of 'Train.loader.batch_size_per_card' names a mode "
    "no harness script runs (the bash never matches it): not used"
)


@pytest.mark.parametrize(
    ("mode", "batch_arg"),
    [
        ("lite_train_lite_infer", "Train.loader.batch_size_per_card=2"),
        ("whole_train_whole_infer", None),
    ],
    ids=["lite-item-used", "whole-has-no-item"],
)
def test_an_item_for_a_mode_no_script_runs_is_read_and_never_used(mode, batch_arg):
    batch = "Train.loader.batch_size_per_card:lite_train_lite_infer=2|whole_train_lite_infer=4"
    plan = make_plan(mode, train_batch=batch)
    assert UNREAD_ITEM in plan.notes
    argv = plan.stage("norm_train-gpus_0-fp32::train").argv
    assert [a for a in argv if a.startswith("Train.loader.batch_size_per_card=")] == ([batch_arg] if batch_arg else [])


def test_an_unknown_item_mode_is_still_an_error():
    text = config_text(train_batch="Train.loader.batch_size_per_card:lite_train_lite_infer=2|whole_train_lit_infer=4")
    with pytest.raises(ConfigError, match="unknown mode 'whole_train_lit_infer'") as caught:
        parse_config_text(text, PATH)
    assert caught.value.line == 9
