import pytest
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


def _comparable_corpus(n_sent: int = 80, vocab: int = 40, dim: int = 16, seed: int = 0):
    """Two 'languages' whose word vectors differ by a rotation and an offset — a partly shared
    space, as a multilingual encoder's; the target sentences translate the source ones word
    for word, in another sentence order."""
    import numpy as np

    from alignment.data.vectors import WordVectors
    from alignment.unsupervised.iterated_mining import SentenceSide

    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(vocab, dim)).astype(np.float32)
    rot = np.linalg.qr(np.eye(dim) + 0.4 * rng.normal(size=(dim, dim)))[0].astype(np.float32)
    rot *= np.sign(np.diag(rot))[None, :]  # near the identity
    words = [rng.choice(vocab, size=rng.integers(4, 8)) for _ in range(n_sent)]
    order = rng.permutation(n_sent)

    def side(ids_list, table, prefix):
        vecs = [table[ids] + 0.05 * rng.normal(size=(len(ids), dim)).astype(np.float32)
                for ids in ids_list]
        return SentenceSide(WordVectors.from_list(vecs), [[f"{prefix}{i}" for i in ids]
                                                          for ids in ids_list])

    src = side(words, emb, "s")
    tgt = side([words[i] for i in order], emb @ rot + 3.0, "t")
    val_ids = rng.choice(vocab, size=200)
    val = (torch.from_numpy(emb[val_ids]), torch.from_numpy((emb @ rot + 3.0)[rng.permutation(val_ids)]))
    return src, tgt, val, order, emb, rot


@pytest.mark.parametrize("criterion", ["semantic", "mined"])
def test_iterated_mining_finds_the_translations_and_recovers_the_map(criterion):
    """Real eflomal on the mined pairs; the kept iteration's pairs are the true translations
    and the fitted map sends source words onto their translations."""
    pytest.importorskip("eflomal")
    import numpy as np

    from alignment.unsupervised.iterated_mining import MiningSettings, iterate_mining

    src, tgt, val, order, emb, rot = _comparable_corpus()
    mapping, rounds = iterate_mining(src, tgt, val, MiningSettings(rounds=3, threshold=1.0,
                                                                   criterion=criterion))
    kept = next(r for r in rounds if r.kept)
    truth = {int(order[j]): j for j in range(len(order))}  # source sentence -> target row
    share = np.mean([truth[int(a)] == int(b) for a, b in zip(kept.src, kept.tgt)])
    assert len(kept.src) >= 40 and share > 0.9
    first = rounds[0]  # mined through the unmapped space: mostly wrong pairs
    assert kept.iteration > 1 and np.mean([truth[int(a)] == int(b)
                                           for a, b in zip(first.src, first.tgt)]) < 0.5
    with torch.no_grad():
        mapped = mapping(torch.from_numpy(emb)).numpy()
        target = mapping.map_target(torch.from_numpy(emb @ rot + 3.0)).numpy()
    nearest = ((mapped[:, None] - target[None]) ** 2).sum(-1).argmin(1)
    assert (nearest == np.arange(len(emb))).mean() > 0.9
    scores = [r.score(criterion) for r in rounds]
    assert kept.score(criterion) == max(scores)
    assert len(rounds) == 3 or scores[-1] <= max(scores[:-1])  # stopped: no longer rising
    # the kept round carries its own links: its word pairs come back without aligning again
    from alignment.unsupervised.iterated_mining import mined_word_pairs
    xs, ys = mined_word_pairs(src, tgt, kept.src, kept.tgt, kept.links)
    assert len(xs) == len(ys) == kept.word_pairs and len(kept.links) == len(kept.src)


def test_mining_settings_are_checked():
    from alignment.errors import InputError
    from alignment.unsupervised.iterated_mining import MiningSettings

    with pytest.raises(InputError, match="criterion"):
        MiningSettings(criterion="p1")
    with pytest.raises(InputError, match="rounds"):
        MiningSettings(rounds=0)


def test_a_round_that_only_ties_the_best_is_not_kept(monkeypatch):
    """The loop stops at a round that does not raise the criterion; that round is reported but
    not marked kept even when its score equals the best one's."""
    import numpy as np

    from alignment.unsupervised import iterated_mining as im

    src, tgt, val, *_ = _comparable_corpus()
    fixed = im.mine_pairs(torch.zeros(len(src.vectors), 4) + torch.eye(len(src.vectors), 4),
                          torch.zeros(len(tgt.vectors), 4) + torch.eye(len(tgt.vectors), 4))
    monkeypatch.setattr(im, "mine_pairs", lambda *a, **k: fixed)  # the same pairs every round
    monkeypatch.setattr(im, "align_mined", lambda *a: [])
    monkeypatch.setattr(im, "mined_word_pairs", lambda *a: (np.eye(8, 16, dtype=np.float32),
                                                            np.eye(8, 16, dtype=np.float32)))
    _, rounds = im.iterate_mining(src, tgt, val, im.MiningSettings(rounds=3, criterion="mined",
                                                                    min_sentences=1))
    assert [r.iteration for r in rounds] == [1, 2] and [r.kept for r in rounds] == [True, False]


def test_mining_from_pools_with_few_translations_gets_a_note():
    import numpy as np

    from alignment.unsupervised.iterated_mining import MiningRound, few_translations_note

    def kept(n):
        return MiningRound(1, np.arange(n), np.arange(n), 10 * n, 0.5, kept=True)

    note = few_translations_note(kept(300), 1000, 1200)  # disjoint news halves mined 30-41%
    assert note is not None and "300 sentence pairs, 30% of the smaller pool" in note
    assert few_translations_note(kept(900), 1000, 1000) is None  # comparable text: 87-100%
