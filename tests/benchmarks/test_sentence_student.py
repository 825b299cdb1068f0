"""The fine-tuned student probe: its bundle carries e5 exactly for the text it was made for,
and its distillation loop trains (a perturbed student returns to its teacher)."""
import numpy as np
import pytest
import torch

from benchmarks.sentence_student import distil, embed, pack, unpack
from tests.conftest import EN, ES


def test_the_distillation_loop_brings_a_perturbed_student_back_to_its_teacher(tiny_bert):
    """A toy with a known answer: the targets are the clean model's English vectors and the
    student starts from the same model with noise on every layer, so the clean weights reach
    a loss of zero; the loss must fall most of the way in a few hundred optimiser steps."""
    from transformers import AutoTokenizer, BertModel

    tok = AutoTokenizer.from_pretrained(str(tiny_bert))
    clean = BertModel.from_pretrained(str(tiny_bert)).eval()
    targets = torch.from_numpy(embed(clean, tok, EN, "cpu", 64))
    noisy = BertModel.from_pretrained(str(tiny_bert))
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in noisy.named_parameters():
            if name.startswith("encoder."):
                p.add_(0.05 * torch.randn_like(p))
    losses = []
    steps = 0
    for _, student, steps in distil(noisy, tok, list(zip(EN, EN)), targets, 1e-3, 40, 4, "cpu",
                                    0, logged=lambda s, t, loss: losses.append(loss),
                                    log_every=1):
        pass
    assert steps == 40 * -(-len(EN) // 4)  # every batch of every epoch is one optimiser step
    assert losses[-1] < 0.2 * losses[0]
    # the word embeddings stay frozen: the student's vocabulary is the teacher's
    assert torch.equal(student.embeddings.word_embeddings.weight,
                       noisy.embeddings.word_embeddings.weight)


@pytest.mark.slow
def test_a_bundle_gives_e5s_own_vectors_for_the_text_it_was_made_for(tmp_path):
    """Only the embedding rows the text uses travel; every vector of that text is the full
    model's, and a row the text never uses is absent (zeros)."""
    from transformers import AutoTokenizer, BertModel

    from alignment.encoding.multilingual_e5 import encoder_dir

    data = tmp_path / "data" / "mlqe" / "ro-en"
    data.mkdir(parents=True)
    (data / "train.ro").write_text("\n".join(ES) + "\n", encoding="utf-8")  # Spanish stands in
    (data / "train.en").write_text("\n".join(EN) + "\n", encoding="utf-8")
    pack(tmp_path / "data", tmp_path / "bundle")
    model, tok = unpack(tmp_path / "bundle")
    full = BertModel.from_pretrained(encoder_dir()).eval()
    full_tok = AutoTokenizer.from_pretrained(encoder_dir())
    lines = ES + EN
    np.testing.assert_allclose(embed(model, tok, lines, "cpu", 512),
                               embed(full, full_tok, lines, "cpu", 512), atol=1e-6)
    used = {i for ids in tok(["query: " + s for s in lines])["input_ids"] for i in ids}
    unused = next(i for i in range(1000, 250000) if i not in used)
    assert not model.embeddings.word_embeddings.weight[unused].any()
    assert full.embeddings.word_embeddings.weight[unused].any()
