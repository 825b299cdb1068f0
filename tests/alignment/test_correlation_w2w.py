import numpy as np
import pytest

from alignment.evaluation.correlation import correlations, pearson, read_judgments
from alignment.errors import InputError
from alignment.evaluation.w2w import literal_translation, w2w_share


def _tsv(tmp_path, rows, header="lp\tsrc\tmt\tref\tscore\tsystem"):
    p = tmp_path / "da.tsv"
    p.write_text(header + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return p


def test_correlations_on_a_planted_relation(tmp_path):
    rng = np.random.default_rng(0)
    rows = [("es-en", f"s{i}", f"m{i}", f"r{i}", h, f"sys{i % 4}") for i, h in enumerate(rng.normal(size=60))]
    data = read_judgments(_tsv(tmp_path, rows))
    metric = data.human * 2 + 0.1 * rng.normal(size=60)
    out = correlations(data, metric, n_boot=200)
    assert out["es-en/pearson"] > 0.95 and out["es-en/kendall"] > 0.8
    assert out["es-en/pearson_lo"] <= out["es-en/pearson"] <= out["es-en/pearson_hi"]
    assert "es-en/system_pearson" in out and out["avg/pearson"] == out["es-en/pearson"]
    assert pearson(np.array([1.0, 2, 3]), np.array([3.0, 2, 1])) == pytest.approx(-1.0)


def test_judgment_errors_name_file_and_line(tmp_path):
    with pytest.raises(InputError, match=r"da.tsv:2: score 'good' is not a number"):
        read_judgments(_tsv(tmp_path, [("es-en", "a", "b", "c", "good", "s")]))
    with pytest.raises(InputError, match=r"da.tsv:1: header lacks column"):
        read_judgments(_tsv(tmp_path, [("a", "b")], header="lp\tsrc"))


def test_literal_translation_and_w2w():
    lex = {"la": ["the"], "casa": ["house", "home"], "Dios": ["God"]}
    assert literal_translation("La casa de Dios.", lex) == "the house de God ."
    assert w2w_share(np.array([0.5, 0.2, 0.9]), np.array([0.4, 0.3, 0.9])) == pytest.approx(1 / 3)
