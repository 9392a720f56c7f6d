from __future__ import annotations

import pytest

from tipc.dialects.paddleocr.prepare.charset import NO_DICT_CHARSET, charset_for_dict, dict_entries, restrict_charset
from tipc.errors import ConfigError


@pytest.mark.parametrize(
    ("entries", "charset"),
    [
        ({"中", "文", "a", "7", "Z"}, "7aZ"),
        (set("0123456789abcdefghijklmnopqrstuvwxyz"), "0123456789abcdefghijklmnopqrstuvwxyz"),
        ({"中", "!", "#"}, "!#"),
        ({"中", "文"}, ""),
    ],
    ids=["latin-subset-in-order", "ic15-like", "symbols-only", "cjk-only"],
)
def test_restrict_charset(entries, charset):
    assert restrict_charset(entries) == charset


def test_dict_entries_keep_single_characters_only():
    assert dict_entries("a\nbc\n \n中\n\n") == {"a", " ", "中"}


def test_no_dict_means_digits_and_lowercase():
    assert charset_for_dict(None) == NO_DICT_CHARSET == "0123456789abcdefghijklmnopqrstuvwxyz"


def test_dict_file_restricts(tmp_path):
    path = tmp_path / "keys.txt"
    path.write_text("中\nb\na\n9\n", encoding="utf-8")
    assert charset_for_dict(path) == "9ab"


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read"), ("中\n文\n", "has no ASCII letter")],
    ids=["missing-file", "nothing-drawable"],
)
def test_unusable_dict_is_a_config_error_naming_the_yml(tmp_path, content, message):
    path = tmp_path / "keys.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        charset_for_dict(path, named_in="model.yml", line=4)
    assert (info.value.path, info.value.line) == ("model.yml", 4)
    assert message in info.value.message and str(path) in info.value.message
