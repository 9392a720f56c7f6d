"""A real two-node Slurm cluster on this machine, for the nightly recipes' end-to-end tests.

Debian's ``slurm-wlm`` and ``munge``: one ``munged`` with its own key and socket, one
``slurmctld``, and two ``slurmd`` whose node names are the addresses 127.0.0.2 and 127.0.0.3, each
on its own port; no cgroups (``proctrack/linuxproc``, ``task/none``). Every daemon runs in the
foreground as a child of the test, and is stopped by its pid.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")
NODES = ("127.0.0.2", "127.0.0.3")


def missing() -> str:
    """Why no cluster can start here ("" when one can)."""
    absent = [d for d in DAEMONS if shutil.which(d) is None and not Path(f"/usr/sbin/{d}").exists()]
    if absent:
        return f"Slurm is not installed ({', '.join(absent)} not found): apt-get install slurm-wlm munge"
    if os.geteuid() != 0:
        return "the test cluster's daemons run as root (SlurmUser=root)"
    return ""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _exe(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


@dataclass
class Cluster:
    root: Path
    env: dict[str, str]
    procs: list[subprocess.Popen[bytes]]

    def run(
        self, *argv: str, cwd: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(argv), env=env or self.env, cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )

    def wait_jobs(self, *jobs: str, timeout: float = 300) -> None:
        """Until none of ``jobs`` is pending or running."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            left = self.run(_exe("squeue"), "-h", "-o", "%i", "-j", ",".join(jobs)).stdout.split()
            if not left:
                return
            time.sleep(1)
        raise TimeoutError(f"jobs {jobs} still queued after {timeout} s: {self.logs()}")

    def wait_jobs_all(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while self.run(_exe("squeue"), "-h", "-o", "%i").stdout.split():
            if time.monotonic() > end:
                raise TimeoutError("jobs still queued")
            time.sleep(1)

    def logs(self) -> str:
        return "".join(f"\n--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """Cancel every job (a job's slurmstepd outlives its slurmd), then stop the daemons."""
        if self.procs and self.procs[-1].poll() is None:
            self.run(_exe("scancel"), "--user=root")
            with contextlib.suppress(TimeoutError):
                self.wait_jobs_all(20)
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def start(root: Path) -> Iterator[Cluster]:
    """Start the cluster under ``root``; stop every daemon when the generator is closed."""
    root.mkdir(parents=True, exist_ok=True)
    munge = root / "munge"
    munge.mkdir(mode=0o711)
    os.chmod(munge, 0o711)  # o+x: clients reach the socket inside
    key = munge / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    sock = munge / "munge.socket"
    ports = [_port() for _ in range(3)]
    conf = root / "slurm.conf"
    conf.write_text(
        "\n".join(
            [
                "ClusterName=tipctest",
                "SlurmctldHost=localhost(127.0.0.1)",
                f"SlurmctldPort={ports[0]}",
                "AuthType=auth/munge",
                "CredType=cred/munge",
                f"AuthInfo=socket={sock}",
                "SlurmUser=root",
                "SlurmdUser=root",
                f"StateSaveLocation={root}/state",
                f"SlurmdSpoolDir={root}/spool-%n",
                f"SlurmctldPidFile={root}/slurmctld.pid",
                f"SlurmdPidFile={root}/slurmd-%n.pid",
                f"SlurmctldLogFile={root}/slurmctld.log",
                f"SlurmdLogFile={root}/slurmd-%n.log",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "SchedulerType=sched/backfill",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_CPU",
                "MpiDefault=none",
                "ReturnToService=2",
                "SlurmdTimeout=60",
                "InactiveLimit=0",
                "KillWait=5",
                *(
                    f"NodeName={ip} NodeAddr={ip} Port={port} CPUs=2 RealMemory=1000 State=UNKNOWN"
                    for ip, port in zip(NODES, ports[1:], strict=True)
                ),
                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE",
                "",
            ]
        )
    )
    (root / "state").mkdir()
    env = {**os.environ, "SLURM_CONF": str(conf)}
    cluster = Cluster(root, env, [])
    try:
        cluster.procs.append(
            subprocess.Popen(
                [
                    _exe("munged"),
                    "-F",
                    f"--socket={sock}",
                    f"--key-file={key}",
                    f"--pid-file={munge}/munged.pid",
                    f"--log-file={root}/munged.log",
                    f"--seed-file={munge}/munged.seed",
                    "--force",
                ],
                env=env,
            )
        )
        for _ in range(50):
            if sock.exists():
                break
            time.sleep(0.1)
        cluster.procs.append(subprocess.Popen([_exe("slurmctld"), "-D", "-i", "-f", str(conf)], env=env))
        for ip in NODES:
            (root / f"spool-{ip}").mkdir()
            cluster.procs.append(subprocess.Popen([_exe("slurmd"), "-D", "-N", ip, "-f", str(conf)], env=env))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = cluster.run(_exe("sinfo"), "-h", "-N", "-o", "%N %t").stdout.split("\n")
            if sum(1 for line in states if line.split()[-1:] == ["idle"]) == len(NODES):
                break
            time.sleep(1)
        else:
            raise RuntimeError(f"the nodes never came up: {states}{cluster.logs()}")
        yield cluster
    finally:
        cluster.stop()
