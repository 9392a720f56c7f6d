"""Finding config files and the target repo they declare."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.config.bounds import excerpt, read_bounded, stat_path
from tipc.errors import ConfigError

if TYPE_CHECKING:
    import yaml

CONFIG_DIR = "test_configs"
TARGET_CONFIG_DIR = "test_tipc/configs"  # where a PaddleOCR-style repository keeps its TIPC configs
TARGET_FILE = "target.yaml"
# Where tipc's own test_configs/ live (a source checkout or an editable install).
TIPC_CHECKOUT = Path(__file__).resolve().parents[2]


def resolve_config(arg: str, *search_roots: Path) -> Path:
    """``--config`` as given if that path exists, else relative to ``<root>/test_configs/`` or
    ``<root>/test_tipc/configs/`` (a PaddleOCR checkout's own) of the first search root that has it
    (the fronts pass the current directory, then tipc's checkout).

    Anything that exists is returned as is (a directory, a FIFO): ``load_config`` then names the problem.
    A symlink loop is named as such; each place tried is listed once (an absolute ``arg`` is one place).
    """
    below = (Path(root) / sub / arg for root in search_roots for sub in (CONFIG_DIR, TARGET_CONFIG_DIR))
    tried = tuple(dict.fromkeys((Path(arg), *below)))
    for path in tried:
        if stat_path(path) is not None:
            return path
    raise ConfigError(arg, 0, "config not found: tried " + " and ".join(f"'{p}'" for p in tried))


def declared_repo(config_path: Path) -> Path | None:
    """The target repo named by ``target.yaml`` beside the config, as an absolute path; None without one.

    ``target.yaml`` holds ``repo: <path relative to the directory of target.yaml>``.
    """
    target = Path(config_path).parent / TARGET_FILE
    if not target.is_file():
        return None
    import yaml  # only for a target.yaml: a run without one does not pay for importing it

    from tipc.config.yamldoc import NOT_YAML, load_yaml

    shown = str(target)
    data = read_bounded(target, f"a {TARGET_FILE} file holding 'repo: <path>'")
    try:
        root = load_yaml(data.decode("utf-8"), shown)[0]
    except UnicodeDecodeError as exc:
        raise ConfigError(shown, 0, f"cannot read it as YAML: expected 'repo: <path>' ({exc})") from None
    except ConfigError as exc:
        problem = exc.message.removeprefix(NOT_YAML)
        raise ConfigError(shown, exc.line, f"cannot read it as YAML: expected 'repo: <path>' ({problem})") from None
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(shown, _node_line(root), "expected a mapping with 'repo: <path>'")
    for key, value in root.value:
        if key.value != "repo":
            continue
        if not isinstance(value, yaml.ScalarNode) or not value.value:
            raise ConfigError(shown, _node_line(value), "expected 'repo: <path>', found an empty or non-text value")
        repo: Path = (target.parent / value.value).resolve()  # yaml's stubs type node values as Any
        if not repo.is_dir():
            message = f"repo '{excerpt(value.value)}' is not a directory (resolved: {repo})"
            raise ConfigError(shown, _node_line(value), message)
        return repo
    raise ConfigError(shown, _node_line(root), "no 'repo' key: expected 'repo: <path relative to this file>'")


def find_configs(root: Path) -> tuple[Path, ...]:
    """Every ``*.txt`` below a ``test_configs`` directory under ``root`` (or ``root`` itself), sorted.

    Hidden directories (``.venv``, ``.git`` ...) are not searched.
    """
    root = Path(root)
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [name for name in subdirs if not name.startswith(".")]
        inside = CONFIG_DIR in Path(directory).relative_to(root).parts or root.name == CONFIG_DIR
        found.extend(Path(directory) / name for name in files if inside and name.endswith(".txt"))
    return tuple(sorted(found))


def target_configs(checkout: Path) -> tuple[Path, ...]:
    """Every ``train_*.txt`` config of a PaddleOCR-style checkout (below its ``test_tipc/configs/``),
    sorted: the configs its train and PTQ harness scripts run. ``model_*.txt`` files belong to the
    inference-only scripts and are left out; a checkout without that folder has none."""
    base = Path(checkout) / TARGET_CONFIG_DIR
    if not base.is_dir():
        return ()
    return tuple(sorted(path for path in base.rglob("train_*.txt") if path.is_file()))


def _node_line(node: yaml.Node | None) -> int:
    return node.start_mark.line + 1 if node is not None else 0
