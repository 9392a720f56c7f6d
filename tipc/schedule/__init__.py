"""Using the hardware and scaling out: which chains run side by side, on which devices, on which machine.

A chain (train → eval → export → infer) is the unit everywhere here: its stages depend on each
other through files, so a chain is never split, neither across concurrent workers nor across
shards. Modules, one job each:

* ``policy``   what the user asked for (``--jobs``, ``--mem-per-chain``, ``--gpus-available``,
               ``--shard``), parsed; the default is serial, exactly as without this package;
* ``devices``  the GPU list (given, simulated, or the machine's) and an xdist worker's slot of it;
* ``history``  durations and memory peaks recorded by earlier runs;
* ``demand``   what a chain and each of its stages need: GPUs, memory, cores, exclusivity;
* ``budget``   what this machine offers: memory, cores;
* ``pin``      a stage rewritten onto the devices its chain was given;
* ``slots``    the in-process broker that hands out devices and stage admissions;
* ``hostlock`` the cross-process lock that keeps CPU benchmarks alone under pytest-xdist;
* ``jobs``     a session's selected stages → chain jobs with their demands;
* ``runner``   the background scheduler (``--jobs``) and the xdist worker's slot runner;
* ``shard``    ``--shard K/N``: the matrix split into balanced parts, chains whole.

Only ``tipc.run`` starts processes: the runner calls ``PlanRun.run_stage`` from its threads.
"""
