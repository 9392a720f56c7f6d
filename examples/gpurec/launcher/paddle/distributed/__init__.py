"""The stand-in's ``paddle.distributed``: only ``launch`` (see ``paddle/__init__.py``)."""
