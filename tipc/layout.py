"""The common ``test_tipc`` layout, for dialect authors: public and kept across minor releases.

Most suites write their TIPC configs in one positional layout (``key:value`` lines in a fixed order, sections
headed ``===…===``, ``gpu_list``, the train → eval → export → infer roles) that their bash reads by line
number. A dialect for such a suite reads and plans it with these primitives, which apply tipc's guards once
for every dialect: ``gpu_list`` entries checked with a ``file:line`` error, the plan's bounds, names escaped in
every path a stage writes. ``tipc`` itself holds the plan model and the dialect type; this module holds the
layout's readers and builders. The modules they live in are private.

```python
from tipc import Dialect, Plan, PlanOptions
from tipc.layout import BashLines, Role, draft, suite_config, train_cells
```
"""

from __future__ import annotations

from tipc.config.model import NULL
from tipc.config.tags import tag_words
from tipc.files.write import component, name_part
from tipc.metrics.logtext import messages_of_lines
from tipc.metrics.predictions import LIMIT as PREDICTION_LIMIT
from tipc.plan.devices import VARIANT_DEVICES
from tipc.plan.fragments import DROPPED, Command, Fragment, literal
from tipc.plan.interpreter import on_path
from tipc.plan.naming import output_dir
from tipc.suites.bash import BashLines, Entries, dirname, mode_param, param, raw_param, text
from tipc.suites.layout import Role
from tipc.suites.plans import (
    GpuEntry,
    PlanDraft,
    SuiteConfig,
    command,
    draft,
    env_of,
    infer_stages,
    inside,
    suite_config,
    train_cells,
)
from tipc.suites.sweep import Target, cells, infer_models, whole_infer_device
from tipc.suites.tags import model_tags
from tipc.suites.variants import MKLDNN_OFF, Rewrite, Variant, yml_note

__all__ = [
    "DROPPED",
    "MKLDNN_OFF",
    "NULL",
    "PREDICTION_LIMIT",
    # the device scripts' rewrites (--device npu/xpu)
    "VARIANT_DEVICES",
    # reading a config: its lines, values and roles
    "BashLines",
    # a stage's command, built from fragments that keep their config line
    "Command",
    "Entries",
    "Fragment",
    "GpuEntry",
    "PlanDraft",
    "Rewrite",
    "Role",
    # planning it: the draft, its train cells and the predict sweep
    "SuiteConfig",
    "Target",
    "Variant",
    "cells",
    "command",
    # names escaped for the paths a stage writes
    "component",
    "dirname",
    "draft",
    "env_of",
    "infer_models",
    "infer_stages",
    "inside",
    "literal",
    # reading a predictor's log
    "messages_of_lines",
    "mode_param",
    "model_tags",
    "name_part",
    "on_path",
    "output_dir",
    "param",
    "raw_param",
    "suite_config",
    "tag_words",
    "text",
    "train_cells",
    "whole_infer_device",
    "yml_note",
]
