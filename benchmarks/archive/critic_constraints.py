"""GAN-Real-NVP in the CBLI simulation with each critic constraint (spectral normalisation, the
default; the two-sided and the one-sided gradient penalty), with and without the density term
(the paper's objective has it; the default does not) and each start (the identity, or a
linear adversarial start then the flow), per seed, at t = 1 and k = 20 and 100 clusters — through the
product's own `crossalign simulate`, changing only those settings.

    python benchmarks/archive/critic_constraints.py                       # seeds 0 1 2, k 20 100; table + JSON
    python benchmarks/archive/critic_constraints.py --seeds 0 --ks 20     # one run per variant
    python benchmarks/archive/critic_constraints.py --only-true-start     # each variant started at the true map
    python benchmarks/archive/critic_constraints.py --summarise benchmarks/results/critic.json   # reprint

Every run uses one torch thread (a trained map's digits depend on the count) and two run at a
time. Prints P@1 per seed, the mean with a 95% t-interval, P@1 after Algorithm 1 (3 rounds,
adversarial refit, the round chosen by the semantic criterion) with its induced lexicon's
precision per round, and the validation MMD² at the start and at the selected epoch."""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the settings of the re-run that issue 41 reports (small flow and critic, 2,000 map updates)
# each row states its critic, density-term weight and start (the defaults: spectral, 0, none)
BASE = ("gan_realnvp:lr=0.0001,critic_lr=0.001,transforms=4,hidden=64,critic_hidden=64,"
        "critic_steps=5")
CRITICS = {"spectral, density 0.1": "lipschitz=spectral,nll_weight=0.1",
           "penalty, density 0.1": "lipschitz=penalty,nll_weight=0.1",
           "one-sided, density 0.1": "lipschitz=one_sided,nll_weight=0.1",
           "spectral (default)": "lipschitz=spectral,nll_weight=0",
           "penalty": "lipschitz=penalty,nll_weight=0",
           "penalty, weight 1": "lipschitz=penalty,gp_weight=1,nll_weight=0",
           "spectral, density 0.1, linear": "lipschitz=spectral,nll_weight=0.1,linear_steps={half}",
           "spectral, linear start": "lipschitz=spectral,nll_weight=0,linear_steps={half}"}
# "linear": the first half of the budget trains a linear map (linear_steps), the rest the flow


def variant(critic: str, map_steps: int) -> str:
    """The method string of a row of ``CRITICS`` at a budget of ``map_steps`` map updates."""
    return f"{BASE},{CRITICS[critic].format(half=map_steps // 2)}"
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}  # two-sided 95% t quantiles


def one_run(critic: str, k: int, seed: int, map_steps: int, rounds: int, work: Path) -> dict:
    """One `crossalign simulate` run; its metrics."""
    out = work / f"{list(CRITICS).index(critic)}-k{k}-s{seed}"
    cmd = [sys.executable, "-m", "train.cli", "simulate", "--threads", "1", "--t", "1", "--k",
           str(k), "--eps", "0", "--seeds", str(seed), "--epochs", "20", "--methods", "clp",
           "--unsupervised", "--rounds", str(rounds), "--self-training-refit", "adversarial",
           "--gan-map-steps", str(map_steps),
           "--gan-method", variant(critic, map_steps), "--out", str(out), "--no-progress"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    m = json.loads((out / "metrics.json").read_text())
    key = f"t1/k{k}"
    return {"critic": critic, "k": k, "seed": seed,
            "p1": 100 * m[f"gan_realnvp (unpaired)/{key}/eps0"],
            "p1_self_training": 100 * m[f"gan_realnvp + Algorithm 1 (unpaired)/{key}/eps0"],
            "induced_precision": [100 * m[f"gan_realnvp + Algorithm 1 (unpaired)/{key}/precision_r{r}"]
                                  for r in range(1, rounds + 1)],
            "clp_supervised": 100 * m[f"clp/{key}/eps0"],
            "mmd_start": m[f"gan_realnvp (unpaired)/{key}/mmd_start"],
            "mmd_selected": m[f"gan_realnvp (unpaired)/{key}/mmd_selected"]}


def true_start_run(critic: str, k: int, seed: int, map_steps: int) -> dict:
    """The same GAN started at the answer: the sources pre-mapped by the true map T (t = 1: a
    rotation), so the flow's identity start *is* T. P@1 of the map after the last update (no
    epoch selection, which could hide a drift by keeping an early epoch): a stable objective
    keeps it near 100. Also what the final critic h says: the map loss −E[h(·)] at the true map
    and at the drifted one, and ‖∇h‖ at the target rows, the mapped rows and interpolates."""
    import numpy as np
    import torch

    from alignment.data.simulation import rotation, simulate, word_p1
    from alignment.mappings import parse_method
    from alignment.unsupervised.critic import interpolate_gradient_norms
    from train.experiments.unpaired_simulation import BATCH
    from train.fitting.in_process import fit_module
    from train.ground.trainer import epochs_for_updates
    from train.data.unpaired import UnpairedVectorDataModule

    torch.set_num_threads(1)
    theta = np.random.default_rng(seed + 10_007).uniform(0.3, 1.2)  # simulate's T at t = 1
    rot = rotation(theta).T.astype(np.float32)
    data = simulate(1, k, 0.0, seed=seed)
    x_train, x_val, x_test = data.x_train @ rot, data.x_val @ rot, data.x_test @ rot
    rng = np.random.default_rng(seed + 1000)
    y = data.y_train[rng.permutation(len(data.y_train))]
    val = (x_val, data.y_val[rng.permutation(len(data.y_val))])
    torch.manual_seed(seed)
    dm = UnpairedVectorDataModule.from_arrays(x_train, y, val=val, batch_size=BATCH,
                                              shuffle=True, seed=seed)
    spec = parse_method(variant(critic, map_steps), "gan_method")
    epochs = epochs_for_updates(map_steps * 5, len(y), BATCH)  # a bound; steps decide
    module = fit_module(spec, dm, epochs, callbacks=[], map_steps=map_steps)
    gan, h = module.mapping.eval(), module.critic.eval()
    start = 100 * word_p1(x_test, data.y_test, data.word_test, data.word_test)
    with torch.no_grad():
        mapped = gan(torch.from_numpy(x_test)).numpy()
        targets = gan.map_target(torch.from_numpy(data.y_test)).numpy()
    real, true_map = torch.from_numpy(y), torch.from_numpy(x_train)
    with torch.no_grad():
        drifted = gan(true_map)

    def grad_norm(v: torch.Tensor) -> float:
        v = v.detach().clone().requires_grad_(True)
        grad, = torch.autograd.grad(h(v).sum(), v)
        return float(grad.norm(dim=1).mean())

    with torch.no_grad():
        loss_true, loss_drift = float(-h(true_map).mean()), float(-h(drifted).mean())
        h_real = float(h(real).mean())
    return {"critic": critic, "k": k, "seed": seed, "start": start,
            "p1_last": 100 * word_p1(mapped, targets, data.word_test, data.word_test),
            "map_loss_true": loss_true, "map_loss_drifted": loss_drift,
            "w_true": h_real + loss_true, "w_drifted": h_real + loss_drift,
            "grad_target": grad_norm(real), "grad_drifted": grad_norm(drifted),
            "grad_interpolates": float(interpolate_gradient_norms(h, real, drifted).mean())}


def mean_interval(values: list[float]) -> str:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return f"{mean:5.1f}"
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return f"{mean:5.1f} ± {T_975.get(n - 1, 1.96) * sd / math.sqrt(n):4.1f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--ks", type=int, nargs="+", default=[20, 100])
    p.add_argument("--map-steps", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=3, help="Algorithm 1 rounds (default: 3)")
    p.add_argument("--jobs", type=int, default=2, help="runs at a time (default: 2)")
    p.add_argument("--true-start", action="store_true",
                   help="also start each critic's GAN at the true map (k = 20)")
    p.add_argument("--only-true-start", action="store_true",
                   help="only the true-map starts (not the k grid)")
    p.add_argument("--critics", nargs="+", choices=list(CRITICS), default=list(CRITICS),
                   help="which critics (default: all)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "critic.json"))
    p.add_argument("--summarise", nargs="+", metavar="JSON",
                   help="print the tables of earlier runs (their JSON files) instead of running")
    args = p.parse_args()
    if args.summarise:
        results = [json.loads(Path(f).read_text()) for f in args.summarise]
        runs = [r for res in results for r in res["runs"]]
        starts = [r for res in results for r in res["true_start"]]
        print_tables(runs, starts, results[0]["map_steps"], results[0]["rounds"])
        return
    work = Path(tempfile.mkdtemp(prefix="crossalign-critic-"))
    args.true_start |= args.only_true_start
    if args.only_true_start:
        args.ks = []
    plan = [(c, k, s) for k in args.ks for c in args.critics for s in args.seeds]
    with ThreadPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(lambda a: one_run(*a, args.map_steps, args.rounds, work), plan))
    starts: list[dict] = []
    if args.true_start:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            starts = list(pool.map(true_start_run, *zip(*[(c, 20, s, args.map_steps)
                                                          for c in args.critics
                                                          for s in args.seeds])))
    for r in runs + starts:
        r["settings"] = variant(r["critic"], args.map_steps)
    print_tables(runs, starts, args.map_steps, args.rounds)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"base": BASE, "map_steps": args.map_steps,
                               "rounds": args.rounds, "runs": runs,
                               "true_start": starts}, indent=2))
    print(f"wrote {out}")


def print_tables(runs: list[dict], starts: list[dict], map_steps: int, rounds: int) -> None:
    """The k grid (per variant: P@1 per seed, mean ± t-interval, after Algorithm 1, induced
    precision per round, MMD²) and the true-map starts with the final critic's readings."""
    critics = [c for c in CRITICS if any(r["critic"] == c for r in runs + starts)]
    print(f"GAN-Real-NVP, CBLI simulation t = 1, {map_steps} map updates, {BASE}; "
          f"P@1 (%) per seed, mean ± 95% t-interval; + Algorithm 1: {rounds} rounds; "
          "induced %: its lexicon's precision per round, mean over seeds")
    print(f"{'k':>4}  {'critic / start':<30} {'P@1 per seed':<22} {'mean':>12}  {'+Alg.1':>12}  "
          f"{'induced % per round':>20}  {'MMD² start→selected':>20}")
    for k in sorted({r["k"] for r in runs}):
        for critic in critics:
            rs = sorted((r for r in runs if r["critic"] == critic and r["k"] == k),
                        key=lambda r: r["seed"])
            if not rs:
                continue
            per = ", ".join(f"{r['p1']:.1f}" for r in rs)
            induced = " → ".join(f"{sum(p) / len(p):.1f}"
                                 for p in zip(*(r["induced_precision"] for r in rs)))
            mmd = (f"{sum(r['mmd_start'] for r in rs) / len(rs):+.4f} → "
                   f"{sum(r['mmd_selected'] for r in rs) / len(rs):+.4f}")
            print(f"{k:>4}  {critic:<30} {per:<22} {mean_interval([r['p1'] for r in rs]):>12}  "
                  f"{mean_interval([r['p1_self_training'] for r in rs]):>12}  {induced:>20}  {mmd:>20}")
    if not starts:
        return
    print(f"\nstarted at the true map (k = 20): P@1 at the start → after the last of "
          f"{map_steps} map updates (no epoch selection), per seed")
    for critic in critics:
        rs = sorted((r for r in starts if r["critic"] == critic), key=lambda r: r["seed"])
        print(f"  {critic:<30} " + ", ".join(f"{r['start']:.0f} → {r['p1_last']:.1f}"
                                              for r in rs))
    print("\nthe final critic h (mean over seeds): map loss −E[h] at the true map and at the "
          "drifted map; the critic's distance E[h(y)] − E[h(·)]; mean ‖∇h‖ at the target "
          "rows, the drifted rows and interpolates")
    for critic in critics:
        rs = [r for r in starts if r["critic"] == critic]
        mean = lambda key: sum(r[key] for r in rs) / len(rs)  # noqa: E731
        print(f"  {critic:<30} loss true {mean('map_loss_true'):+.3f}  drifted "
              f"{mean('map_loss_drifted'):+.3f} | distance true {mean('w_true'):.3f}  drifted "
              f"{mean('w_drifted'):.3f} | ‖∇h‖ target {mean('grad_target'):.2f}  drifted "
              f"{mean('grad_drifted'):.2f}  interpolates {mean('grad_interpolates'):.2f}")


if __name__ == "__main__":
    main()
