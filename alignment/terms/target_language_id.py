"""Whether an output is in its target language, by a language identifier: py3langid's
probability of the target language given the output (97 languages; Lui & Baldwin's langid.py
model). The model-free ``target-language`` term counts copied words, scripts and a few
languages' function words; this one reads any of the identifier's languages the same way.

The identifier's model is a pickle inside its package: it is loaded only when its bytes are
exactly those of the pinned release (``MODEL_SHA256``), so what is unpickled is the code the
package ships, never a file that changed after install."""
from __future__ import annotations

import hashlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.errors import InputError

from .term import Batch, Runtime, Term, register_term

PACKAGE, VERSION = "py3langid", "0.3.0"
MODEL_SHA256 = "8c99809ff6de3d129e447306d30ceae4713735230dced7e8d4d46df89e6968ce"
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


def load_identifier():
    """py3langid's identifier with normalised probabilities, after its model file is checked
    against the pinned release's hash; a clear error where the package is missing or its
    model is not that release's."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise InputError(f"the target-language-id term needs {PACKAGE}: pip install "
                         f"'crossalign[multilingual]'", parameter="term")
    model = Path(spec.origin).parent / "data" / "model.plzma"
    digest = hashlib.sha256(model.read_bytes()).hexdigest() if model.is_file() else None
    if digest != MODEL_SHA256:
        raise InputError(f"{model} is not the model of {PACKAGE} {VERSION} (its hash differs): "
                         f"reinstall {PACKAGE}=={VERSION}; it is not loaded", parameter="term")
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)


@dataclass(frozen=True)
class TargetLanguageId(Term):
    """P(target language | output) by the identifier (loaded once a runtime); an output with no
    letter has nothing to translate (1). The output is read as an LM reads it (no spaces
    between Chinese or Japanese characters). Its values do not depend on the precision."""

    def follows_precision(self) -> bool:
        return True

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        from alignment.xmover.lm import lm_text

        if not batch.languages:
            raise InputError("the target-language-id term needs the pair's languages: give "
                             "--src-lang and --tgt-lang", parameter="tgt-lang")
        identifier = runtime.cache.model(("language identifier", PACKAGE), load_identifier)
        target = batch.languages[1].lower().split("-")[0].split("_")[0]
        if target not in identifier.nb_classes:
            raise InputError(f"{PACKAGE} does not identify '{target}' (it knows "
                             f"{', '.join(sorted(identifier.nb_classes))})", parameter="tgt-lang")
        return np.array([dict(identifier.rank(lm_text(o)))[target] if _LETTER.search(o) else 1.0
                         for o in batch.outputs], dtype=np.float64)


register_term(TargetLanguageId(
    "target-language-id", "target language (identified)", "--term target-language-id=W",
    (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
    "the probability that the output is in the target language, by a language identifier "
    f"({PACKAGE} {VERSION}, 97 languages)", ident=f"{PACKAGE}-{VERSION}+prob1"))
