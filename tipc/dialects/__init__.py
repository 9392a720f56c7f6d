"""Suite dialects shipped with tipc as packages of their own, each registered through a ``tipc`` entry point."""
