#!/usr/bin/env bash
# Submit a nightly to Slurm, from anywhere: `shards` (the matrix split over an array of one-node
# tasks, then the merge as a job of its own that waits for the whole array) or `nodes` (one job on
# TIPC_NODES nodes running the same config on each, merged on its batch host).
#
#   TIPC_CONFIGS=<file> TIPC_MODE=<mode> TIPC_OUTPUT=<repo>/test_tipc/output \
#       nightly/submit-slurm.sh shards [sbatch options] [-- pytest tipc arguments]
#   TIPC_CONFIG=<config> TIPC_MODE=<mode> TIPC_RESULTS=<repo>/test_tipc/output/<model>/<mode> \
#       nightly/submit-slurm.sh nodes [sbatch options] [-- pytest tipc arguments]
#
# sbatch options (--partition, --account, --qos, …; sbatch's own SBATCH_* variables work too) go to
# every job this submits, the merge job included. What each task asks for is a parameter:
#   TIPC_SHARDS          array size (default 8; shards only)
#   TIPC_GPUS_PER_TASK   GPUs per shard task / per node (--gres=gpu:N; default: none asked)
#   TIPC_CPUS_PER_TASK   CPUs per task (--cpus-per-task)
#   TIPC_MEM             memory per task / node (--mem, e.g. 64G)
#   TIPC_TIME            time limit per task / of the job (default 06:00:00); TIPC_MERGE_TIME the merge's (01:00:00)
#   TIPC_NODES           nodes of a `nodes` job (default 2)
#   TIPC_FAIL_ON         e.g. regression: the merge job (its report) fails a night whose figures regressed
# Re-run one shard of an earlier night with that night's split (docs/nightly.md), then merge it again:
#   TIPC_RUN_GROUP=slurm-<that array job id> TIPC_SHARDS=<that night's count> \
#       nightly/submit-slurm.sh shards --array=3
set -euo pipefail

kind=${1:?usage: nightly/submit-slurm.sh shards|nodes [sbatch options] [-- pytest tipc arguments]}
shift
TIPC_HOME=${TIPC_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
export TIPC_HOME
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    sbatch_opts+=("$1")
    shift
done
[ $# -gt 0 ] && shift  # the --
resources=(--time="${TIPC_TIME:-06:00:00}")
if [ -n "${TIPC_GPUS_PER_TASK:-}" ]; then resources+=(--gres="gpu:$TIPC_GPUS_PER_TASK"); fi
if [ -n "${TIPC_CPUS_PER_TASK:-}" ]; then resources+=(--cpus-per-task="$TIPC_CPUS_PER_TASK"); fi
if [ -n "${TIPC_MEM:-}" ]; then resources+=(--mem="$TIPC_MEM"); fi

case "$kind" in
shards)
    : "${TIPC_CONFIGS:?set TIPC_CONFIGS to a file listing the configs, one per line}"
    : "${TIPC_MODE:?set TIPC_MODE, e.g. lite_train_lite_infer}"
    : "${TIPC_OUTPUT:?set TIPC_OUTPUT to the <repo>/test_tipc/output directory the tasks write}"
    TIPC_CONFIGS=$(realpath "$TIPC_CONFIGS")
    TIPC_OUTPUT=$(realpath -m "$TIPC_OUTPUT")
    TIPC_REPORTS=$(realpath -m "${TIPC_REPORTS:-reports}")
    export TIPC_CONFIGS TIPC_MODE TIPC_OUTPUT TIPC_REPORTS
    array=(--array="1-${TIPC_SHARDS:-8}")
    # The caller's array (a re-run's, or one with a %limit) wins for the tasks; the merge job gets
    # every other option, never the array's: it must run once, not once per task.
    merge_opts=()
    skip_next=0
    for opt in "${sbatch_opts[@]}"; do
        if [ "$skip_next" = 1 ]; then skip_next=0; continue; fi
        case "$opt" in
        --array=* | -a?*) array=() ;;
        --array | -a) array=(); skip_next=1 ;;
        *) merge_opts+=("$opt") ;;
        esac
    done
    job=$(sbatch --parsable --export=ALL "${array[@]}" "${resources[@]}" "${sbatch_opts[@]}" \
        "$TIPC_HOME/nightly/shards.sbatch" "$@")
    job=${job%%;*}
    # The night is the array's, unless a re-run names an earlier one.
    TIPC_RUN_GROUP=${TIPC_RUN_GROUP:-slurm-$job}
    export TIPC_RUN_GROUP
    merge=$(sbatch --parsable --export=ALL --dependency="afterany:$job" --time="${TIPC_MERGE_TIME:-01:00:00}" \
        "${merge_opts[@]}" "$TIPC_HOME/nightly/merge-shards.sbatch")
    echo "submit-slurm: array job $job (run group $TIPC_RUN_GROUP), merge job ${merge%%;*} after it"
    ;;
nodes)
    : "${TIPC_CONFIG:?set TIPC_CONFIG to the config, as pytest tipc --config takes it}"
    : "${TIPC_MODE:?set TIPC_MODE, e.g. lite_train_lite_infer}"
    : "${TIPC_RESULTS:?set TIPC_RESULTS to the <mode> results directory the nodes write}"
    TIPC_RESULTS=$(realpath -m "$TIPC_RESULTS")
    TIPC_REPORTS=$(realpath -m "${TIPC_REPORTS:-reports}")
    export TIPC_CONFIG TIPC_MODE TIPC_RESULTS TIPC_REPORTS
    job=$(sbatch --parsable --export=ALL --nodes="${TIPC_NODES:-2}" "${resources[@]}" "${sbatch_opts[@]}" \
        "$TIPC_HOME/nightly/slurm.sbatch" "$@")
    echo "submit-slurm: job ${job%%;*} (run group slurm-${job%%;*})"
    ;;
*)
    echo "submit-slurm: expected shards or nodes, got '$kind'" >&2
    exit 2
    ;;
esac
