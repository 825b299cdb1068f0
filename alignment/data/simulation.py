"""The CBLI simulation of Zhao & Eger 2022 (§4.3): 2-D Gaussian-mixture "languages".

20 words; word i's occurrences ~ N(μ_i, I), μ_i ~ U[−5, 5]²; k training occurrences per word.
The target language is the source under a map T_t. For t = 1, T is a rotation (isomorphic).
For t > 1 the paper alternates rotations and translations t times, which composed stay a
rigid motion (still isomorphic); to make the spaces non-isomorphic as the paper intends, each
alternation here rotates by an angle that grows with the distance from the origin (a swirl,
a smooth bijection — our construction, so our t > 1 values are not comparable with the
paper's) before it translates.

Validation/test occurrences are drawn around μ_i shifted by ε: by ε on every component, as in
the paper (``shift="components"``, a shift of length ε√2), or by ε along one random unit
direction (``shift="direction"``, crossalign 0.1). Test targets are the images T(x) of the test
sources (``protocol="paired"``: the true map scores 100% at every ε, so the table's ceiling is
known) or fresh occurrences of the same words (``protocol="fresh"``, crossalign 0.1: even the
true map scores ~42%, as the word clouds overlap)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment.catalogue import check_choice


@dataclass
class SimulatedLanguages:
    x_train: np.ndarray
    y_train: np.ndarray
    word_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    word_test: np.ndarray
    x_val: np.ndarray | None = None   # paired validation occurrences (same shift as test)
    y_val: np.ndarray | None = None
    y_test_true: np.ndarray | None = None  # T(x_test): where the true map sends the sources


def rotation(theta: float) -> np.ndarray:
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


def transform(x: np.ndarray, t: int, rng: np.random.Generator) -> np.ndarray:
    """T_t: a rotation for t = 1; t swirl-rotation + translation alternations for t > 1."""
    params = [(rng.uniform(0.3, 1.2), rng.uniform(-2, 2, size=2)) for _ in range(t)]
    if t == 1:
        return x @ rotation(params[0][0]).T
    y = x.copy()
    for theta, shift in params:
        r = np.linalg.norm(y, axis=1)
        angles = theta * r / 5.0
        c, s = np.cos(angles), np.sin(angles)
        y = np.stack([c * y[:, 0] - s * y[:, 1], s * y[:, 0] + c * y[:, 1]], 1) + shift
    return y


PROTOCOLS = ("paired", "fresh")
SHIFTS = ("components", "direction")


def simulate(t: int = 1, k: int = 20, eps: float = 0.0, n_words: int = 20, k_test: int = 10,
             seed: int = 0, protocol: str = "paired", shift: str = "components",
             k_val: int = 5) -> SimulatedLanguages:
    """One draw of the two languages; the same seed gives the same words and the same T (the
    training occurrences do not depend on ε, the protocol or the shift)."""
    check_choice(protocol, PROTOCOLS, "protocol")
    check_choice(shift, SHIFTS, "shift")
    rng = np.random.default_rng(seed)
    mu = rng.uniform(-5, 5, size=(n_words, 2))
    direction = rng.normal(size=2)
    direction /= np.linalg.norm(direction)
    offset = eps * (np.ones(2) if shift == "components" else direction)
    t_rng = np.random.default_rng(seed + 10_007)
    word_train = np.repeat(np.arange(n_words), k)
    x_train = mu[word_train] + rng.normal(size=(len(word_train), 2))
    word_test = np.repeat(np.arange(n_words), k_test)
    x_test = mu[word_test] + offset + rng.normal(size=(len(word_test), 2))
    # fresh: other occurrences of the same words (a perfect map must still land in the right
    # word's cloud); drawn in both protocols so the random stream stays the same
    other = mu[word_test] + offset + rng.normal(size=(len(word_test), 2))
    val_rng = np.random.default_rng(seed + 20_011)
    word_val = np.repeat(np.arange(n_words), k_val)
    x_val = mu[word_val] + offset + val_rng.normal(size=(len(word_val), 2))
    both = transform(np.concatenate([x_train, other, x_test, x_val]), t, t_rng)
    n1, n2, n3 = len(x_train), len(x_train) + len(other), len(x_train) + len(other) + len(x_test)
    y_true = both[n2:n3]
    y_test = y_true if protocol == "paired" else both[n1:n2]
    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    return SimulatedLanguages(f32(x_train), f32(both[:n1]), word_train, f32(x_test), f32(y_test),
                              word_test, f32(x_val), f32(both[n3:]), f32(y_true))


def word_p1(mapped: np.ndarray, targets: np.ndarray, src_words: np.ndarray,
            tgt_words: np.ndarray) -> float:
    """P@1: the nearest (Euclidean) target occurrence belongs to the same word."""
    d = ((mapped[:, None, :] - targets[None, :, :]) ** 2).sum(-1)
    return float((tgt_words[d.argmin(1)] == src_words).mean())
