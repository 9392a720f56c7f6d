"""Directory, log and id names (docs/spec.md §4.3), spelled as the bash spelled them where it was consistent.

Every path tipc derives from config values (the output folder, save dirs, stage and infer logs) stays
inside the output root, by construction rather than by refusal: the bash runs a ``model_name`` of
``a/b``, and a refused config helps no one when a name can be made safe. A config value that becomes
part of a name (``model_name``, trainer names, autocast values, the infer sweep's values, the gpu
label) is escaped by the write door (``tipc.files.write``: ``name_part``, ``component``), so that it
cannot add or climb a directory level and two distinct values never share a name; ordinary values
are spelled exactly as the bash spelled them, so legacy names are byte-identical. Paths the config
names itself (ymls, image dirs, whole_infer's model dirs, ``train_model_name`` and ``inference_dir``
inside the save dir) are the target's to read or write and are passed on as written; tipc creates
nothing there, and those inside the save dir (``within``) must stay inside it.
"""

from __future__ import annotations

import posixpath

from tipc.config.bounds import excerpt
from tipc.errors import ConfigError
from tipc.files.write import NAME_BYTES, component, name_part
from tipc.plan.model import InferCase, StageKind, Topology


def output_dir(output_root: str, model: str, mode: str, node_rank: int | None = None) -> str:
    """LOG_PATH; each node of a multi-node run gets its own sub-directory."""
    base = f"{output_root.rstrip('/') or '.'}/{component(name_part(model))}/{mode}"
    return base if node_rank is None else f"{base}/node{node_rank}"


def chain_stem(trainer: str, topology: Topology, autocast: str) -> str:
    return name_part(f"{trainer}_gpus_{topology.gpu_label}_autocast_{autocast}")


def within(folder: str, relative: str, path: str, line: int, role: str) -> str:
    """``folder/relative`` for a path a config names inside a folder tipc made (``train_model_name`` and
    ``inference_dir`` in the save dir): one that is absolute or climbs out of the folder is a ``ConfigError`` at
    ``path:line``, since tipc would expect (and the stages write or read) outside the output root; so is a name
    longer than a file system takes."""
    inside = posixpath.normpath(relative)
    if inside.startswith(("/", "../")) or inside == "..":
        raise ConfigError(
            path, line, f"{role} '{excerpt(relative)}' leads out of the save folder: expected a path inside it"
        )
    if any(len(name.encode("utf-8", "surrogatepass")) > NAME_BYTES for name in inside.split("/")):
        raise ConfigError(
            path, line, f"{role} '{excerpt(relative)}' has a name over {NAME_BYTES} bytes: expected shorter names"
        )
    return f"{folder}/{relative}"


def save_dir(log_path: str, trainer: str, topology: Topology, autocast: str) -> str:
    """S: the bash added ``_nodes_<N>`` only on multi-node entries."""
    stem = chain_stem(trainer, topology, autocast)
    name = f"{stem}_nodes_{topology.nodes}" if topology.kind == "multi_node" else stem
    return f"{log_path}/{component(name)}"


def stage_log(log_path: str, trainer: str, topology: Topology, autocast: str, stage: str) -> str:
    """``<trainer>_gpus_<gpu>_autocast_<ac>_nodes_<N>_<stage>.log``: eval/export always carry ``_nodes_``."""
    name = f"{chain_stem(trainer, topology, autocast)}_nodes_{topology.nodes}_{stage}"
    return f"{log_path}/{component(name, '.log')}"


def whole_infer_export_log(log_path: str, index: int) -> str:
    # Inside the mode dir (the bash dropped a `/` and wrote a sibling of it, B13).
    return f"{log_path}/whole_infer_export_{index}.log"


def launch_log_dir(save: str) -> str:
    return f"{save}_launch_log"


def infer_log(log_path: str, gpu_label: str | None, case: InferCase, prefix: str = "") -> str:
    """``prefix`` is a name already (``train_infer_prefix``); the text around the values holds no ``%`` or
    ``/``, so escaping the whole name escapes each value. ``gpu_label`` None: the PTQ script's names,
    which have no ``gpus_<label>`` segment."""
    gpus = "" if gpu_label is None else f"gpus_{gpu_label}_"
    if case.device == "cpu":
        name = (
            f"python_infer_cpu_{gpus}usemkldnn_{case.enable_mkldnn}_threads_{case.cpu_threads}"
            f"_precision_{case.precision}_batchsize_{case.batch_size}"
        )
    else:
        name = (
            f"python_infer_gpu_{gpus}usetrt_{case.use_tensorrt}_precision_{case.precision}_batchsize_{case.batch_size}"
        )
    return f"{log_path}/{component(prefix + name_part(name), '.log')}"


def train_chain_id(trainer: str, topology: Topology, autocast: str) -> str:
    base = f"{trainer}-gpus_{topology.gpu_label}-{autocast}"
    return f"{base}-nodes_{topology.nodes}" if topology.kind == "multi_node" else base


def train_infer_prefix(trainer: str, topology: Topology, autocast: str) -> str:
    """What tells apart infer logs of chains that share a gpu entry (the bash overwrote them, B12)."""
    nodes = f"nodes_{topology.nodes}_" if topology.kind == "multi_node" else ""
    return name_part(f"{trainer}_autocast_{autocast}_{nodes}")


def whole_infer_chain_id(index: int) -> str:
    return f"infer_model_{index}"


def stage_id(chain: str, name: str) -> str:
    return f"{chain}::{name}"


def infer_stage_name(case: InferCase) -> str:
    return f"infer[{case.label}]"


def kind_of(name: str) -> StageKind | None:
    """The kind a stage name stands for (``train``, ``infer[...]``), also for a dropped one."""
    return next((kind for kind in _KINDS if name.startswith(kind.value)), None)


_KINDS = tuple(StageKind)  # iterating an Enum is slow, and a zoo's every dropped stage asks


def golden_log(log_path: str, chain_id: str) -> str:
    """``golden_<chain id>.log``: a golden check's findings (a name the bash never wrote)."""
    return f"{log_path}/{component('golden_' + name_part(chain_id), '.log')}"
