import torch

from alignment.unsupervised.vecmap import SelfLearning, initial_dictionary, self_learning


def _isometric(n=300, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g) * torch.linspace(3, 0.5, d)
    rotation, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    perm = torch.randperm(n, generator=g)
    return x, (x.double() @ rotation).float()[perm], rotation, perm


def test_similarity_initialisation_finds_pairs_of_an_isometric_copy():
    x, y, _, perm = _isometric()
    src, tgt = initial_dictionary(x, y)
    where = torch.empty_like(perm)
    where[perm] = torch.arange(len(perm))
    assert float((where[src] == tgt).float().mean()) > 0.5


def test_self_learning_recovers_a_random_rotation_without_pairs():
    x, y, rotation, _ = _isometric()
    settings = SelfLearning()
    w = self_learning(x, y, settings)
    mapped = (x - x.mean(0)).double() @ w
    target = ((x - x.mean(0)).double() @ rotation)
    assert torch.allclose(mapped / mapped.norm(dim=1, keepdim=True),
                          target / target.norm(dim=1, keepdim=True), atol=1e-3)
    assert len(settings.history) >= 2 and settings.history[-1] >= settings.history[0]


def test_identity_start_keeps_an_already_aligned_space():
    x, _, _, _ = _isometric()
    w = self_learning(x, x.clone(), SelfLearning(init="identity"))
    assert torch.allclose(w, torch.eye(16, dtype=torch.float64), atol=1e-6)


def test_self_learning_recovers_a_noisy_rotation_and_the_published_initialisation_helps():
    """A rotated copy with noise, rows shuffled: the matrix-square-root signatures seed a
    dictionary far above chance, and self-learning (dropout on the similarity matrix, keep
    probability doubling) ends at the rotation."""
    from alignment.unsupervised.vecmap import similarity_signatures

    x, y, rotation, perm = _isometric(n=400, d=12, seed=3)
    g = torch.Generator().manual_seed(4)
    y = y + 0.05 * torch.randn(y.shape, generator=g) * y.std()
    src, tgt = initial_dictionary(x, y)
    where = torch.empty_like(perm)
    where[perm] = torch.arange(len(perm))
    seed_precision = float((where[src] == tgt).float().mean())
    assert seed_precision > 0.3  # chance: 1/400
    # the signatures are rotation-invariant: a rotated copy has the same rows
    assert torch.allclose(similarity_signatures(x.double()),
                          similarity_signatures(x.double() @ rotation), atol=1e-8)
    settings = SelfLearning(patience=5)
    w = self_learning(x, y, settings)
    assert torch.linalg.norm(w - rotation) < 0.1 * torch.linalg.norm(rotation)
    # the loop records the dictionary it started from, so its precision can be reported
    assert torch.equal(settings.seed_dictionary[0], src)
    assert torch.equal(settings.seed_dictionary[1], tgt)
    assert settings.history[-1] > settings.history[0]
