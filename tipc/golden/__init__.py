"""Golden results: what a run of a model in a mode is expected to produce, and the check against it.

``model`` (the types), ``files`` (where goldens live and how they read and write: tipc's YAML and
PaddleOCR's ``test_tipc/results/python_*.txt``), ``compare`` (golden × this run's evidence →
findings, pure), ``evidence`` (this run's figures, from this run's records and logs), ``update``
(goldens from one or several results folders).
"""
