import json

from tests.support.plan_factory import make_plan
from tipc.plan import plan_to_json, plan_to_text


def test_json_shape():
    plan = make_plan(gpu_list="gpu_list:0", infer_use_gpu="--use_gpu:False")
    data = plan_to_json(plan)
    assert json.loads(json.dumps(data)) == data
    assert [data[k] for k in ("model", "mode", "python", "cwd")] == ["rec", "lite_train_lite_infer", "py", "."]
    assert [s["id"] for s in data["stages"]] == [
        "norm_train-gpus_0-fp32::train",
        "norm_train-gpus_0-fp32::export",
        "norm_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]",
    ]
    train, export, infer = data["stages"]
    assert {"id", "kind", "argv", "env", "cwd", "log", "requires"} <= set(train)
    assert (train["kind"], train["env"], train["requires"]) == ("train", {"CUDA_VISIBLE_DEVICES": "0"}, [])
    assert export["requires"] == ["norm_train-gpus_0-fp32::train"]
    assert infer["infer"] == {
        "device": "cpu",
        "use_gpu": "False",
        "batch_size": "1",
        "precision": "fp32",
        "enable_mkldnn": "False",
        "cpu_threads": "6",
        "use_tensorrt": None,
    }
    assert data["skipped"] == [{"id": "norm_train-gpus_0-fp32::eval", "reason": "eval script (eval, line 24) is null"}]
    assert data["notes"] == ["python: py (from --python)"]


def test_text_has_one_block_per_stage_then_skipped_and_notes():
    plan = make_plan(gpu_list="gpu_list:a,b;0,1", infer_use_gpu="--use_gpu:False", train_param1='Global.tag:"x y"')
    text = plan_to_text(plan)
    assert text.startswith("model rec, mode lite_train_lite_infer: 3 stages, 1 skipped\n")
    blocks = text.split("\n\n")
    train = blocks[1].splitlines()
    assert train[0] == "norm_train-gpus_0,1-fp32-nodes_2::train"
    assert train[1].startswith("  argv: py -m paddle.distributed.launch --ips=a,b --gpus=0,1 ")
    assert train[1].endswith(" 'Global.tag=x y'")
    assert train[2:] == [
        "  env: unset CUDA_VISIBLE_DEVICES",
        "  log: ./test_tipc/output/rec/lite_train_lite_infer/norm_train_gpus_0,1_autocast_fp32_nodes_2_train.log",
        "  requires: -",
    ]
    assert blocks[2].splitlines()[0] == "norm_train-gpus_0,1-fp32-nodes_2::export  (rank 0 only)"
    assert blocks[4] == "skipped:\n  norm_train-gpus_0,1-fp32-nodes_2::eval: eval script (eval, line 24) is null"
    assert blocks[5] == "notes:\n  - python: py (from --python)\n"
