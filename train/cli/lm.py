"""``crossalign lm``: a small causal LM trained on target-language text, for ``score --lm``."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args


VERBS = {"lm": "train a small causal LM on monolingual text (for score --lm where no "
               "pretrained LM is at hand)"}


def run(args: argparse.Namespace) -> None:
    from train.encoders.language_model import LanguageModelConfig, train_language_model

    cfg = dataclass_from_args(LanguageModelConfig, args)
    meta = train_language_model(args.text, args.out, cfg, progress=not args.no_progress,
                                overwrite=args.overwrite)
    print(f"language model in {args.out}: {meta['parameters']:,} parameters, held-out perplexity "
          f"{meta['val_perplexity']:.1f} on {meta['val_lines']} lines\n{meta['signature']}")


def register(sub) -> None:
    from train.encoders.language_model import LanguageModelConfig

    p = sub.add_parser("lm", help=VERBS["lm"])
    p.add_argument("--text", required=True, help="one sentence per line (the target language)")
    p.add_argument("--out", required=True, help="folder for the HF model + tokenizer: new, "
                   "empty, or a previous LM folder (replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="also replace a previous output made before outputs listed their files "
                   "(crossalign <= 0.3.0); files crossalign did not write are never deleted")
    add_dataclass_options(p, LanguageModelConfig)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
