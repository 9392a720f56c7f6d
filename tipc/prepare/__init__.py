"""Offline synthetic data at the paths a config reads (``tipc prepare``).

``synth`` draws text-line images; ``trainyml``, ``charset`` and ``sizes`` read
what to draw and how much; ``targets`` turns a config and a mode into data
sets; ``apply`` writes them, bookkept by ``manifest``.
"""
