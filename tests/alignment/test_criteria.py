import torch

import math

import pytest

from alignment.evaluation.criteria import (CRITERIA, paired_p1, resolve_top, semantic_criterion,
                                           spectrum_distance, structural_criterion)


def test_a_perfect_map_maximises_the_semantic_criterion_and_zeroes_the_structural():
    torch.manual_seed(0)
    y = torch.randn(300, 16)
    noisy = [y + s * torch.randn(300, 16) for s in (0.0, 0.3, 1.0)]
    sem = [semantic_criterion(m, y, top=100) for m in noisy]
    assert sem[0] > sem[1] > sem[2] and abs(sem[0] - 1.0) < 1e-5
    assert structural_criterion(y, y, top=100) < 1e-9
    assert structural_criterion(2 * y, y) > structural_criterion(1.1 * y, y)
    assert paired_p1(y, y) == 1.0


def test_the_structural_criterion_is_the_published_log_spectral_gap():
    torch.manual_seed(0)
    y = torch.randn(300, 8)
    # a uniform scaling keeps the CSLS pairs (cosine-based) and moves every log σ by log 2
    assert structural_criterion(2 * y, y, top=300) == pytest.approx(8 * math.log(2) ** 2, rel=1e-6)
    # one stretched direction: only its log σ moves, by log 3 (other σ unchanged up to pairing)
    stretched = y.clone()
    stretched[:, 0] *= 3
    assert structural_criterion(stretched, y, top=300) < structural_criterion(2 * y, y, top=300)


def test_constant_dimensions_do_not_dominate_the_structural_criterion():
    torch.manual_seed(0)
    y = torch.randn(300, 8)
    y[:, 5] = 1e-32 * torch.randn(300)   # a dead dimension, as in MiniLM layer 6
    x = y.clone()
    x[:, 5] = 1e-20 * torch.randn(300)   # dead too, at another tiny scale
    assert structural_criterion(x, y, top=300) < 1e-9


def test_top_is_a_count_or_a_share_of_the_pool():
    assert resolve_top(1000, 50_000) == 1000 and resolve_top(0.1, 50_000) == 5000
    assert resolve_top(0.001, 10) == 1
    with pytest.raises(ValueError):
        resolve_top(0, 10)
    torch.manual_seed(0)
    y = torch.randn(400, 8)
    noisy = y + 0.5 * torch.randn(400, 8)
    assert semantic_criterion(noisy, y, top=0.25) == pytest.approx(semantic_criterion(noisy, y, top=100))


def test_the_raw_spectrum_distance_is_kept_and_ignores_rotations():
    torch.manual_seed(0)
    y = torch.randn(200, 8)
    q, _ = torch.linalg.qr(torch.randn(8, 8))
    assert spectrum_distance(y @ q, y) < 1e-5 and CRITERIA["spectrum"].mode == "min"


def test_mutual_semantic_criterion_also_ranks_maps():
    torch.manual_seed(0)
    y = torch.randn(300, 16)
    sem = [semantic_criterion(y + s * torch.randn(300, 16), y, top=100, mutual=True) for s in (0.0, 0.5, 1.5)]
    assert sem[0] > sem[1] > sem[2] and abs(sem[0] - 1.0) < 1e-5


def test_mmd_is_near_zero_for_one_distribution_and_falls_as_a_shift_closes():
    from alignment.evaluation.criteria import mmd

    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(1500, 4, generator=g), torch.randn(1500, 4, generator=g)
    assert abs(mmd(a, b)) < 0.01
    far, near = mmd(a + 2.0, b), mmd(a + 0.5, b)
    assert far > near > 0.01
    rotated = a @ torch.linalg.qr(torch.randn(4, 4, generator=g))[0]
    assert abs(mmd(rotated, b)) < 0.01  # a rotation of an isotropic cloud: same distribution
