import torch

from alignment.evaluation.csls import induce_pairs, nearest, normalize, precision_at_1


def _brute_csls(q: torch.Tensor, k_: torch.Tensor, k: int) -> torch.Tensor:
    q, k_ = normalize(q), normalize(k_)
    sims = q @ k_.T
    r_q = sims.topk(k, dim=1).values.mean(1)
    r_k = sims.T.topk(k, dim=1).values.mean(1)
    return 2 * sims - r_q[:, None] - r_k[None, :]


def test_chunked_csls_matches_brute_force():
    torch.manual_seed(0)
    q, keys = torch.randn(257, 12), torch.randn(301, 12)
    brute = _brute_csls(q, keys, 10)
    idx, val = nearest(q, keys, "csls", k=10, chunk=50, topn=3)
    want = brute.topk(3, dim=1)
    assert torch.equal(idx, want.indices)
    assert torch.allclose(val, want.values, atol=1e-5)


def test_precision_at_1_on_planted_pairs():
    torch.manual_seed(0)
    x = torch.randn(100, 16)
    assert precision_at_1(x, x + 0.01 * torch.randn(100, 16)) == 1.0
    assert precision_at_1(x, x[torch.randperm(100)]) < 0.2
    assert precision_at_1(x, x, method="csls") == 1.0


def test_induced_pairs_forward_and_mutual_against_brute_force():
    torch.manual_seed(1)
    x = torch.randn(120, 10)
    y = torch.cat([x[torch.arange(119, -1, -1)] + 0.6 * torch.randn(120, 10), torch.randn(40, 10)])
    brute = _brute_csls(x, y, 10)
    fwd, back = brute.argmax(1), brute.argmax(0)
    q, k, score = induce_pairs(x, y, "csls", 10, chunk=32)
    assert torch.equal(k, fwd[q]) and len(q) == 120 and bool((score[:-1] >= score[1:]).all())
    qm, km, _ = induce_pairs(x, y, "csls", 10, mutual=True, chunk=32)
    want = {(i, int(fwd[i])) for i in range(120) if int(back[fwd[i]]) == i}
    assert {(int(a), int(b)) for a, b in zip(qm, km)} == want and 0 < len(want) < 120
    hits = sum(int(b) == 119 - int(a) for a, b in zip(qm, km)) / len(qm)
    assert hits > sum(int(b) == 119 - int(a) for a, b in zip(q, k)) / len(q)  # mutual is more precise
