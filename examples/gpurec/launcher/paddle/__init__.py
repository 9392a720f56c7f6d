"""NOT PaddlePaddle: the stand-in's launcher only (``python -m paddle.distributed.launch``).

On ``PYTHONPATH`` for gpurec's stages only, where paddle cannot be installed; see
``examples/gpurec/README.md``. It has no ``__version__``: tipc records no paddle version.
"""
