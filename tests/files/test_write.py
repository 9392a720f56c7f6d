"""The write door: names made from input stay one component under their root, distinct names stay
distinct, over-long names are cut with a stable hash, and a failed write names its path."""

from __future__ import annotations

import errno
import itertools

import pytest

from tipc.errors import OutputError
from tipc.files.write import NAME_BYTES, component, name_part, scratch_file, under, write_atomic, writing

HOSTILE = [".", "..", "", "a/b", "../../etc", "a%2Fb", "模型", "x\x1b[31m", "x\x07", "a\x00b", "~", "x" * 300]
ORDINARY = ["PP-OCRv3_mobile_rec", "lite_train_lite_infer", "fp32", "20261201T013000Z-5f3a9c1e", "a b+c"]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_are_spelled_as_written(name):
    assert component(name_part(name)) == name


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_name_is_one_component_never_dot_or_dotdot_nor_a_control_character(tmp_path, name):
    made = component(name_part(name))
    assert "/" not in made and made not in ("", ".", "..") and made.isprintable()
    assert len(made.encode()) <= NAME_BYTES
    assert under(tmp_path, name, name).parent.parent == tmp_path


def test_distinct_names_stay_distinct():
    names = [*HOSTILE, *ORDINARY, "x" * 299 + "y", "%2E", "%2E%2E"]
    made = [component(name_part(n)) for n in names]
    assert len(set(made)) == len(names)


def test_over_long_names_are_cut_with_a_stable_hash():
    first, second = component("x" * 300, ".log"), component("x" * 300, ".log")
    assert first == second and first.endswith(".log") and "~" in first
    assert component("x" * 300 + "a") != component("x" * 300 + "b")


def test_a_link_inside_the_root_cannot_take_a_path_out(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "m").symlink_to(tmp_path)
    with pytest.raises(OutputError, match="a link takes it out of"):
        under(tmp_path / "root", "m", "mode")


@pytest.mark.parametrize(
    "error", [OSError(errno.ENOSPC, "No space left on device"), PermissionError(errno.EACCES, "Permission denied")]
)
def test_a_failed_write_is_an_output_error_naming_the_path(tmp_path, error):
    with pytest.raises(OutputError) as caught, writing(tmp_path / "x"):
        raise error
    assert str(caught.value) == f"cannot write {tmp_path / 'x'}: {error.strerror} (errno {error.errno})"


def test_write_atomic_where_it_cannot_write_leaves_no_temp_file(tmp_path):
    """A folder that is a file (root may write anywhere else; this fails for root too)."""
    (tmp_path / "folder").write_text("")
    with pytest.raises(OutputError, match=f"cannot write {tmp_path / 'folder' / 'f'}: Not a directory"):
        write_atomic(tmp_path / "folder" / "f", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]


def test_no_two_hostile_names_share_a_folder(tmp_path):
    paths = {under(tmp_path, a, b) for a, b in itertools.product(HOSTILE, repeat=2)}
    assert len(paths) == len(HOSTILE) ** 2


def test_a_scratch_file_has_no_name_and_where_none_can_be_made_the_error_names_the_folder(tmp_path):
    with scratch_file(tmp_path) as file:
        file.write(b"rows")
        file.seek(0)
        assert file.read() == b"rows"
        assert list(tmp_path.iterdir()) == []  # nothing to leave behind, even if the process dies here
    with pytest.raises(OutputError, match="missing"):
        scratch_file(tmp_path / "missing")
