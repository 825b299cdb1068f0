"""``crossalign plot``: the subspace-overlap picture (2-D PCA of source, mapped source and target
vectors) and training curves from a run's CSV log."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from alignment.errors import InputError

        raise InputError("plotting needs matplotlib (pip install 'crossalign[plot]')",
                         parameter="plot") from None
    return plt


def save_figure(fig, path: str | Path, dpi: int = 120) -> Path:
    """Lay out, write (atomically) and close a figure."""
    from alignment.atomic import atomic_path

    path = Path(path)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=path.suffix.lstrip(".") or "png")
    _pyplot().close(fig)
    return path


def pca_2d(fit_on: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and the top two principal directions of ``fit_on``."""
    mean = fit_on.mean(0)
    _, _, vt = np.linalg.svd(fit_on - mean, full_matrices=False)
    return mean, vt[:2].T


def plot_overlap(src: np.ndarray, tgt: np.ndarray, mapped_src: np.ndarray, mapped_tgt: np.ndarray,
                 path: str | Path, title: str = "", src_lang: str = "source",
                 tgt_lang: str = "target") -> Path:
    """Before and after panels in one PCA basis (fitted on all four point sets); the legend and
    axes name the languages."""
    plt = _pyplot()
    mean, basis = pca_2d(np.concatenate([src, tgt, mapped_src, mapped_tgt]))
    proj = lambda v: (v - mean) @ basis  # noqa: E731
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), sharex=True, sharey=True)
    for ax, (name, s, t) in zip(axes, (("before", src, tgt), ("after", mapped_src, mapped_tgt))):
        ps, pt = proj(s), proj(t)
        ax.scatter(pt[:, 0], pt[:, 1], s=3, alpha=0.35, label=f"{tgt_lang} (target)",
                   color="tab:blue")
        ax.scatter(ps[:, 0], ps[:, 1], s=3, alpha=0.35, label=f"{src_lang} (source"
                   + (", mapped)" if name == "after" else ")"), color="tab:red")
        ax.set_title(f"{name} mapping")
        ax.set_xlabel("principal component 1")
        ax.set_ylabel("principal component 2")
        ax.legend(markerscale=4)
    fig.suptitle(title)
    return save_figure(fig, path)


def plot_curves(metrics_csv: str | Path, path: str | Path) -> Path:
    """Every epoch-level series in a Lightning CSV log (loss, criteria, held-out P@1)."""
    plt = _pyplot()
    series: dict[str, list[tuple[float, float]]] = {}
    with open(metrics_csv, newline="") as fh:
        for row in csv.DictReader(fh):
            epoch = row.get("epoch")
            for k, v in row.items():
                if k in ("epoch", "step") or v in ("", None) or epoch in ("", None):
                    continue
                series.setdefault(k, []).append((float(epoch), float(v)))
    names = sorted(series)
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3), squeeze=False)
    for ax, name in zip(axes[0], names):
        pts = sorted(series[name])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o")
        ax.set_title(name)
        ax.set_xlabel("epoch")
        ax.set_ylabel(name)
    return save_figure(fig, path)
