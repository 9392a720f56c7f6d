"""The guarded doors for files: every file tipc reads on behalf of a run comes through ``read``, every
path tipc derives from input is named by ``names`` and written through ``write``.

Below every other package (it imports only ``tipc.errors``): config, plan, run, results and report
all use it, so that one set of rules holds for every file, whoever reads it.
"""
