"""``python -m paddle.distributed.launch`` for the stand-in target: one worker process per device.

The options tipc's plans pass (``--gpus=0,1`` or ``--devices``, ``--nproc_per_node=N``,
``--log_dir``, ``--ips`` of one node, ``--master``, ``--job_id``), read as paddle's launcher reads
them; anything else is refused by name. Each worker gets the variables paddle's collective launcher
sets (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``, ``PADDLE_RANK_IN_NODE``,
``PADDLE_LOCAL_DEVICE_IDS``, ``PADDLE_TRAINER_ENDPOINTS``, ``PADDLE_CURRENT_ENDPOINT``,
``PADDLE_MASTER``, ``FLAGS_selected_gpus``) and torch's (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``MASTER_ADDR``, ``MASTER_PORT``). A GPU worker sees only its own device
(``CUDA_VISIBLE_DEVICES=<its id>``); the ids must be among the launcher's own
``CUDA_VISIBLE_DEVICES`` when that lists ids. Worker i writes ``<log_dir>/workerlog.<i>`` (appended);
rank 0's output is echoed. When a worker fails the others are stopped, the launcher prints
``rank <i> status failed … code <rc> log <file>`` as paddle's does, and exits 1.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.2


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog="python -m paddle.distributed.launch", allow_abbrev=False)
    parser.add_argument("--gpus", "--devices", dest="gpus", default=None)
    parser.add_argument("--nproc_per_node", type=int, default=None)
    parser.add_argument("--log_dir", default="log")
    parser.add_argument("--ips", default="127.0.0.1")
    parser.add_argument("--master", default=None)
    parser.add_argument("--job_id", default="default")
    parser.add_argument("script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if len([ip for ip in args.ips.split(",") if ip.strip()]) > 1:
        parser.error(f"--ips {args.ips}: the stand-in launcher runs one node only")
    return args, [args.script, *args.script_args]


def devices(args: argparse.Namespace, environ: dict[str, str]) -> list[str | None]:
    """One entry per worker: its GPU id, or None for a CPU worker (``--nproc_per_node`` alone)."""
    if args.gpus:
        ids = [i.strip() for i in args.gpus.split(",")]
        visible = environ.get("CUDA_VISIBLE_DEVICES", "")
        allowed = [v.strip() for v in visible.split(",") if v.strip()]
        outside = [i for i in ids if allowed and i not in allowed]
        if outside:
            sys.exit(f"launch: --gpus {args.gpus}: {','.join(outside)} not in CUDA_VISIBLE_DEVICES={visible}")
        return list(ids)
    return [None] * max(1, args.nproc_per_node or 1)


def free_ports(count: int) -> list[int]:
    start = int(os.environ.get("FLAGS_START_PORT", "0") or 0)
    if start:
        return list(range(start, start + count))
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def worker_env(environ: dict[str, str], rank: int, ids: list[str | None], ports: list[int]) -> dict[str, str]:
    endpoints = [f"127.0.0.1:{p}" for p in ports]
    env = dict(environ)
    env.update(
        PADDLE_TRAINER_ID=str(rank),
        PADDLE_TRAINERS_NUM=str(len(ids)),
        PADDLE_RANK_IN_NODE=str(rank),
        PADDLE_TRAINER_ENDPOINTS=",".join(endpoints),
        PADDLE_CURRENT_ENDPOINT=endpoints[rank],
        PADDLE_MASTER=endpoints[0],
        RANK=str(rank),
        LOCAL_RANK=str(rank),
        WORLD_SIZE=str(len(ids)),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(ports[0]),
    )
    device = ids[rank]
    if device is not None:
        env.update(CUDA_VISIBLE_DEVICES=device, FLAGS_selected_gpus=device, PADDLE_LOCAL_DEVICE_IDS=",".join(ids))
    return env


def main(argv: list[str]) -> int:
    args, command = parse(argv)
    ids = devices(args, dict(os.environ))
    ports = free_ports(len(ids))
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    logs = [log_dir / f"workerlog.{rank}" for rank in range(len(ids))]
    echo_from = logs[0].stat().st_size if logs[0].exists() else 0
    workers = []
    for rank in range(len(ids)):
        with logs[rank].open("ab") as out:
            env = worker_env(dict(os.environ), rank, ids, ports)
            workers.append(
                subprocess.Popen([sys.executable, "-u", *command], stdout=out, stderr=subprocess.STDOUT, env=env)
            )
    print(f"LAUNCH INFO: {len(ids)} workers on {ids}, logs in {log_dir}", flush=True)

    def stop(*_):
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in workers:
            worker.wait()

    signal.signal(signal.SIGTERM, lambda *_: (stop(), sys.exit(143)))
    failed: list[int] = []
    with logs[0].open("rb") as rank0:
        rank0.seek(echo_from)
        while True:
            sys.stdout.buffer.write(rank0.read())
            sys.stdout.flush()
            failed = [r for r, w in enumerate(workers) if w.poll() not in (None, 0)]
            if failed or all(w.poll() == 0 for w in workers):
                break
            time.sleep(POLL_S)
        stop()
        sys.stdout.buffer.write(rank0.read())
    for rank in failed:
        print(f"LAUNCH ERROR: rank {rank} status failed cmd {command} code {workers[rank].returncode} log {logs[rank]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
