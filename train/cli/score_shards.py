"""``crossalign score`` at scale: the pairs streamed from files in shards, the shards spread over
processes by Lightning (``--devices``, ``--num-nodes``, torchrun, SLURM), each shard's scores
kept as it is done, a rerun resuming from them, and the merge printed in input order."""
from __future__ import annotations

import argparse
import sys

from alignment.errors import InputError

from .options import add_old_name

DEFAULT_SHARD_SIZE = 1000


def add_shard_options(p: argparse.ArgumentParser) -> None:
    """The options of a run in shards (any of them makes the run one)."""
    p.add_argument("--pairs-file", dest="pairs", metavar="FILE",
                   help="the pairs in one file instead of --src/--hyp: "
                   "TSV (source TAB hypothesis a line) or .jsonl ({\"src\": …, \"hyp\": …} a "
                   "line); read a shard at a time (a run in shards)")
    add_old_name(p, "--pairs", "--pairs-file", "pairs")  # the former name, with a note
    p.add_argument("--devices", help="score in shards over this many processes (a count, a list "
                   "such as 0,1, or auto): GPUs where --device is cuda or a GPU is there, else "
                   "CPU processes; under torchrun or SLURM, the processes per node")
    p.add_argument("--num-nodes", type=int, default=1, help="machines taking part (a run in "
                   "shards; default 1)")
    p.add_argument("--shards", metavar="DIR", help="keep each shard's scores here (a run in "
                   "shards; default: a folder in the cache named by the input and the setting): "
                   "the same command run again scores only the shards not yet there")
    p.add_argument("--shard-size", type=int, default=DEFAULT_SHARD_SIZE,
                   help=f"pairs a shard (default {DEFAULT_SHARD_SIZE})")


def in_shards(args: argparse.Namespace) -> bool:
    """Whether the options ask for a run in shards."""
    return bool(args.pairs or args.devices or args.shards or args.num_nodes != 1)


def check_shard_options(args: argparse.Namespace) -> None:
    """What a run in shards cannot do, refused before anything is read or loaded."""
    if args.pairs and (args.src or args.hyp):
        raise InputError("give --pairs-file, or --src and --hyp, not both",
                         parameter="pairs-file")
    if not args.pairs and not (args.src and args.hyp):
        raise InputError("give --src and --hyp (or --pairs-file)", parameter="src" if not args.src
                         else "hyp")
    if not in_shards(args):
        return
    for flag, given in (("hyp", args.hyp and len(args.hyp) > 1), ("paired-bs", args.paired_bs),
                        ("consensus", args.consensus), ("words", args.words)):
        if given:
            raise InputError("a run in shards scores one system's segments: run it once per "
                             "system (then compare the outputs), or leave out the shard options",
                             parameter=flag)
    if args.precision == "int8":
        raise InputError("int8 scales activations over a batch, so a shard's scores would "
                         "depend on its neighbours: use fp32 or bf16 in shards",
                         parameter="precision")
    if args.num_nodes < 1:
        raise InputError(f"must be >= 1, got {args.num_nodes}", parameter="num-nodes")
    from train.ground.cluster import in_cluster

    if args.num_nodes > 1 and not in_cluster():
        raise InputError(f"{args.num_nodes} machines need a cluster that starts this command on "
                         "each (SLURM, torchrun, LSF, MPI, or MASTER_ADDR and NODE_RANK set on "
                         "every machine); none here, so the run would wait for machines that "
                         "never come", parameter="num-nodes")
    devices = (args.devices or "1").strip()
    if devices != "auto" and not (devices.isdigit() and int(devices) >= 1 or all(
            p.strip().isdigit() for p in devices.split(",")) and "," in devices):
        raise InputError(f"must be a count >= 1, a list such as 0,1, or auto; got "
                         f"'{args.devices[:40]}'", parameter="devices")
    import os

    count = int(devices) if devices.isdigit() else len(devices.split(",")) if "," in devices \
        else 1
    cores = os.cpu_count() or 1
    if not _on_gpu(args) and count > cores:
        raise InputError(f"{count} CPU processes on a machine with {cores} cores: give at most "
                         f"{cores}", parameter="devices")


def _on_gpu(args: argparse.Namespace) -> bool:
    """Whether the shards go to GPUs (``--device cuda…``, or a GPU there and no --device)."""
    if (args.device or "").startswith("cuda"):
        return True
    if args.device:
        return False
    import torch

    return torch.cuda.is_available()


def trainer_for(args: argparse.Namespace):
    """The Lightning trainer that spreads the shards: Lightning's answer to the devices asked
    for, before any model loads."""
    import logging

    import pytorch_lightning as pl
    import torch

    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(logging.WARNING)
    devices = (args.devices or "1").strip()
    from train.ground.distributed import BoundedDDPStrategy

    devices = int(devices) if devices.isdigit() else devices
    gpu = _on_gpu(args)
    many = args.num_nodes > 1 or devices == "auto" or not isinstance(devices, int) or devices > 1
    try:  # Lightning's bars write to stdout, which holds the scores: ScoreShards has its own
        return pl.Trainer(accelerator="gpu" if gpu else "cpu", devices=devices,
                          num_nodes=args.num_nodes,
                          strategy=BoundedDDPStrategy() if many else "auto",
                          logger=False, enable_checkpointing=False, enable_model_summary=False,
                          enable_progress_bar=False, use_distributed_sampler=False)
    except (ValueError, TypeError, RuntimeError) as err:
        raise InputError(str(err).strip().splitlines()[0], parameter="devices") from None


def run_in_shards(args: argparse.Namespace) -> None:
    """Check and index the input, build the run's trainer and scorer, score the shards left,
    and (process 0) print the merged scores as ``score`` prints one system's."""
    import hashlib
    from pathlib import Path

    from alignment.data.cache import default_cache_dir
    from alignment.xmover.shards import PairFiles, ShardStore, run_digest

    from train.data.sharded_scoring import score_in_shards
    from train.ground.distributed import end_process_group
    from .score_output import render
    from .scorer_options import build_scorer

    files = PairFiles(args.src, args.hyp[0] if args.hyp else None, args.pairs)
    shards = files.shards(args.shard_size)  # every line checked before anything loads
    trainer = trainer_for(args)
    first = trainer.is_global_zero
    quiet = args.quiet or not first

    def build(device: str):
        args.device = device
        return build_scorer(args, quiet=True)

    signature = build("cpu" if not (args.device or "").startswith("cuda") else args.device).signature
    folder = Path(args.shards) if args.shards else default_cache_dir() / "shards" / \
        hashlib.sha256(f"{signature}|{run_digest(shards)}".encode()).hexdigest()[:20]
    store = ShardStore(folder, signature, files, shards).open(own=not args.shards)
    for note in store.notes if not quiet else []:
        print(f"crossalign: note: {note}", file=sys.stderr)
    damaged = [s.name for s in shards if store.damaged(s)]
    todo = [s for s in shards if not store.finished(s)]
    if not quiet:
        done = len(shards) - len(todo)
        print(f"crossalign: {sum(s.count for s in shards)} pairs in {len(shards)} shards of "
              f"{args.shard_size} in {folder}" + (f"; {done} already scored, resumed" if done
                                                  else ""), file=sys.stderr)
        if damaged:
            print(f"crossalign: note: {len(damaged)} kept shard files were damaged or of other "
                  f"text ({', '.join(damaged[:3])}{', …' if len(damaged) > 3 else ''}): scored "
                  "again", file=sys.stderr)
    from train.ground.cluster import Watchdog

    if todo:  # nothing left: no processes started (and no warning of an empty loader)
        with Watchdog(lambda: getattr(trainer.strategy.launcher, "procs", None) or []):
            try:
                score_in_shards(trainer, build, files, store, todo, progress=not quiet)
            except RuntimeError as err:
                if "timed out" not in str(err).lower() and "timeout" not in str(err).lower():
                    raise
                from train.ground.cluster import PEER_TIMEOUT_ENV, peer_timeout

                raise InputError(f"a peer process did not answer within {peer_timeout()} s; "
                                 "the shards finished are kept (run the same command again); "
                                 f"{PEER_TIMEOUT_ENV} sets the wait", parameter="devices") from None
    if first:
        result = store.merged()
        name = args.pairs or args.hyp[0]
        print(render([result], [name], args.format, args.score_only))
        if args.score_only and args.format != "json" and not args.quiet:
            print(f"# {result.signature}", file=sys.stderr)
        if result.empty_hypotheses and not args.quiet:
            print(f"crossalign: note: {result.empty_hypotheses} of {len(result.final)} "
                  "hypotheses are empty; scored as the formula defines them (special tokens "
                  "only)", file=sys.stderr)
    end_process_group()
