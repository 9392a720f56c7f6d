"""``tipc doctor``: the environment problems that would otherwise surface as a failed first stage.

Each check is pass / warn / fail / not applicable with a one-line fix (``checks``). The facts come
from probes (``probes``: the stage interpreter asked through ``inspect_env.py``, ``nvidia-smi``,
the disk), behind a Protocol so that tests give fakes; the checks themselves are pure functions of
those facts (``interpreter``, ``nvidia``, ``libraries``, ``disk``, ``target``), and ``examine``
puts them together for one config.
"""
