"""Triage: which change made a stage fail (``bisect``, run one commit at a time by ``step``)."""
