import pytest
import torch

from tests.conftest import EN, ES
from train.cli import main


def test_plot_overlap_and_curves(tmp_path, tiny_bert):
    pytest.importorskip("matplotlib")
    from alignment.encoding.encoder import load_encoder
    from alignment.export.remapped import export_remapped
    from alignment.mappings import fit_composition
    from alignment.export.provenance import DataProvenance
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    mapping = fit_composition(PairMoments.of(torch.randn(50, 32), torch.randn(50, 32)), "center > clp")
    export_remapped(tmp_path / "exp", mapping, DataProvenance(
        load_encoder(str(tiny_bert)).identity(), src_lang="es", tgt_lang="en"))
    (tmp_path / "s").write_text("\n".join(ES) + "\n")
    (tmp_path / "t").write_text("\n".join(EN) + "\n")
    (tmp_path / "metrics.csv").write_text("epoch,step,semantic,train_loss\n0,9,0.5,\n0,9,,2.0\n1,19,0.6,\n1,19,,1.5\n")
    assert main(["plot", "--encoder", str(tmp_path / "exp"), "--src", str(tmp_path / "s"), "--tgt",
                 str(tmp_path / "t"), "--metrics", str(tmp_path / "metrics.csv"), "--out",
                 str(tmp_path / "plots")]) == 0
    for name in ("overlap.png", "curves.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert main(["plot", "--out", str(tmp_path)]) == 2


def test_the_overlap_picture_labels_its_axes_and_names_the_languages(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import numpy as np

    import train.runs.figures as plot

    figures = []

    def keep(fig, path, dpi=120):
        figures.append(fig)
        return path

    monkeypatch.setattr(plot, "save_figure", keep)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(20, 4)), rng.normal(size=(20, 4))
    plot.plot_overlap(a, b, a, b, tmp_path / "o.png", "t", src_lang="es", tgt_lang="en")
    for ax in figures[0].axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any(label.startswith("es") for label in labels)
        assert any(label.startswith("en") for label in labels)
