"""Multi-node support: node list and identity, ports, device choice, preflight, merge.

Fronts use ``node.resolve_node`` → ``node.to_plan_kwargs`` for ``PlanOptions``,
``preflight.run_preflight`` before the first stage, and ``merge.merge_dirs``
afterwards. Everything raises ``ClusterError`` (setup) or ``ResultsError`` (files).
Nothing is imported here: the option declarations are read on every pytest start.
"""
