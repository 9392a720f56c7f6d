"""The memory budget reads this process's own cgroup (a Slurm job's), v2 or v1, and those above it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.schedule.budget import available_mb, cgroup_files

GIB = 1 << 30


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize(
    ("proc", "files", "expected_gib"),
    [
        (
            "0::/system.slice/slurmstepd.scope/job_41/step_0\n",
            {
                "cgroup.controllers": "memory\n",
                "memory.max": "max\n",  # the root: no limit
                "system.slice/slurmstepd.scope/job_41/memory.max": str(4 * GIB),
                "system.slice/slurmstepd.scope/job_41/memory.current": str(GIB),
                "system.slice/slurmstepd.scope/job_41/step_0/memory.max": "max\n",
                "system.slice/slurmstepd.scope/job_41/step_0/memory.current": str(GIB),
            },
            3.0,
        ),
        (
            "4:memory:/slurm/uid_0/job_7\n3:cpuset:/\n0::/\n",
            {
                "memory/memory.limit_in_bytes": "9223372036854771712",
                "memory/memory.usage_in_bytes": str(GIB),
                "memory/slurm/uid_0/job_7/memory.limit_in_bytes": str(2 * GIB),
                "memory/slurm/uid_0/job_7/memory.usage_in_bytes": str(GIB // 2),
            },
            1.5,
        ),
        ("0::/\n", {"cgroup.controllers": "memory\n"}, 100.0),  # no limit anywhere: the machine's memory
    ],
    ids=["v2-job-above-step", "v1-job", "no-limit"],
)
def test_the_budget_is_the_jobs_own_cgroup_room(tmp_path, proc, files, expected_gib):
    root = tmp_path / "cgroup"
    tree(root, files)
    (tmp_path / "cgroup.proc").write_text(proc)
    (tmp_path / "meminfo").write_text(f"MemTotal: 1 kB\nMemAvailable: {100 * 1024 * 1024} kB\n")
    found = cgroup_files(tmp_path / "cgroup.proc", root)
    assert available_mb(tmp_path / "meminfo", found) == pytest.approx(expected_gib * 1024 * 0.9)


def test_no_cgroup_file_no_cap(tmp_path):
    assert cgroup_files(tmp_path / "absent", tmp_path) == ()
