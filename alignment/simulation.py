"""The CBLI simulation of Zhao & Eger 2022 (§4.3): 2-D Gaussian-mixture "languages".

20 words; word i's occurrences ~ N(μ_i, I), μ_i ~ U[−5, 5]²; k training occurrences per word.
The target language is the source under a map T_t. For t = 1, T is a rotation (isomorphic).
For t > 1 the paper alternates rotations and translations t times, which composed stay affine,
so to make the spaces non-isomorphic as the paper intends each alternation here rotates by
an angle that grows with the distance from the origin (a swirl, a smooth bijection) before it
translates. Validation/test occurrences are drawn around μ_i + ε·u (u a fixed unit vector):
the domain shift."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SimulatedLanguages:
    x_train: np.ndarray
    y_train: np.ndarray
    word_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    word_test: np.ndarray


def _rotation(theta: float) -> np.ndarray:
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


def transform(x: np.ndarray, t: int, rng: np.random.Generator) -> np.ndarray:
    """T_t: a rotation for t = 1; t swirl-rotation + translation alternations for t > 1."""
    params = [(rng.uniform(0.3, 1.2), rng.uniform(-2, 2, size=2)) for _ in range(t)]
    if t == 1:
        return x @ _rotation(params[0][0]).T
    y = x.copy()
    for theta, shift in params:
        r = np.linalg.norm(y, axis=1)
        angles = theta * r / 5.0
        c, s = np.cos(angles), np.sin(angles)
        y = np.stack([c * y[:, 0] - s * y[:, 1], s * y[:, 0] + c * y[:, 1]], 1) + shift
    return y


def simulate(t: int = 1, k: int = 20, eps: float = 0.0, n_words: int = 20, k_test: int = 10,
             seed: int = 0) -> SimulatedLanguages:
    """One draw of the two languages; the same seed gives the same words and the same T."""
    rng = np.random.default_rng(seed)
    mu = rng.uniform(-5, 5, size=(n_words, 2))
    direction = rng.normal(size=2)
    direction /= np.linalg.norm(direction)
    t_rng = np.random.default_rng(seed + 10_007)
    word_train = np.repeat(np.arange(n_words), k)
    x_train = mu[word_train] + rng.normal(size=(len(word_train), 2))
    word_test = np.repeat(np.arange(n_words), k_test)
    x_test = mu[word_test] + eps * direction + rng.normal(size=(len(word_test), 2))
    # target test occurrences are other occurrences of the same words (not images of x_test),
    # so a perfect map must still land in the right word's cloud
    other = mu[word_test] + eps * direction + rng.normal(size=(len(word_test), 2))
    both = transform(np.concatenate([x_train, other]), t, t_rng)
    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    return SimulatedLanguages(f32(x_train), f32(both[:len(x_train)]), word_train, f32(x_test),
                              f32(both[len(x_train):]), word_test)


def word_p1(mapped: np.ndarray, targets: np.ndarray, src_words: np.ndarray,
            tgt_words: np.ndarray) -> float:
    """P@1: the nearest (Euclidean) target occurrence belongs to the same word."""
    d = ((mapped[:, None, :] - targets[None, :, :]) ** 2).sum(-1)
    return float((tgt_words[d.argmin(1)] == src_words).mean())
