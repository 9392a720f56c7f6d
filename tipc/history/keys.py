"""What identifies a config across runs: its suite and its path inside the suite, never where it was
checked out.

``/builds/r1/PaddleOCR/test_tipc/configs/PP-OCRv3_mobile_rec/train_infer_python.txt`` is
``paddleocr:configs/PP-OCRv3_mobile_rec/train_infer_python.txt`` in every checkout: another CI
runner's build folder, a Slurm node's scratch, a checkout moved or renamed. The suite is the dialect
that reads the config (``tipc.suites``: told by the checkout's own folders, not by its name); the path
is below the suite's ``test_tipc/`` folder (tipc's own copies, ``test_configs/<model>/<file>``, stand
for ``configs/<model>/<file>``). With the mode, the chain and stage (a stage id) and the figure, it
names every series and summary of the history store.

Stores written before keys named the suite kept a config's last two path parts
(``PP-OCRv3_mobile_rec/train_infer_python.txt``, ``legacy_key``); the store adopts those rows under the
new key when a run first records the config (``tipc.history.store``).
"""

from __future__ import annotations

import functools
from pathlib import Path, PurePath

# The folder a config's path inside its suite starts below, and what that path begins with: a suite's
# test_tipc/, then tipc's own copies (test_configs/<model>/<file>), then any configs/ folder.
ROOTS = (("test_tipc", ()), ("test_configs", ("configs",)), ("configs", ("configs",)))


def config_key(config: str) -> str:
    """``suite:path inside the suite`` of a config's path; a key is its own key."""
    if is_key(config):
        return config
    return f"{suite_of(str(Path(config).parent))}:{path_in_suite(config)}"


def is_key(text: str) -> bool:
    """A config key (``paddleocr:configs/…``) rather than a path: nothing before its first colon is a folder."""
    suite, colon, _ = text.partition(":")
    return bool(suite and colon and "/" not in suite)


def path_in_suite(config: str) -> str:
    """The config's path below its suite's ``test_tipc/`` folder (the last one on the path); a config
    kept elsewhere is named from its ``configs/`` folder, else by its last two parts."""
    parts = PurePath(config).parts
    for marker, prefix in ROOTS:
        if marker in parts[:-1]:
            below = parts[len(parts) - parts[::-1].index(marker) :]
            return "/".join((*prefix, *below))
    return short_name(config)


def short_name(config: str) -> str:
    """What people call a config (a key's or a path's last two parts):
    ``PP-OCRv3_mobile_rec/train_infer_python.txt``."""
    return "/".join(PurePath(config.partition(":")[2] if is_key(config) else config).parts[-2:])


legacy_key = short_name  # what stores before suite keys named a config by


def same_config(one: str, other: str) -> bool:
    """Whether two configs (keys or paths) are one: by their keys, or, where one is named the way older
    files named it, by their last two path parts."""
    if is_key(one) and is_key(other):
        return one == other
    return legacy_key(one) == legacy_key(other)


@functools.lru_cache(maxsize=1024)
def suite_of(folder: str) -> str:
    """The name of the dialect that reads the configs of ``folder`` (detected from its checkout's folders);
    asked once per folder."""
    from tipc.suites.front import dialect_for  # the plugins' dialects: loaded by whoever asks first

    return dialect_for(Path(folder))[0].name
