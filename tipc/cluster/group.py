"""The run group: which night a shard or a node belongs to.

Every shard of one split matrix and every node of one multi-node job carry the same group id
(``run.json``'s ``run_group``); ``tipc merge`` joins only the parts of one group, so a folder
another night left is never taken for tonight's. The id comes from the scheduler that started
the parts together, or is given (``--run-group``; needed to re-run one shard of an earlier night,
and where no scheduler says):

| precedence | source | id |
|---|---|---|
| 1 | ``--run-group ID`` (or ``TIPC_RUN_GROUP``) | ``ID`` |
| 2 | Slurm: ``SLURM_ARRAY_JOB_ID`` (an array's tasks), else ``SLURM_JOB_ID`` | ``slurm-<id>`` |
| 3 | GitHub Actions: ``GITHUB_RUN_ID`` | ``github-<id>`` |
| 4 | GitLab CI: ``CI_PIPELINE_ID`` | ``gitlab-<id>`` |

A GitHub run's attempts share the group: "re-run failed jobs" starts only the failed shards
again, and the merge of that attempt joins them with the shards that passed in the first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
SOURCES = (  # (variable, prefix), in precedence order
    ("TIPC_RUN_GROUP", ""),
    ("SLURM_ARRAY_JOB_ID", "slurm-"),
    ("SLURM_JOB_ID", "slurm-"),
    ("GITHUB_RUN_ID", "github-"),
    ("CI_PIPELINE_ID", "gitlab-"),
)


def parse_group(text: str) -> str:
    """A group id as given; ``ValueError`` with the expected form (it names a folder)."""
    if not _ID.fullmatch(text):
        raise ValueError(
            f"{text!r}: expected an id of letters, digits, '.', '_' or '-' (at most 100, not starting "
            "with '.', '_' or '-'), e.g. slurm-41872 or nightly-2026-12-01"
        )
    return text


def run_group(given: str | None, env: Mapping[str, str]) -> tuple[str, str]:
    """(group id, where it came from); ("", "") when nothing says. ``ValueError`` for a bad id."""
    if given:
        return parse_group(given), "--run-group"
    for name, prefix in SOURCES:
        value = env.get(name, "").strip()
        if value:
            return parse_group(prefix + value), name
    return "", ""
