"""What earlier runs left for later ones: the identity of a config across checkouts (``keys``) and
the store of every run's figures and stage durations (``store``)."""
