"""Processes: start, supervise, sweep and reap them; nothing here knows of plans or stages.

``child`` runs one program to its end (time limit, hang, stop, a sweep of its whole tree on
every way out) and asks programs questions (``ask``); ``executor`` runs a request into its log
file; ``tree`` finds a process tree and the processes carrying a mark; ``watchdog`` kills what
a dead harness left running.
"""
