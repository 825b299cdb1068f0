"""A setting is a row: ``evaluate NAME --row LABEL=EXPORT[:SETTING]`` and ``--rows FILE`` score
one export under several settings side by side, each row signed as its setting says and compared
with the first; a bad row names its file and line before anything loads."""
import json

import pytest

from alignment.errors import InputError
from alignment.judgments.row_spec import parse_labelled_row, read_rows
from train.cli import main


def test_a_row_names_its_label_export_and_setting(tiny_bert):
    row = parse_labelled_row(f"ablated={tiny_bert}:none,sentence=0.5,formula=2020", ["de-en"])
    assert row.label == "ablated" and row.encoder_for("de-en") == str(tiny_bert)
    assert row.setting == {"setting": "none", "formula": "2020", "weights": {"sentence": 0.5}}
    # the row's weights go over the common ones, term by term
    assert row.options({"weights": {"lm": 0.1, "sentence": 1.0}, "batch_size": 8}) == {
        "weights": {"lm": 0.1, "sentence": 0.5}, "batch_size": 8, "setting": "none",
        "formula": "2020"}
    assert parse_labelled_row(f"plain={tiny_bert}", ["de-en"]).setting == {}


@pytest.mark.parametrize("line, message", [
    ("no label", "is not LABEL=EXPORT"),
    ("x={tiny}:sentence=much", "the weight of sentence must be a number"),
    ("x={tiny}:unknown-term=1", "unknown-term"),
    ("x={tiny}:sentence=-1", "must be finite and >= 0"),
    ("x={tiny}:formula=1999", "unknown formula .1999."),
    ("x={tiny}:both", "'both' in the setting 'both' is neither export nor none"),
])
def test_a_bad_row_in_a_file_names_the_file_and_line(tmp_path, tiny_bert, line, message):
    rows = tmp_path / "rows.txt"
    rows.write_text(f"# an ablation\nfirst={tiny_bert}\n\n{line.format(tiny=tiny_bert)}\n")
    with pytest.raises(InputError, match=message) as caught:
        read_rows(rows, ["de-en"])
    assert caught.value.path == str(rows) and caught.value.line == 4


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_an_ablation_is_a_rows_file_scored_side_by_side(tmp_path, wmt17_data, tiny_bert, capsys):
    rows = tmp_path / "ablation.rows"
    rows.write_text(f"with sentence={tiny_bert}:sentence=0.5\n"
                    f"without={tiny_bert}:sentence=0  # the term left out\n")
    out = tmp_path / "report"
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--row", f"xm={tiny_bert}",
                 "--rows", str(rows), "--layer", "1", "--bootstrap", "30", "--no-baselines",
                 "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    # the first row is compared with every other: a paired difference with its interval
    assert "with sentence ⊕ sentence/de-en/diff_lo" in metrics
    # a row that weighs the sentence term at 0 is XMoverScore alone: the first row's numbers
    assert metrics["without/avg/pearson"] == pytest.approx(metrics["xm/avg/pearson"])
    assert metrics["with sentence ⊕ sentence/avg/pearson"] != metrics["xm/avg/pearson"]
    signed = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in text.splitlines()
              if ": xmoverscore|" in line}
    assert "sent:" in signed["with sentence ⊕ sentence"] and "sent:" not in signed["without"]


def test_two_rows_with_one_label_are_refused_before_anything_loads(tmp_path, wmt17_data,
                                                                   tiny_bert, capsys):
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--row", f"a={tiny_bert}",
                 f"a={tiny_bert}:none", "--out", str(tmp_path / "o")]) == 2
    assert "two rows are labelled 'a'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
