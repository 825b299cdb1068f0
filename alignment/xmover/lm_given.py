"""An LM's log-likelihood of a text after a prefix (``English: SRC\\nGerman:``), in as few
passes as the requests allow: one forward pass a row answers its own text and any other span
asked for whose tokens begin the row (the source after ``English:`` is the start of the prompt
that reads the output), and a text asked for twice — the mean and the total of one term, two
terms over one prompt — is read once. The output layer runs on the positions scored alone."""
from __future__ import annotations

import warnings

import numpy as np
import torch

from alignment.data.batching import make_batches
from alignment.errors import InputError
from .stages import Laps

VOCAB_CHUNK = 4096  # words of the vocabulary a slice of the output layer takes at once (CPU)
KNOWN_LIMIT = 200_000  # (prefix, text) means kept by an LM before the oldest are let go


def pad_ids(ids: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded (input ids, attention mask) of one batch of token-id lists."""
    inp = torch.full((len(ids), max(len(x) for x in ids)), pad, dtype=torch.long)
    mask = torch.zeros_like(inp)
    for k, x in enumerate(ids):
        inp[k, :len(x)] = torch.tensor(x, dtype=torch.long)
        mask[k, :len(x)] = 1
    return inp, mask


def given_ids(lm, prefixes: list[str], sentences: list[str], warn: bool = True) -> tuple:
    """Each pair's ids (BOS, prefix, sentence), its sentence's start and own ids (cut to the
    context: the sentence kept, the prefix's start dropped, with a warning)."""
    if len(prefixes) != len(sentences):
        raise InputError(f"{len(prefixes)} prefixes for {len(sentences)} sentences", parameter="prefixes")
    lead, limit = ([] if lm.bos is None else [lm.bos]), lm.context or 1 << 30
    pre, own = ([lm.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
                for texts in (prefixes, sentences))
    cut = sum(len(lead) + len(p) + len(x) > limit for p, x in zip(pre, own))
    if cut and warn:
        warnings.warn(f"{cut} of {len(own)} prompts with outputs are longer than the LM's "
                      f"context of {limit} tokens: the prompt's start was cut", stacklevel=4)
    own = [x[:max(limit - len(lead) - 1, 1)] for x in own]
    pre = [p[max(len(p) - (limit - len(lead) - len(x)), 0):] for p, x in zip(pre, own)]
    return [lead + p + x for p, x in zip(pre, own)], [len(lead) + len(p) for p in pre], own


def scored_tokens(lm, prefixes: list[str], sentences: list[str]) -> np.ndarray:
    """How many tokens ``score_given`` averages over (0: none); the tokenizer only."""
    _, starts, own = given_ids(lm, prefixes, sentences, warn=False)
    return np.array([len(x) if x and s > 0 else 0 for x, s in zip(own, starts)], dtype=np.float64)


def span_log_likelihoods(model, inp: torch.Tensor, mask: torch.Tensor,
                         starts: list[int], lap=lambda stage: None) -> list[torch.Tensor]:
    """Per row, log p(token_t | tokens before t) for t from ``starts[row]`` to the row's end.
    The output layer runs on those positions alone: a 262k-token vocabulary makes it most of
    an LM's cost, and the prefix's positions need only the layers below it."""
    hidden = model.base_model(input_ids=inp, attention_mask=mask).last_hidden_state
    lap("layers")
    lengths = mask.sum(1).tolist()
    rows = [torch.full((n - s,), k, dtype=torch.long) for k, (s, n) in enumerate(zip(starts, lengths))]
    cols = [torch.arange(s - 1, n - 1) for s, n in zip(starts, lengths)]
    r, c = torch.cat(rows).to(inp.device), torch.cat(cols).to(inp.device)
    cap = getattr(getattr(model.config, "get_text_config", lambda: model.config)(),
                  "final_logit_softcapping", None)
    logp = target_log_probs(model.get_output_embeddings(), hidden[r, c], inp[r, c + 1], cap)
    lap("output layer")
    return list(torch.split(logp, [n - s for s, n in zip(starts, lengths)]))


def target_log_probs(head, hidden: torch.Tensor, targets: torch.Tensor, cap: float | None,
                     chunk: int | None = None) -> torch.Tensor:
    """log p(target) at each position: the target's logit minus the log-sum-exp of all
    logits, the output layer taken ``chunk`` words of the vocabulary at a time (one pass over
    its weights, never a positions × vocabulary table: at 262k words that table is what a
    pass spent its time allocating), the sums in float32. A head that is not a plain linear
    layer (int8's) gets the whole table."""
    weight = getattr(head, "weight", None)
    if not isinstance(head, torch.nn.Linear) or not isinstance(weight, torch.Tensor):
        logits = head(hidden).float()
        logits = torch.tanh(logits / cap) * cap if cap else logits
        return torch.log_softmax(logits, -1).gather(-1, targets[:, None])[:, 0]
    bias, sums = head.bias, []  # each slice's log-sum-exp, combined in float64
    chunk = chunk or (VOCAB_CHUNK if hidden.device.type == "cpu" else 1 << 16)
    own = torch.zeros(len(targets), dtype=torch.float32, device=hidden.device)
    for start in range(0, weight.shape[0], chunk):
        part = torch.nn.functional.linear(hidden, weight[start:start + chunk], None if bias is
                                          None else bias[start:start + chunk]).float()
        part = torch.tanh(part / cap) * cap if cap else part
        inside = (targets >= start) & (targets < start + chunk)  # each target's own logit,
        if inside.any():  # as the full table would hold it
            rows = inside.nonzero()[:, 0]
            own[rows] = part[rows, targets[rows] - start]
        sums.append(torch.logsumexp(part, -1))
    return (own.double() - torch.logsumexp(torch.stack(sums).double(), 0)).float()


def _spans_inside(lm, ids: list[list[int]], rows: list[int], also: list | None) -> dict:
    """For each row whose ``also`` request (prefix, sentence) is not known and whose tokens
    begin the row's: the request's (start, end) in the row."""
    if not also:
        return {}
    asked = [i for i in rows if also[i] is not None and also[i] not in lm.known]
    if not asked:
        return {}
    a_ids, a_starts, a_own = given_ids(lm, [also[i][0] for i in asked],
                                       [also[i][1] for i in asked], warn=False)
    return {i: (s, len(x)) for i, x, s, o in zip(asked, a_ids, a_starts, a_own)
            if o and s > 0 and len(x) <= len(ids[i]) and ids[i][:len(x)] == x}


def score_given(lm, prefixes: list[str], sentences: list[str],
                also: list[tuple[str, str] | None] | None = None) -> np.ndarray:
    """Mean log-likelihood of each sentence's tokens after its prefix (context, not scored),
    tokenized apart so the tokens are those ``score`` reads; a pair longer than the context
    keeps the sentence and the prefix's end (with a warning). The text is read as given (the
    terms pass it through ``lm_text``). A pair read before by this LM is not read again;
    ``also[i]``: another (prefix, sentence) whose tokens begin row i's, answered from row i's
    pass and kept for the call that asks for it."""
    from tqdm.auto import tqdm

    if len(prefixes) != len(sentences) or (also is not None and len(also) != len(sentences)):
        raise InputError(f"{len(prefixes)} prefixes for {len(sentences)} sentences"
                         + ("" if also is None else f" ({len(also)} also)"), parameter="prefixes")
    keys = list(zip(prefixes, sentences))
    out = np.array([lm.known.get(k, np.nan) for k in keys], dtype=np.float64)
    rows = [i for i in range(len(keys)) if np.isnan(out[i])]
    if not rows:
        return out
    laps = Laps(lm.seconds)
    ids, starts, own = (dict(zip(rows, part)) for part in given_ids(
        lm, [prefixes[i] for i in rows], [sentences[i] for i in rows]))
    inside = _spans_inside(lm, ids, rows, also)
    laps.lap("tokenising")
    if len(lm.known) > KNOWN_LIMIT:
        lm.known.clear()
    pad = lm.pad_id
    with torch.inference_mode():
        for batch in tqdm(make_batches([len(ids[i]) for i in rows], lm.batch_size, True),
                          desc=f"{lm.name} given the source", unit="batch", disable=None,
                          leave=False):
            todo = [rows[k] for k in batch]
            for i in todo:
                out[i] = 0.0
            todo = [i for i in todo if own[i] and starts[i] > 0]
            if not todo:
                continue
            first = [min(starts[i], inside[i][0]) if i in inside else starts[i] for i in todo]
            inp, mask = pad_ids([ids[i] for i in todo], pad)
            model = lm.model  # loaded on first use: its own stage
            laps.lap("loading")
            logp = span_log_likelihoods(model, inp.to(lm.device), mask.to(lm.device), first,
                                        laps.lap)
            for i, f, values in zip(todo, first, logp):
                out[i] = float(values[starts[i] - f:].mean())
                if i in inside:
                    a, b = inside[i]
                    lm.known[also[i]] = float(values[a - f:b - f].mean())
    for i in rows:
        lm.known[keys[i]] = float(out[i])
    return out

