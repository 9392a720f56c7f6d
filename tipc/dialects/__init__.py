"""Suite dialects shipped as packages of their own, each registered through ``pytest_tipc_add_dialects``."""
