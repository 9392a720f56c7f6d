import pytest

from tipc.cluster.node import ClusterArgs, NodeContext, resolve_node, to_plan_kwargs
from tipc.errors import ClusterError

LOOPBACK = ("127.0.0.0/8",)


def resolve(args, env=None, config_ips=(), local=LOOPBACK, smi=False):
    return resolve_node(
        args,
        env or {},
        config_ips,
        local,
        lambda n: {"node01": "10.1.0.1"}[n],
        which=lambda n: "/bin/nvidia-smi" if smi else None,
        exists=lambda p: False,
        find_ports=lambda host, count: 17000,
    )


CPU_AUTO = "--device auto: no CUDA device: no nvidia-smi on PATH and no /dev/nvidia0"


@pytest.mark.parametrize(
    "args, env, config_ips, expected",
    [
        (
            ClusterArgs(),
            {},
            (),
            NodeContext(
                ips=(),
                host=None,
                node_rank=None,
                start_port=None,
                device="cpu",
                device_reason=CPU_AUTO,
                topology_source="none",
            ),
        ),
        (
            ClusterArgs(device="gpu"),
            {"FLAGS_START_PORT": "17200"},
            (),
            NodeContext(
                ips=(),
                host=None,
                node_rank=None,
                start_port=17200,
                device="gpu",
                device_reason="--device gpu",
                topology_source="none",
                port_source="FLAGS_START_PORT",
            ),
        ),
        (
            ClusterArgs(ips=("127.0.0.2", "127.0.0.3"), host="127.0.0.3", port_count=2),
            {},
            (),
            NodeContext(
                ips=("127.0.0.2", "127.0.0.3"),
                host="127.0.0.3",
                node_rank=1,
                start_port=17001,
                device="cpu",
                device_reason=CPU_AUTO,
                rendezvous_port=17000,
                port_count=2,
                topology_source="--ips",
                identity_source="--host",
                port_source="first free range from 17000 on 127.0.0.3",
            ),
        ),
        (
            ClusterArgs(node_rank=0, start_port=17100, rendezvous_port=16000, rendezvous_timeout=5, preflight=False),
            {},
            ("127.0.0.2", "127.0.0.3"),
            NodeContext(
                ips=("127.0.0.2", "127.0.0.3"),
                host="127.0.0.2",
                node_rank=0,
                start_port=17100,
                device="cpu",
                device_reason=CPU_AUTO,
                rendezvous_port=16000,
                rendezvous_timeout=5,
                preflight=False,
                topology_source="config gpu_list",
                identity_source="--node-rank",
                port_source="--start-port",
            ),
        ),
        (
            ClusterArgs(),
            {"PADDLE_TRAINERS": "127.0.0.2,127.0.0.3", "PADDLE_TRAINER_ID": "1", "FLAGS_START_PORT": "17300"},
            (),
            NodeContext(
                ips=("127.0.0.2", "127.0.0.3"),
                host="127.0.0.3",
                node_rank=1,
                start_port=17300,
                device="cpu",
                device_reason=CPU_AUTO,
                rendezvous_port=17299,
                topology_source="PADDLE_TRAINERS",
                identity_source="PADDLE_TRAINER_ID",
                port_source="FLAGS_START_PORT",
            ),
        ),
    ],
    ids=[
        "single-node",
        "single-node-explicit-port",
        "one-machine-two-nodes-by-host",
        "config-ips-by-rank",
        "paddlecloud-env",
    ],
)
def test_resolve_node(args, env, config_ips, expected):
    assert resolve(args, env, config_ips) == expected


def test_ambiguity_on_one_machine_names_the_flags():
    with pytest.raises(ClusterError, match=r"owns 127\.0\.0\.2 and 127\.0\.0\.3.*--host.*--node-rank"):
        resolve(ClusterArgs(ips=("127.0.0.2", "127.0.0.3")))


def test_to_plan_kwargs_fills_plan_options():
    from tipc.plan.model import PlanOptions

    ctx = resolve(ClusterArgs(ips=("127.0.0.2", "127.0.0.3"), host="127.0.0.2"))
    options = PlanOptions(mode="lite_train_lite_infer", **to_plan_kwargs(ctx))
    assert (options.ips, options.host, options.node_rank, options.start_port, options.device) == (
        ("127.0.0.2", "127.0.0.3"),
        "127.0.0.2",
        0,
        17001,
        "cpu",
    )


def test_notes_say_what_was_decided_and_why():
    ctx = resolve(ClusterArgs(), {"SLURM_JOB_NODELIST": "node01,127.0.0.3", "SLURM_NODEID": "1"}, smi=True)
    assert ctx.notes() == (
        "device gpu (--device auto: nvidia-smi found at /bin/nvidia-smi)",
        "nodes 10.1.0.1,127.0.0.3 from SLURM_JOB_NODELIST; this is node 1 (127.0.0.3) by SLURM_NODEID",
        "start port 17001 (first free range from 17000 on 127.0.0.3)",
    )
