"""pytest entry point (``pytest11``) for tipc."""
