"""Alignment without parallel data: the adversarial critic, self-training and its
constraints, VecMap-style self-learning, pseudo-parallel mining."""
