"""Directory, log and id names (§4.3), spelled as the bash spelled them where it was consistent."""

from __future__ import annotations

from tipc.plan.model import InferCase, StageKind, Topology


def output_dir(output_root: str, model: str, mode: str, node_rank: int | None = None) -> str:
    """LOG_PATH; each node of a multi-node run gets its own sub-directory."""
    base = f"{output_root.rstrip('/') or '.'}/{model}/{mode}"
    return base if node_rank is None else f"{base}/node{node_rank}"


def chain_stem(trainer: str, topology: Topology, autocast: str) -> str:
    return f"{trainer}_gpus_{topology.gpu_label}_autocast_{autocast}"


def save_dir(log_path: str, trainer: str, topology: Topology, autocast: str) -> str:
    """S: the bash added ``_nodes_<N>`` only on multi-node entries."""
    stem = f"{log_path}/{chain_stem(trainer, topology, autocast)}"
    return f"{stem}_nodes_{topology.nodes}" if topology.kind == "multi_node" else stem


def stage_log(log_path: str, trainer: str, topology: Topology, autocast: str, stage: str) -> str:
    """``<trainer>_gpus_<gpu>_autocast_<ac>_nodes_<N>_<stage>.log``: eval/export always carry ``_nodes_``."""
    return f"{log_path}/{chain_stem(trainer, topology, autocast)}_nodes_{topology.nodes}_{stage}.log"


def whole_infer_export_log(log_path: str, index: int) -> str:
    # Inside the mode dir (the bash dropped a `/` and wrote a sibling of it, B13).
    return f"{log_path}/whole_infer_export_{index}.log"


def launch_log_dir(save: str) -> str:
    return f"{save}_launch_log"


def infer_log(log_path: str, gpu_label: str, case: InferCase, prefix: str = "") -> str:
    if case.device == "cpu":
        name = (f"python_infer_cpu_gpus_{gpu_label}_usemkldnn_{case.enable_mkldnn}_threads_{case.cpu_threads}"
                f"_precision_{case.precision}_batchsize_{case.batch_size}.log")
    else:
        name = (f"python_infer_gpu_gpus_{gpu_label}_usetrt_{case.use_tensorrt}"
                f"_precision_{case.precision}_batchsize_{case.batch_size}.log")
    return f"{log_path}/{prefix}{name}"


def train_chain_id(trainer: str, topology: Topology, autocast: str) -> str:
    base = f"{trainer}-gpus_{topology.gpu_label}-{autocast}"
    return f"{base}-nodes_{topology.nodes}" if topology.kind == "multi_node" else base


def train_infer_prefix(trainer: str, topology: Topology, autocast: str) -> str:
    """What tells apart infer logs of chains that share a gpu entry (the bash overwrote them, B12)."""
    nodes = f"nodes_{topology.nodes}_" if topology.kind == "multi_node" else ""
    return f"{trainer}_autocast_{autocast}_{nodes}"


def whole_infer_chain_id(index: int) -> str:
    return f"infer_model_{index}"


def stage_id(chain: str, name: str) -> str:
    return f"{chain}::{name}"


def infer_stage_name(case: InferCase) -> str:
    return f"infer[{case.label}]"


def kind_of(name: str) -> StageKind | None:
    """The kind a stage name stands for (``train``, ``infer[...]``), also for a dropped one."""
    return next((kind for kind in StageKind if name.startswith(kind.value)), None)
