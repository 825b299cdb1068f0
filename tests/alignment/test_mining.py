import torch

from alignment.unsupervised.mining import margin_scores, mine_pairs


def _corpora(n=200, d=16, noise=0.1, extra=100, seed=0):
    """Source sentences, their noisy, rotated translations shuffled among unrelated target
    sentences, and the planted pairing."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randn(n, d, generator=g)
    rotation, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
    translations = src + noise * torch.randn(n, d, generator=g)
    tgt = torch.cat([translations, torch.randn(extra, d, generator=g)])
    perm = torch.randperm(len(tgt), generator=g)
    tgt = tgt[perm]
    where = torch.empty(len(tgt), dtype=torch.long)
    where[perm] = torch.arange(len(tgt))
    return src, tgt, where[:n], rotation


def test_mining_recovers_planted_pairs_from_shuffled_corpora():
    src, tgt, truth, _ = _corpora()
    mined = mine_pairs(src, tgt, threshold=1.0)
    assert len(mined) >= 190
    correct = (truth[mined.src] == mined.tgt).float().mean()
    assert float(correct) == 1.0
    assert torch.all(mined.score[:-1] >= mined.score[1:])  # best first


def test_threshold_and_top_limit_the_pairs():
    src, tgt, _, _ = _corpora()
    assert len(mine_pairs(src, tgt, threshold=1e9)) == 0
    assert len(mine_pairs(src, tgt, top=10)) == 10


def test_unrelated_corpora_yield_low_margins():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(200, 16, generator=g), torch.randn(200, 16, generator=g)
    src, tgt, _, _ = _corpora()
    _, random_scores, _, _ = margin_scores(a, b)
    _, planted_scores, _, _ = margin_scores(src, tgt[:len(tgt)])
    assert float(random_scores.median()) < 1.1 < float(planted_scores.median())


def test_rotated_translations_are_not_found_without_a_map():
    """Mining compares vectors as they are: a misaligned space (rotated target) defeats it,
    which is why mining is iterated with the improved map."""
    src, tgt, truth, rotation = _corpora()
    mined = mine_pairs(src, tgt @ rotation, threshold=1.0)
    correct = (truth[mined.src] == mined.tgt).float().sum() if len(mined) else torch.tensor(0.0)
    assert float(correct) < 20
