"""Self-training (Zhao & Eger 2022, Algorithm 1, which the paper calls bootstrapping): rounds
of map → induce a lexicon by CSLS on the two monolingual pools → refit, keeping the round the label-free semantic criterion
prefers. A linear map is refitted here by Procrustes (MUSE's refinement); a flow by the
trainer the caller passes (``refit_flow``), so this loop needs no training framework: either
as published (``refit="adversarial"``: the adversarial objective on the two pools plus the
constraint g on the induced pairs) or ``refit="supervised"`` (density matching on the induced
pairs plus g; crossalign's variant, no adversarial term). Each round can be saved, so a run
resumes where it stopped. Where the truth is known, each round also reports the induced
lexicon's precision (reporting only, never selection)."""
from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from alignment.catalogue import check_choice
from alignment.atomic import write_text
from .constraints import get_constraint
from alignment.evaluation.criteria import semantic_criterion
from alignment.evaluation.csls import induce_pairs
from alignment.errors import InputError
from alignment.evaluation.retrieval import apply_mapping
from alignment.mappings import LinearMap, Mapping, RealNVPMapping, load_mapping
from alignment.mappings.procrustes import procrustes
from alignment.mappings.staged import through_pre_stages, trainable_part

ROUND_FILE = "round.json"


REFITS = ("supervised", "adversarial")


@dataclass
class SelfTrainingConfig:
    """Algorithm 1's settings (paper: 10 rounds in simulation, 3 on real data). A flow is
    refitted ``refit``: ``adversarial`` (the paper's: GAN-Real-NVP's objective on the two pools
    + ``constraint_weight`` × g on a batch of induced pairs, ``map_steps`` map updates a round
    after ``critic_warmup`` updates of a fresh critic, the GAN's settings in ``adversarial``)
    or ``supervised`` (density matching ‖f(x) − y‖² on the induced pairs + g, ``epochs``, +
    ``nll_weight`` × the density term; the adversarial refit takes the GAN's, from
    ``adversarial`` or its default). Both use ``lr`` and ``batch_size``. The constraints are means (over
    dimensions, entries or pairs) where the paper's Eq. 4–5 are sums: cross-correlation at
    weight w is the paper's at w / d."""

    rounds: int = 3
    top: int = 10000                 # most confident induced pairs kept per round
    mutual: bool = True              # mutual CSLS nearest neighbours only
    csls_k: int = 10
    constraint: str = "cross_correlation"   # flows: cross_correlation, graph, procrustes
    constraint_weight: float = 1.0
    refit: str = "supervised"        # flows: supervised, adversarial (Algorithm 1 as published)
    epochs: int = 3                  # supervised refit: epochs over the induced pairs a round
    map_steps: int = 500             # adversarial refit: map updates a round
    critic_warmup: int = 100         # adversarial refit: critic updates before the first map step
    adversarial: dict = field(default_factory=dict)  # adversarial refit: GanRealNVPFit settings
    lr: float = 1e-4
    nll_weight: float = 0.1          # supervised refit: weight of the density term
    batch_size: int = 512
    seed: int = 0

    def check(self) -> None:
        if self.rounds < 1:
            raise InputError(f"must be >= 1, got {self.rounds}", parameter="rounds")
        if self.top < 2:
            raise InputError(f"must be >= 2, got {self.top}", parameter="top")
        if self.csls_k < 1:
            raise InputError(f"must be >= 1, got {self.csls_k}", parameter="csls_k")
        check_choice(self.refit, REFITS, "refit")
        if self.map_steps < 1 or self.critic_warmup < 0:
            raise InputError(f"map_steps must be >= 1 and critic_warmup >= 0, got "
                             f"{self.map_steps}, {self.critic_warmup}",
                             parameter="map_steps" if self.map_steps < 1 else "critic_warmup")
        get_constraint(self.constraint)


@dataclass
class RoundRecord:
    """What one round did: induced pairs kept, the semantic criterion after the refit, and the
    share of the induced pairs that are true translations (None where nothing says which are)."""

    round: int
    lexicon: int
    semantic: float
    precision: float | None = None


# (induced source rows, induced target rows) → the share of those pairs that are translations
Judge = Callable[[np.ndarray, np.ndarray], float]


def label_judge(src_labels: np.ndarray, tgt_labels: np.ndarray) -> Judge:
    """Precision against known labels: a pair is true when both rows carry the same label
    (the index of the aligned pair a row came from, or a simulated word's id)."""
    src_labels, tgt_labels = np.asarray(src_labels), np.asarray(tgt_labels)
    return lambda q, k: float(np.mean(src_labels[q] == tgt_labels[k])) if len(q) else float("nan")


def lexicon_judge(src_words: list[str], tgt_words: list[str],
                  lexicon: dict[str, list[str]]) -> Judge:
    """Precision against a bilingual dictionary (source word → translations): the pair (word
    of source row, word of target row) is one of its entries (case-insensitive)."""
    entries = {(s.lower(), t.lower()) for s, ts in lexicon.items() for t in ts}
    src = [w.lower() for w in src_words]
    tgt = [w.lower() for w in tgt_words]
    return lambda q, k: (float(np.mean([(src[i], tgt[j]) in entries for i, j in zip(q, k)]))
                         if len(q) else float("nan"))


# (mapping to continue, induced source rows, induced target rows, config, round folder,
#  (source pool, target pool)) → the refitted mapping
FlowRefit = Callable[[Mapping, np.ndarray, np.ndarray, SelfTrainingConfig, Path,
                      tuple[np.ndarray, np.ndarray]], Mapping]


def induce_lexicon(mapping: Mapping, x_pool: np.ndarray, y_pool: np.ndarray,
                   cfg: SelfTrainingConfig) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the ``top`` most confident CSLS pairs between f(X) and Y (mutual nearest
    neighbours with ``cfg.mutual``)."""
    mapped = torch.from_numpy(apply_mapping(mapping, x_pool, "src"))
    tgt = torch.from_numpy(apply_mapping(mapping, y_pool, "tgt"))
    q, k, _ = induce_pairs(mapped, tgt, "csls", cfg.csls_k, cfg.mutual)
    return q[:cfg.top].numpy(), k[:cfg.top].numpy()


def refit_linear(mapping: Mapping, x: np.ndarray, y: np.ndarray) -> None:
    """Procrustes refinement: W = UVᵀ from the induced pairs (after any pre-stages)."""
    part = trainable_part(mapping)
    xs, ys = through_pre_stages(mapping, torch.from_numpy(x).double(),
                                torch.from_numpy(y).double())
    part.set_weight(procrustes(xs.T @ ys))


def self_train(mapping: Mapping, x_pool: np.ndarray, y_pool: np.ndarray,
              val: tuple[np.ndarray, np.ndarray], cfg: SelfTrainingConfig | None = None,
              refit_flow: FlowRefit | None = None, run_dir: str | Path | None = None,
              progress: bool = False, judge: Judge | None = None
              ) -> tuple[Mapping, list[RoundRecord]]:
    """Run ``cfg.rounds`` rounds from ``mapping`` (a linear map, or a Real-NVP flow refitted
    by ``refit_flow``, possibly after closed-form stages) and return the round the semantic
    criterion on the unpaired validation pools ``val`` likes best (round 0 = the start) with
    every round's record. With ``run_dir``, rounds are saved in ``run_dir/round-N`` and a
    rerun resumes. ``judge`` scores each round's induced pairs (reported, never selecting)."""
    cfg = cfg or SelfTrainingConfig()
    cfg.check()
    part = trainable_part(mapping)
    if not isinstance(part, (LinearMap, RealNVPMapping)):
        raise InputError(f"self-training refits a linear map or a Real-NVP flow, not "
                         f"'{mapping.describe()}'", parameter="mapping")
    if isinstance(part, RealNVPMapping) and refit_flow is None:
        raise InputError("a flow is refitted by a trainer: pass refit_flow "
                         "(train.unsupervised.self_training.self_train does)", parameter="refit_flow")
    run_dir = Path(run_dir) if run_dir is not None else None

    def criterion(m: Mapping) -> float:
        return semantic_criterion(torch.from_numpy(apply_mapping(m, val[0], "src")),
                                  torch.from_numpy(apply_mapping(m, val[1], "tgt")))

    records = [RoundRecord(0, 0, criterion(mapping))]
    best, best_score = mapping, records[0].semantic
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(1, cfg.rounds + 1):
            round_dir = (run_dir or Path(scratch)) / f"round-{r}"
            done = round_dir / ROUND_FILE
            if run_dir is not None and done.is_file():
                record = RoundRecord(**json.loads(done.read_text()))
                mapping = load_mapping(round_dir / "mapping")
            else:
                q, k = induce_lexicon(mapping, x_pool, y_pool, cfg)
                mapping = copy.deepcopy(mapping)
                if isinstance(part, LinearMap):
                    refit_linear(mapping, x_pool[q], y_pool[k])
                else:
                    mapping = refit_flow(mapping, x_pool[q], y_pool[k], cfg, round_dir,
                                         (x_pool, y_pool))
                record = RoundRecord(r, int(len(q)), criterion(mapping),
                                     judge(q, k) if judge is not None else None)
                if run_dir is not None:
                    mapping.save(round_dir / "mapping")
                    write_text(done, json.dumps(asdict(record), indent=2))
            records.append(record)
            if progress:
                correct = "" if record.precision is None else \
                    f" ({100 * record.precision:.1f}% true translations)"
                print(f"  round {r}: {record.lexicon} induced pairs{correct}, semantic "
                      f"{record.semantic:.4f}", flush=True)
            if record.semantic > best_score:
                best, best_score = mapping, record.semantic
    return best, records
