"""Gemma given the source: a multilingual LM's mean (and total) log-probability of the output
after the prompt ``SOURCE-LANGUAGE: source\nTARGET-LANGUAGE:`` — how likely the output is as a
translation of this source, which neither the token transport nor a target-side LM sees."""
from __future__ import annotations

import numpy as np

from .term import register_term
from .source_lm import PROMPT, prompt_names, shared_lm
from .term import Runtime, Term


class SourceConditionedLM:
    """A multilingual LM's mean log-probability of the output after the prompt
    ``English: SOURCE\\nGerman:``: how likely the output is as a translation of this source,
    which neither the token transport nor a target-side LM sees. Values are kept across runs
    (the runtime's cache); the LM loads on first use."""

    def __init__(self, lm: str = "gemma3-270m", prompt: str = PROMPT, total: bool = False) -> None:
        self.lm_name, self.prompt = lm, prompt  # prompt: PROMPT's fields, another wording
        self.total = total  # the sum over the output's tokens instead of their mean

    def prefixes(self, sources: list[str], languages: tuple[str, str] | None) -> list[str]:
        a, b = prompt_names(languages)
        return [self.prompt.format(source_language=a, source=" ".join(s.split()),
                                   target_language=b) for s in sources]

    def alone_requests(self, sources: list[str], languages: tuple[str, str] | None
                       ) -> list[tuple[str, str]] | None:
        """What ``SourcePredictability`` asks the LM of these sources — each source after
        its language's name alone — which this prompt's pass answers on its way where the
        tokens agree (``PROMPT`` only: another wording starts otherwise)."""
        from alignment.xmover.lm import lm_text

        if self.prompt != PROMPT:
            return None
        back = (languages[1], languages[0]) if languages else None
        name = lm_text(f"{prompt_names(back)[1]}:")
        return [(name, " " + lm_text(" ".join(s.split()))) for s in sources]

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: Runtime | None = None
                 ) -> np.ndarray:
        from alignment.xmover.lm import lm_text

        context = context or Runtime()
        lm = shared_lm(self.lm_name, context)
        prefixes = [lm_text(p) for p in self.prefixes(sources, languages)]
        outputs = [" " + lm_text(" ".join(h.split())) for h in hypotheses]
        mean = context.cache.array(f"lm-given|{lm.weights_ident}|{lm.device.type}",
                                   [p + "\0" + h for p, h in zip(prefixes, outputs)],
                                   lambda _: lm.score_given(
                                       prefixes, outputs, self.alone_requests(sources, languages)),
                                   ndim=1, folder=context.cache.values)
        # the total is the mean's tokens counted again (tokenizer only): one Gemma pass, one cache entry
        return mean * lm.scored_tokens(prefixes, outputs) if self.total else mean


class SourcePredictability:
    """How ordinary the source is to a multilingual LM: its mean log-probability after
    ``German:`` alone (the output is not read). A source the LM finds hard — rare words, odd
    or noisy text — tends to get a worse translation whoever translates it: what people's
    scores of one system's segments carry and no term comparing source and output sees."""

    def __init__(self, lm: str = "gemma3-270m") -> None:
        self.lm = SourceConditionedLM(lm, prompt="{target_language}:")

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: Runtime | None = None
                 ) -> np.ndarray:
        back = (languages[1], languages[0]) if languages else None
        # the source, scored after its language's name
        return self.lm(hypotheses, sources, back, context)


register_term(Term("gemma-given-source", "Gemma given source", "--term gemma-given-source=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "Gemma 3 270M's mean token log-probability of the output after the prompt "
                   "'SOURCE-LANGUAGE: source\\nTARGET-LANGUAGE:'",
                   ident="gemma3-270m-q4km+prompt1+cjk", compute=SourceConditionedLM(), contextual=True))


register_term(Term("gemma-given-source-total", "Gemma given source (total)",
                   "--term gemma-given-source-total=W", (0.0, 0.001, 0.002, 0.005, 0.01, 0.02),
                   "Gemma 3 270M's summed token log-probability of the output after the same "
                   "prompt: the mean times the output's tokens, so each extra or unlikely token "
                   "costs (the mean forgives a long output its errors)",
                   ident="gemma3-270m-q4km+prompt1+cjk+total",
                   compute=SourceConditionedLM(total=True), contextual=True))


