import torch

from alignment.criteria import paired_p1, semantic_criterion, structural_criterion


def test_a_perfect_map_maximises_the_semantic_criterion_and_zeroes_the_structural():
    torch.manual_seed(0)
    y = torch.randn(300, 16)
    noisy = [y + s * torch.randn(300, 16) for s in (0.0, 0.3, 1.0)]
    sem = [semantic_criterion(m, y, top=100) for m in noisy]
    assert sem[0] > sem[1] > sem[2] and abs(sem[0] - 1.0) < 1e-5
    assert structural_criterion(y, y) < 1e-9
    assert structural_criterion(2 * y, y) > structural_criterion(1.1 * y, y)
    assert paired_p1(y, y) == 1.0


def test_structural_criterion_ignores_rotations():
    torch.manual_seed(0)
    y = torch.randn(200, 8)
    q, _ = torch.linalg.qr(torch.randn(8, 8))
    assert structural_criterion(y @ q, y) < 1e-5


def test_mutual_semantic_criterion_also_ranks_maps():
    torch.manual_seed(0)
    y = torch.randn(300, 16)
    sem = [semantic_criterion(y + s * torch.randn(300, 16), y, top=100, mutual=True) for s in (0.0, 0.5, 1.5)]
    assert sem[0] > sem[1] > sem[2] and abs(sem[0] - 1.0) < 1e-5
