"""Options and construction shared by every verb that scores with XMoverScore."""
from __future__ import annotations

import argparse
import sys

from .options import add_old_name
from .runtime_options import add_runtime_options, runtime_of


class _Formula(argparse.Action):
    """``--formula``; the old spelling ``--version`` still works, with a note."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        if option_string == "--version":
            namespace.old_formula_flag = True


def add_scorer_options(p: argparse.ArgumentParser, encoder_required: bool = True,
                       many: bool = False) -> None:
    """``score``'s (and ``w2w``'s, ``challenge``'s) flags: the encoder, what only one scorer
    takes (a public map file, the languages, idf corpora, the LM), and ``add_setting_options``;
    ``many``: several encoders and formulas (one table row each)."""
    p.add_argument("--encoder", required=encoder_required, nargs="+" if many else None,
                   help="a crossalign export (a name such as wmt17/de-en, or a folder), or an HF "
                   "encoder name or path" + (" (several)" if many else ""))
    p.add_argument("--mapping", help="public XMoverScore .BAM (CLP) or .GBDD (UMD) file, applied "
                   "to the source side (as the public code does)")
    p.add_argument("--mapping-both-sides", action="store_true",
                   help="apply the mapping to the hypothesis too (UMD as the paper defines it)")
    p.add_argument("--public-gbdd", action="store_true",
                   help="apply a .GBDD as the public code does (its [0] index subtracts one "
                   "scalar from every component); only to reproduce published UMD numbers")
    p.add_argument("--src-lang", help="source language code, for the signature and the "
                   "language check (default: the export's)")
    p.add_argument("--tgt-lang", help="target language code (default: the export's)")
    p.add_argument("--idf-src", help="corpus (one sentence a line) for source idf weights")
    p.add_argument("--idf-hyp", help="corpus for hypothesis idf weights")
    p.add_argument("--lm", help="HF causal LM name/path for the fluency term (default: the "
                   "export's scoring configuration's, if it has one)")
    add_setting_options(p, many=many)


def add_setting_options(p: argparse.ArgumentParser, reuse_default: bool = False,
                        many: bool = False, grid: bool = False) -> None:
    """The one declaration of the options every verb that scores (``score``, ``evaluate
    NAME``, ``choose``, ``w2w``) takes: the formula, the layer, the n-gram size, each term's
    weight (``grid``: the weights ``choose`` searches), the reading, whether an export's own
    scoring configuration is used, and how fast (batch, device, processes, precision, reuse).
    A weight, the reading, the formula or the precision given here overrides the export's
    configuration (``alignment.xmover.configuration``; the signature's ``over:`` says so)."""
    from alignment.xmover.versions import DEFAULT_LAYERS

    p.add_argument("--formula", "--version", dest="version", default=["2022"] if many else None,
                   choices=sorted(DEFAULT_LAYERS), nargs="+" if many else None, action=_Formula,
                   help="XMoverScore formulation (default: the export's, else 2022; --version is "
                   "the old name of this option)")
    p.add_argument("--layer", type=int, help="hidden-state index (default: the export's; for a "
                   "plain encoder the formula's, " + ", ".join(
                       f"{v} {n}" for v, n in DEFAULT_LAYERS.items())
                   + ", or the encoder's last layer if it has fewer)")
    p.add_argument("--ngram", type=int, default=2, action=Given,
                   help="tokens per n-gram in the transport (default: 2); MoverScore v1 takes 1 unless given")
    if not grid:  # choose searches the weights: the candidates' own are never read
        p.add_argument("--setting", choices=["export", "none"], default="export",
                       help="export (default): score with an export's own scoring "
                       "configuration (its scoring.json: the setting its card measured), options "
                       "given overriding it; none: the defaults alone")
    if grid:
        add_grid_options(p)
        p.add_argument("--xmover-weight", type=float, default=1.0, metavar="W",
                       help="the candidates' XMoverScore weight (default 1; 0: the other terms "
                       "alone, the setting from English)")
        add_old_name(p, "--xmover-coef", "--xmover-weight", "xmover_weight", type=float)
    else:
        add_weight_options(p)
        add_sentence_options(p)
    add_runtime_options(p, reuse_default)


class Given(argparse.Action):
    """Stores the value and notes that it was given (``given_NAME``): a default that differs
    by metric (MoverScore v1's n-gram) yields to it only then."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"given_{self.dest}", True)


def scorer_kwargs(args: argparse.Namespace) -> dict:
    """The scorer's parameters the options give (the one mapping of options to a scorer;
    None: not given, so an export's configuration or the default holds), ``runtime`` apart."""
    return {"formula": args.version, "layer": args.layer, "ngram": args.ngram,
            "weights": given_weights(args),
            "sentence_layer": getattr(args, "sentence_layer", None),
            "sentence_map": getattr(args, "sentence_map", None), "read": args.read,
            "setting": getattr(args, "setting", "export"),
            "runtime": runtime_of(args)}


def given_weights(args: argparse.Namespace) -> dict[str, float]:
    """Every term's weight the options give: a term's own option (``--lm-weight``) or ``--term
    NAME=W``; a term not given is left to the configuration or its default."""
    from alignment.terms import TERMS

    own = {n: getattr(args, t.flag.lstrip("-").replace("-", "_"), None)
           for n, t in TERMS.items() if t.own_option}
    # ``--consensus`` is a switch of its own, not a weight
    return {**{n: v for n, v in own.items() if isinstance(v, float)}, **term_weights(args)}


def add_weight_options(p: argparse.ArgumentParser) -> None:
    """The weight of each term of the scoring setting (``alignment.terms``):
    ``--xmover-weight``, ``--lm-weight`` and ``--term NAME=W`` for a registered term (the
    sentence term's weight is ``add_sentence_options``'s)."""
    p.add_argument("--lm-weight", type=float, help="weight of the LM term (default: the "
                   "formula's: 2020 0.1, the paper's; 2022 0.01, chosen on MLQE-PE dev)")
    p.add_argument("--xmover-weight", type=float, metavar="W",
                   help="XMoverScore's own weight in the score (default 1); 0 leaves it out, "
                   "scoring with the sentence term and the LM alone — from English, the sentence "
                   "map alone is the row that agrees (docs/single_system.md)")
    p.add_argument("--term", action="append", metavar="NAME=W",
                   help="add a registered term with this weight (repeatable; "
                   "alignment.terms.register_term)")
    for term in ("xmover", "lm"):  # the former spellings, with a note
        add_old_name(p, f"--{term}-coef", f"--{term}-weight", f"{term}_weight", type=float)
    add_read_option(p)


def add_read_option(p: argparse.ArgumentParser) -> None:
    """``--read given|written``: how every term reads the MT outputs."""
    p.add_argument("--read", choices=["given", "written"],
                   help="read the MT outputs as given (the default without an export's "
                   "configuration) or as written: a tokeniser's "
                   "marks undone (WMT's released outputs: &apos; unescaped, ' , ' joined, a "
                   "lowercased output re-cased from its source); natural text is unchanged; "
                   "the signature says read:written")


def add_grid_options(p: argparse.ArgumentParser) -> None:
    """The weights ``choose`` searches, for every term of the setting."""
    from alignment.terms import TERMS

    for name in ("lm", "sentence"):
        p.add_argument(f"--{name}-weights", nargs="+", type=float,
                       default=list(TERMS[name].grid), help=f"{TERMS[name].label} weights "
                       "searched" + (" (0 alone: no sentence term)" if name == "sentence" else ""))
    p.add_argument("--term-weights", action="append", metavar="NAME=W,W,…",
                   help="a registered term and the weights searched for it (repeatable)")
    add_read_option(p)


def check_weights(args: argparse.Namespace, many: bool = False) -> None:
    """Every weight the options give, refused before anything loads (finite, >= 0; the error
    names the term's option)."""
    from alignment.terms import Setting

    term_weights(args, many)
    Setting.of(**given_weights(args))


def check_grid(args: argparse.Namespace) -> None:
    """``choose``'s searched weights, refused before any candidate is scored: each list of
    finite weights >= 0, none empty (the registered terms' by ``check_weights``)."""
    import math

    from alignment.errors import InputError

    check_weights(args, many=True)
    for name in ("lm", "sentence"):
        weights = getattr(args, f"{name}_weights", None) or []
        if not weights or any(not (math.isfinite(w) and w >= 0) for w in weights):
            raise InputError(f"weights must be finite and >= 0, got {weights}",
                             parameter=f"{name}-weights")


def term_weights(args: argparse.Namespace, many: bool = False) -> dict:
    """The registered terms' weights the options give (``many``: the lists to search)."""
    from alignment.terms import parse_term_weights

    found = parse_term_weights(getattr(args, "term_weights" if many else "term", None), many)
    return found if many else {k: v[0] for k, v in found.items()}


def add_sentence_options(p: argparse.ArgumentParser) -> None:
    """``--sentence-weight``/``--sentence-layer``/``--sentence-map``: the sentence-level term
    (``score``, ``evaluate``)."""
    p.add_argument("--sentence-weight", type=float,
                   help="add this × the sentence-level term: the cosine of source and hypothesis "
                   "sentence embeddings (mean over every token of --sentence-layer; e5's 'query: ' "
                   "prefix), through the sentence map where there is one (default: the map's "
                   "own weight, chosen on MLQE-PE dev; without a map 0, no term)")
    add_old_name(p, "--sentence-coef", "--sentence-weight", "sentence_weight", type=float)
    p.add_argument("--sentence-layer", type=int,
                   help="hidden-state index of the sentence-level term (default: the sentence "
                   "map's, else the last)")
    p.add_argument("--sentence-map",
                   help="a sentence map folder (crossalign train --sentence-map puts one in its "
                   "export) that moves one language's sentence embeddings to its translations'; "
                   "default: the export's own, if any; 'none': no map")


def check_scorer_options(args: argparse.Namespace) -> None:
    """Option values that can be refused before anything loads."""
    from alignment.errors import InputError

    if args.batch_size < 1:
        raise InputError("must be >= 1", parameter="batch-size")
    import os

    from alignment.encoding.device import resolve_device

    cores = os.cpu_count() or 1
    if args.jobs is not None and not 1 <= args.jobs <= 4 * cores:
        raise InputError(f"must be in [1, {4 * cores}] (4 × this machine's {cores} cores; more "
                         "processes only wait for each other)", parameter="jobs")
    device = resolve_device(getattr(args, "device", None))  # before anything loads
    from alignment.encoding.precision import asked_precision, check_precision

    check_precision(asked_precision(getattr(args, "precision", None)) or "fp32", device)
    if args.ngram < 1:
        raise InputError("must be >= 1", parameter="ngram")
    if bool(args.src_lang) != bool(args.tgt_lang):
        raise InputError("give both --src-lang and --tgt-lang, or neither", parameter="src-lang")
    check_weights(args)
    if args.public_gbdd and not args.mapping:
        raise InputError("--public-gbdd applies to a --mapping .GBDD file; none given",
                         parameter="public-gbdd")


def build_scorer(args: argparse.Namespace, quiet: bool = False, encoder: str | None = None,
                 version: str | None = None, consensus: bool = False, runtime=None):
    """The scorer the options describe (``encoder``/``version``: one of several given;
    ``consensus``: the consensus term weighs 1, each system against the others; ``runtime``:
    one shared with other scorers, so they load an encoder's weights once)."""
    from alignment.data.corpus import read_lines
    from alignment.evaluation.metrics import get_metric
    from alignment.xmover import compute_idf

    check_scorer_options(args)
    if getattr(args, "old_formula_flag", False) and not quiet:
        print("crossalign: note: --version is now --formula (the old name still works)",
              file=sys.stderr)
        args.old_formula_flag = False  # once per run
    langs = (args.src_lang, args.tgt_lang) if args.src_lang else None
    kwargs = {**scorer_kwargs(args), **({"runtime": runtime} if runtime is not None else {})}
    if consensus:
        kwargs["weights"] = {**kwargs["weights"], "consensus": 1.0}
    scorer = get_metric("xmoverscore").build(
        encoder or args.encoder, **{**kwargs, "formula": version or args.version},
        mapping=args.mapping, lm=args.lm, mapping_both_sides=args.mapping_both_sides,
        public_gbdd=args.public_gbdd, languages=langs)
    if not quiet:
        for note in scorer.notes:
            print(f"crossalign: note: {note}", file=sys.stderr)
    tok = scorer.encoder.tokenizer.tokenize
    if args.idf_src:
        scorer.idf_src = compute_idf(read_lines(args.idf_src), tok)
    if args.idf_hyp:
        scorer.idf_hyp = compute_idf(read_lines(args.idf_hyp), tok)
    return scorer
