"""Alignment without parallel data: the adversarial critic, bootstrapping and its
constraints, VecMap-style self-learning, pseudo-parallel mining."""
