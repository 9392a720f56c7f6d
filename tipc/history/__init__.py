"""Every fact that outlives a run, with one owner: figures, stage durations, report summaries and
matrix rows, in one store (``store.History``), found where the ``history`` setting says
(``store.history_file``), keyed by what travels (``keys``: suite, path inside the suite, mode, chain,
stage, figure).

Its readers and writers: a report's figures and summary (``reports``, ``summaries``), the split's and
the scheduler's durations (``durations``), the matrix page's rows (``matrix``). The files earlier
tipcs kept (``trends.jsonl``, ``summary.json``, ``matrix.json``) are read once, here only
(``legacy``), into the store. ``provenance``: what a run tested (the target's commit).
"""
