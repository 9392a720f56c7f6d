"""Offline synthetic data at the paths a config's commands read (``tipc prepare``).

``reads`` takes from a plan what each stage reads (``toolargs`` reads its argv as
PaddleOCR's tools do, ``overrides`` lays its ``-o`` words over the yml);
``trainyml``, ``families``, ``charset`` and ``sizes`` say what to draw and how
much; ``targets`` turns them into data sets; ``synth`` (text lines) and
``detsynth`` (detection scenes) draw, ``writer`` writes, ``apply`` makes it
idempotent, bookkept by ``manifest``.
"""
