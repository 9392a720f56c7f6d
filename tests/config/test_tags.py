"""A config's tags from its file name, and the --tags groups."""

from __future__ import annotations

import pytest

from tipc.config.tags import ConfigTags, config_tags, matches, parse_tag_groups, tag_words


@pytest.mark.parametrize(
    ("name", "tags", "words"),
    [
        ("train_infer_python.txt", ConfigTags("linux_gpu"), ("linux_gpu", "normal")),
        ("train_pact_infer_python.txt", ConfigTags("linux_gpu", variant="pact"), ("linux_gpu", "normal", "pact")),
        ("train_ptq_infer_python.txt", ConfigTags("linux_gpu", variant="ptq"), ("linux_gpu", "normal", "ptq")),
        (
            "train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt",
            ConfigTags("linux_gpu", "fleet", "normal"),
            ("linux_gpu", "fleet"),
        ),
        (
            "train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt",
            ConfigTags("linux_gpu", "normal", "amp"),
            ("linux_gpu", "amp"),
        ),
        (
            "train_linux_dcu_normal_normal_infer_python_dcu.txt",
            ConfigTags("linux_dcu", "normal", "normal"),
            ("linux_dcu", "normal"),
        ),
        (
            "train_windows_gpu_normal_normal_infer_python_windows_cpu_gpu.txt",
            ConfigTags("windows_gpu"),
            ("windows_gpu", "normal"),
        ),
        (
            "train_linux_cpu_nproc2_normal_infer_python_linux_cpu.txt",
            ConfigTags("linux_cpu", "nproc2", "normal"),
            ("linux_cpu", "nproc2"),
        ),
        ("model_linux_gpu_normal_normal_infer_cpp_linux_gpu_cpu.txt", None, ()),
        ("train.txt", None, ()),
    ],
    ids=["short", "pact", "ptq", "fleet", "amp", "dcu", "windows", "other-word", "cpp-config", "no-pattern"],
)
def test_tags_of_a_file_name(name, tags, words):
    assert config_tags(name) == tags
    assert tag_words(name) == words


@pytest.mark.parametrize(
    ("values", "groups"),
    [
        ((), ()),
        (("linux_cpu,normal",), (frozenset({"linux_cpu", "normal"}),)),
        (("linux_cpu, normal", "amp"), (frozenset({"linux_cpu", "normal"}), frozenset({"amp"}))),
    ],
    ids=["none", "one-group", "two-groups-spaces-trimmed"],
)
def test_tag_groups(values, groups):
    assert parse_tag_groups(values) == groups


@pytest.mark.parametrize("value", ["linux_cpu,,amp", "", "amp,"], ids=["double-comma", "empty", "trailing-comma"])
def test_an_empty_tag_is_named(value):
    with pytest.raises(ValueError, match="empty tag; expected words separated by commas"):
        parse_tag_groups([value])


@pytest.mark.parametrize(
    ("words", "values", "expected"),
    [
        (("linux_cpu", "normal"), (), True),
        (("linux_cpu", "normal"), ("linux_cpu,normal",), True),
        (("linux_cpu", "amp"), ("linux_cpu,normal",), False),
        (("linux_gpu", "amp"), ("linux_cpu,normal", "linux_gpu,amp"), True),
        ((), ("normal",), False),
    ],
    ids=["no-filter", "all-of-a-group", "one-tag-missing", "any-group", "untagged-config"],
)
def test_matches(words, values, expected):
    assert matches(words, parse_tag_groups(values)) is expected
