"""The one YAML loader: hostile documents are refused at ``file:line``, never a traceback, in bounded
time and memory. Each case is read as a training yml, as a golden file, as an ``-o`` value and as a
``target.yaml``: one loader for all of them."""

from __future__ import annotations

import pytest

from tipc.config.locate import declared_repo
from tipc.config.yamldoc import MAX_DEPTH, MAX_NODES, Origin, load_yaml, read_yaml
from tipc.dialects.paddleocr.prepare.overrides import parse_override
from tipc.errors import ConfigError
from tipc.golden.files import GoldenError, read_golden


def alias_chain(levels: int = 9, width: int = 10) -> str:
    """A billion laughs in 2 KB: each level lists the one before ``width`` times."""
    text = "a0: &a0 [" + ", ".join(["lol"] * width) + "]\n"
    for i in range(1, levels):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]\n"
    return text


HOSTILE = [
    (alias_chain(), 5, "aliases expand it to more than"),  # where the count passes the bound
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", 1, f"nested deeper than {MAX_DEPTH} levels"),
    ("x: 1\na: b\0c\n", 2, "control character '\\x00'"),
    ('x: 1\na: "b\\0c"\n', 2, "control character '\\x00'"),
    ('x: 1\na: "\\e[31m"\n', 2, "control character '\\x1b'"),
    ("x: 1\ny: 2\na: " + "9" * 5000 + "\n", 3, "a number of 5000 characters"),
    ("a: 1." + "5" * 5000 + "\n", 1, "a number of 5002 characters"),
    ("a: [1, 2\n", 2, "expected ',' or ']'"),
]
IDS = ["alias-chain", "deep-nesting", "raw-nul", "escaped-nul", "escape-sequence", "huge-int", "huge-float", "unclosed"]


@pytest.mark.parametrize(("text", "line", "message"), HOSTILE, ids=IDS)
def test_a_hostile_training_yml_is_refused_at_its_line(tmp_path, text, line, message):
    path = tmp_path / "rec.yml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_yaml(path)
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert message in caught.value.message and len(caught.value.message) < 300


@pytest.mark.parametrize(("text", "line", "message"), HOSTILE, ids=IDS)
def test_a_hostile_golden_file_is_refused_at_its_line(tmp_path, text, line, message):
    path = tmp_path / "golden" / "lite_train_lite_infer_fp32.yaml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(GoldenError) as caught:
        read_golden(path, "fp32")
    assert (caught.value.line, message in caught.value.message) == (line, True)


@pytest.mark.parametrize(("text", "line", "message"), HOSTILE, ids=IDS)
def test_a_hostile_target_yaml_is_refused_at_its_line(tmp_path, text, line, message):
    (tmp_path / "target.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        declared_repo(tmp_path / "c.txt")
    assert (caught.value.line, message in caught.value.message) == (line, True)


@pytest.mark.parametrize(("text", "line", "message"), HOSTILE, ids=IDS)
def test_a_hostile_override_value_names_the_config_line(text, line, message):
    origin = Origin("c.txt", 7, "the override of stage s")
    with pytest.raises(ConfigError) as caught:
        parse_override("Global.x=" + text.replace("\n", " ").replace("a0: ", "", 1), origin)
    assert (caught.value.path, caught.value.line) == ("c.txt", 7)
    assert "is not YAML" in caught.value.message and len(caught.value.message) < 400


def test_what_real_ymls_use_still_reads(tmp_path):
    """Anchors, aliases and merge keys within the bound, tabs and newlines in strings, long lists."""
    text = (
        "Global: &g\n  max_text_length: &len 25\n  character_dict_path: ppocr/utils/ppocr_keys_v1.txt\n"
        'Eval:\n  <<: *g\n  len: *len\n  note: "a\\tb\\nc"\n  ids: [' + ", ".join(map(str, range(5000))) + "]\n"
    )
    root, data = load_yaml(text, "rec.yml")
    assert root is not None and data["Eval"]["max_text_length"] == 25 and data["Eval"]["note"] == "a\tb\nc"
    assert len(data["Eval"]["ids"]) == 5000 < MAX_NODES
