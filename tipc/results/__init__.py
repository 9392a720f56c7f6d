"""A run's results: the record schema (``records``) and the folder that holds them (``folder``).

Everything that names, reads or writes a results file goes through here: the runner
writes, the cluster merge and the report read.
"""

from tipc.results.folder import ResultsDir, load_results_dir, node_dirs, read_records, read_run_info
from tipc.results.records import SCHEMA, RunInfo, StageRecord, Status, run_verdict

__all__ = [
    "SCHEMA",
    "ResultsDir",
    "RunInfo",
    "StageRecord",
    "Status",
    "load_results_dir",
    "node_dirs",
    "read_records",
    "read_run_info",
    "run_verdict",
]
