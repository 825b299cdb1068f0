import torch

from alignment.mappings.moments import PairMoments


def test_streaming_equals_in_memory_and_merges_via_flat():
    torch.manual_seed(0)
    x, y = torch.randn(300, 8), torch.randn(300, 8)
    whole = PairMoments.of(x, y)
    parts = PairMoments.zeros(8)
    for s in range(0, 300, 64):
        parts.update(x[s:s + 64], y[s:s + 64])
    a, b = PairMoments.of(x[:100], y[:100]), PairMoments.of(x[100:], y[100:])
    reduced = PairMoments.from_flat(a.flat() + b.flat(), 8)  # what an all-reduce sum does
    for m in (parts, reduced):
        for k in ("n", "sx", "sy", "sxx", "syy", "sxy"):
            assert torch.allclose(getattr(m, k), getattr(whole, k), atol=1e-9)


def test_transformed_moments_equal_moments_of_transformed_data():
    torch.manual_seed(1)
    x, y = torch.randn(200, 5, dtype=torch.float64), torch.randn(200, 5, dtype=torch.float64)
    a_s, a_t = torch.randn(5, 5, dtype=torch.float64), torch.randn(5, 5, dtype=torch.float64)
    b_s, b_t = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    got = PairMoments.of(x, y).transformed(a_s, b_s, a_t, b_t)
    want = PairMoments.of(x @ a_s + b_s, y @ a_t + b_t)
    for k in ("sx", "sy", "sxx", "syy", "sxy"):
        assert torch.allclose(getattr(got, k), getattr(want, k), atol=1e-8)


def test_zero_weight_rows_add_nothing():
    torch.manual_seed(2)
    x, y = torch.randn(50, 4), torch.randn(50, 4)
    padded = PairMoments.zeros(4)
    padded.update(torch.cat([x, torch.randn(7, 4)]), torch.cat([y, torch.randn(7, 4)]),
                  torch.cat([torch.ones(50), torch.zeros(7)]))
    plain = PairMoments.of(x, y)
    for k in ("n", "sx", "sy", "sxx", "syy", "sxy"):
        assert torch.allclose(getattr(padded, k), getattr(plain, k), atol=1e-9)
