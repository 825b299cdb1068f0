"""``crossalign evaluate NAME --metric-row``: the other metrics as rows of a judged benchmark,
against the data's references or its sources, their scores those of the library metric on the
same segments, their options signed, and a bad row refused before anything loads."""
import json

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.judgments.metric_rows import parse_metric_row
from train.cli import main


def test_metric_rows_are_the_library_metrics_on_the_judged_segments(tmp_path, wmt17_data,
                                                                    tiny_bert, capsys):
    from alignment.judgments import get_benchmark
    from alignment.metrics import MoverScore

    out = tmp_path / "report"
    rows = [f"moverscore-v2:ref:{tiny_bert}", f"moverscore-v2/idf=none:ref:{tiny_bert}",
            f"baryscore/last_layers=2:src:{tiny_bert}", f"bertscore/layer=2:ref:{tiny_bert}"]
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--metric-row", *rows,
                 "--bootstrap", "30", "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    for row in rows:
        for pair in ("de-en", "lv-en", "avg"):
            lo, r, hi = (metrics[f"{row}/{pair}/{k}"] for k in ("pearson_lo", "pearson", "pearson_hi"))
            assert lo <= r <= hi
    data = get_benchmark("wmt17").load(wmt17_data, "test", ["de-en"])
    want = MoverScore(str(tiny_bert), "v2").score(data.mt, references=data.ref).scores
    assert metrics[f"{rows[0]}/de-en/pearson"] == pytest.approx(
        float(np.corrcoef(want, data.human)[0, 1]), abs=1e-9)
    assert metrics[f"{rows[1]}/avg/diff"] != 0  # idf changes the scores
    assert "idf:none|form:ref" in text and "|form:src" in text


@pytest.mark.parametrize("spec, says", [
    ("moverscore-v3:ref:ENC", "unknown metric .*did you mean moverscore-v"), ("moverscore-v2:both:ENC", "form"),
    ("moverscore-v2/ngram=2:ref:ENC", "takes"), ("moverscore-v1/ngram=two:ref:ENC", "integer"),
    ("baryscore/punctuation=maybe:ref:ENC", "drop or keep"), ("moverscore-v2/idf=some:ref:ENC", "idf"),
    ("moverscore-v2/stopwords=MISSING:ref:ENC", "none.txt"), ("moverscore-v2:ref", "NAME"),
    ("sentsim/sentence=uss:src:ENC", "unknown term 'uss'"), ("sentsim/idf=none:src:ENC", "takes"),
])
def test_a_bad_row_is_refused_naming_what_is_wrong(tiny_bert, tmp_path, spec, says):
    spec = spec.replace("ENC", str(tiny_bert)).replace("MISSING", str(tmp_path / "none.txt"))
    with pytest.raises(InputError, match=says):
        parse_metric_row(spec, ["de-en"])
