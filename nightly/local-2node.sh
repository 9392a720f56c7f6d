#!/usr/bin/env bash
# Two tipc nodes on this machine (127.0.0.2 and 127.0.0.3, each with --host),
# waited for, then merged into one results directory and reported (TIPC_REPORTS,
# default reports/ under TIPC_HOME). For CI tests and `make nightly-local`.
#
#   TIPC_CONFIG=<config> TIPC_MODE=<mode> TIPC_RESULTS=<mode dir> nightly/local-2node.sh [extra pytest args]
#
# e.g. the reference target's fleet config:
#   TIPC_CONFIG=tinyrec/train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt \
#   TIPC_MODE=lite_train_lite_infer \
#   TIPC_RESULTS=examples/tinyrec/test_tipc/output/tinyrec/lite_train_lite_infer nightly/local-2node.sh
#
# TIPC_RESULTS is the <repo>/test_tipc/output/<model>/<mode> directory both nodes
# write into (node0/ and node1/); each node's console goes to node<rank>.console.log
# there. TIPC_RUN_GROUP names the job (default: local-<time>-<pid>). TIPC_PYTEST replaces the node command (default: <python> -m pytest).
# The data is made once first (both nodes share this machine's repo) with
# `tipc prepare`; TIPC_PREPARE=0 skips that. The venv's bin/ goes first on PATH,
# so a config's `python:python3` finds the interpreter that has paddle.
set -euo pipefail

: "${TIPC_CONFIG:?set TIPC_CONFIG to the config, as pytest tipc --config takes it}"
: "${TIPC_MODE:?set TIPC_MODE, e.g. lite_train_lite_infer}"
: "${TIPC_RESULTS:?set TIPC_RESULTS to the <mode> results directory the nodes write}"
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHON=${TIPC_PYTHON:-$TIPC_HOME/.venv/bin/python}
read -r -a NODE_CMD <<<"${TIPC_PYTEST:-$PYTHON -m pytest}"
START_PORT=${TIPC_START_PORT:-${FLAGS_START_PORT:-17000}}
IPS=127.0.0.2,127.0.0.3
# One id for both nodes of this job: the merge joins only its parts (never an earlier job's node<k>/).
TIPC_RUN_GROUP=${TIPC_RUN_GROUP:-local-$(date -u +%Y%m%dT%H%M%SZ)-$$}
export TIPC_RUN_GROUP

cd "$TIPC_HOME"
mkdir -p "$TIPC_RESULTS"
PATH="$(dirname "$PYTHON"):$PATH"
export PATH

if [ "${TIPC_PREPARE:-1}" != 0 ]; then
    "$PYTHON" -m tipc prepare --config "$TIPC_CONFIG" --mode "$TIPC_MODE"
fi

pids=()
stop_nodes() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap 'stop_nodes; exit 130' INT TERM

for rank in 0 1; do
    host=127.0.0.$((rank + 2))
    "${NODE_CMD[@]}" tipc --config="$TIPC_CONFIG" --mode "$TIPC_MODE" \
        --tipc-ips "$IPS" --tipc-host "$host" --tipc-start-port "$START_PORT" --tipc-device auto "$@" \
        >"$TIPC_RESULTS/node$rank.console.log" 2>&1 &
    pids+=("$!")
done

status=0
for rank in 0 1; do
    rc=0
    wait "${pids[$rank]}" || rc=$?
    echo "node $rank (127.0.0.$((rank + 2))) exited with $rc; console: $TIPC_RESULTS/node$rank.console.log"
    if [ "$status" -eq 0 ]; then status=$rc; fi
done
trap - INT TERM

rc=0
"$PYTHON" -m tipc merge "$TIPC_RESULTS" --run-group "$TIPC_RUN_GROUP" || rc=$?
# An incomplete job (exit 1: a node did not report, named) is still reported.
if [ "$rc" -le 1 ]; then "$PYTHON" -m tipc report "$TIPC_RESULTS" --out "${TIPC_REPORTS:-reports}" || rc=$?; fi
if [ "$status" -eq 0 ]; then status=$rc; fi
exit "$status"
