"""The unsupervised table's label-free pick: the route a user without labels would export."""
from types import SimpleNamespace

import numpy as np

from train.experiments.unsupervised_report import compare_routes, criterion_pick, format_unsupervised


def _rows():
    return {"unmapped": {"semantic": 0.9, "retrieval_cosine_src2tgt": 0.1},
            "supervised: center > clp": {"semantic": 0.95, "retrieval_cosine_src2tgt": 0.55},
            "center": {"semantic": 0.68, "retrieval_cosine_src2tgt": 0.21},
            "vecmap": {"semantic": 0.56, "retrieval_cosine_src2tgt": 0.001},
            "gan_realnvp": {"semantic": 0.70, "retrieval_cosine_src2tgt": 0.20}}


def test_the_pick_is_the_unsupervised_row_with_the_best_criterion_never_a_reference():
    rows = _rows()
    assert criterion_pick(rows) == "gan_realnvp"  # unmapped and supervised rows do not compete
    rows["gan_realnvp"]["semantic"] = 0.60
    assert criterion_pick(rows) == "center"       # a failed route loses to the floor
    assert criterion_pick({"vecmap": rows["vecmap"]}) is None  # no floor to compare with


def test_the_table_names_the_pick_with_its_interval_against_center():
    rows = _rows()
    rng = np.random.default_rng(0)
    hits = {n: rng.random(200) < r["retrieval_cosine_src2tgt"] for n, r in rows.items()}
    cfg = SimpleNamespace(bootstrap_samples=200, seed=0, protocol="disjoint", per_type=20)
    comparisons = compare_routes(rows, hits, cfg)
    assert comparisons["criterion/pick_src2tgt"] == rows["gan_realnvp"]["retrieval_cosine_src2tgt"]
    u = SimpleNamespace(src_verses=range(5), tgt_verses=range(5))
    bed = SimpleNamespace(test=SimpleNamespace(corpus=range(10)), train=range(10), x=range(3),
                          src_lang="es")
    text = format_unsupervised(rows, hits, comparisons, cfg, bed, u, SimpleNamespace(x=range(4)))
    line = next(l for l in text.splitlines() if l.startswith("The route the label-free"))
    assert "gan_realnvp, es→en P@1 20.0, against center" in line and "[" in line


def test_the_comparisons_can_use_cbli_where_retrieval_is_at_its_ceiling():
    import pytest

    from alignment.errors import InputError
    from train.experiments.unsupervised_report import compare_routes

    rows = {"center": {"semantic": 0.1, "retrieval_cosine_src2tgt": 0.99, "cbli_p1": 0.60},
            "muse": {"semantic": 0.3, "retrieval_cosine_src2tgt": 0.98, "cbli_p1": 0.70},
            "vecmap": {"semantic": 0.2, "retrieval_cosine_src2tgt": 0.99, "cbli_p1": 0.65}}
    hits = {n: np.arange(100) < 100 * r["cbli_p1"] for n, r in rows.items()}
    cfg = SimpleNamespace(bootstrap_samples=100, seed=0, measure="cbli")
    out = compare_routes(rows, hits, cfg)
    assert out["criterion/pick_src2tgt"] == 0.70 and out["criterion/pearson_semantic_p1"] > 0.9
    with pytest.raises(InputError, match="measure"):
        compare_routes(rows, hits, SimpleNamespace(bootstrap_samples=100, seed=0, measure="bleu"))
