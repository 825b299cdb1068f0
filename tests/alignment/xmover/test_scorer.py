import numpy as np
import pytest
import torch

from alignment.export.provenance import DataProvenance
from alignment.errors import InputError
from alignment.terms import Runtime
from alignment.xmover import XMoverScorer, compute_idf
from alignment.xmover.lm import LanguageModelScorer
from alignment.signature import parse_signature
from tests.conftest import EN, ES


@pytest.mark.parametrize("version", ["2020", "2022"])
def test_scores_do_not_depend_on_batch_size_or_order(tiny_bert, version):
    a = XMoverScorer(str(tiny_bert), version=version, layer=2,
                     runtime=Runtime.of(batch_size=1, jobs=1))
    b = XMoverScorer(str(tiny_bert), version=version, layer=2,
                     runtime=Runtime.of(batch_size=16, jobs=2))
    first = a.score(ES, EN).xmover
    order = np.random.default_rng(0).permutation(len(ES))
    second = b.score([ES[i] for i in order], [EN[i] for i in order]).xmover
    np.testing.assert_allclose(second, first[order], atol=1e-6)
    assert np.isfinite(first).all()


def test_a_perfect_hypothesis_scores_best(tiny_bert):
    s = XMoverScorer(str(tiny_bert), version="2022", layer=2)
    same = s.score(EN[:3], EN[:3]).xmover
    other = s.score(EN[:3], EN[3:6]).xmover
    np.testing.assert_allclose(same, 1.0, atol=1e-9)
    assert (other < same).all()


def test_bam_file_and_export_give_the_same_scores(tmp_path, tiny_bert):
    from alignment.encoding.encoder import load_encoder
    from alignment.export.remapped import export_remapped
    from alignment.mappings import fit_composition
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    clp = fit_composition(PairMoments.of(torch.randn(100, 32), torch.randn(100, 32)), "clp")
    enc = load_encoder(str(tiny_bert), layer=2)
    meta = export_remapped(tmp_path / "exp", clp, DataProvenance(
        enc.identity(), n_sentences=10, corpus="toy", src_lang="es", tgt_lang="en"))
    bam = tmp_path / "exp" / meta["xmoverscore_files"][0]
    via_file = XMoverScorer(str(tiny_bert), layer=2, mapping=str(bam)).score(ES, EN)
    via_export = XMoverScorer(str(tmp_path / "exp")).score(ES, EN)
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES, EN)
    via_object = XMoverScorer(str(tiny_bert), layer=2, mapping=clp).score(ES, EN)
    np.testing.assert_allclose(via_file.xmover, via_export.xmover, atol=1e-6)
    np.testing.assert_allclose(via_object.xmover, via_export.xmover, atol=1e-9)
    assert not np.allclose(via_file.xmover, plain.xmover)
    assert via_file.signature != plain.signature != via_export.signature


def test_gbdd_removes_the_direction_not_a_scalar(tmp_path, tiny_bert):
    from alignment.export.xmover_files import read_xmover_file

    v = np.zeros(32, dtype=np.float32)
    v[0] = 1.0
    with open(tmp_path / "toy.es-en.1k.2.GBDD", "wb") as fh:
        np.save(fh, v)
    m = read_xmover_file(tmp_path / "toy.es-en.1k.2.GBDD", 32)
    x = np.random.default_rng(0).normal(size=(4, 32))
    y = m.map_array(x, "src")
    assert np.allclose(y[:, 0], 0) and np.allclose(y[:, 1:], x[:, 1:])


def test_signature_changes_with_every_setting(tiny_bert, tiny_gpt2):
    base = dict(encoder=str(tiny_bert), version="2022", layer=2, ngram=2)
    sigs = {XMoverScorer(**base).signature,
            XMoverScorer(**{**base, "version": "2020"}).signature,
            XMoverScorer(**{**base, "layer": 1}).signature,
            XMoverScorer(**{**base, "ngram": 1}).signature,
            XMoverScorer(**base, idf_src=compute_idf(ES, str.split)).signature,
            XMoverScorer(**base, lm=str(tiny_gpt2)).signature,
            XMoverScorer(**base, lm=str(tiny_gpt2), weights={"lm": 0.5}).signature}
    assert len(sigs) == 7
    fields = parse_signature(XMoverScorer(**base).signature)
    assert fields["ver"] == "2022r2" and fields["L"] == "2" and fields["map"] == "none"


def test_idf_weights():
    idf = compute_idf(["a b", "a c", "a"], str.split)
    assert idf("a") == pytest.approx(np.log(4 / 4)) and idf("b") == pytest.approx(np.log(4 / 2))
    assert idf("zzz") == pytest.approx(np.log(4))


def test_lm_scores_every_sentence_of_a_batch(tiny_gpt2):
    lm = LanguageModelScorer(str(tiny_gpt2), batch_size=8)
    batched = lm.score(EN)
    single = np.array([lm.score([s])[0] for s in EN])
    np.testing.assert_allclose(batched, single, atol=1e-5)
    assert len(set(np.round(batched, 6))) > 1 and (batched < 0).all()
    # by hand for one sentence: mean log p(token_t | prefix) over the n-1 predictions
    ids = lm.tokenizer(EN[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(lm.model(ids).logits[0, :-1], -1)
    want = logp.gather(1, ids[0, 1:, None]).mean().item()
    assert batched[0] == pytest.approx(want, abs=1e-5)


def test_lm_scores_a_sentence_longer_than_its_context_on_the_first_context_tokens(tiny_gpt2):
    lm = LanguageModelScorer(str(tiny_gpt2), batch_size=8)
    long = " ".join(EN[:10])  # well over the tiny GPT-2's 64 positions
    ids = lm.tokenizer(long, add_special_tokens=False)["input_ids"]
    assert len(ids) > lm.context == 64
    with pytest.warns(UserWarning, match="1 of 2 sentences are longer"):
        got = lm.score([long, EN[0]])
    assert np.isfinite(got).all() and got[1] == pytest.approx(lm.score([EN[0]])[0], abs=1e-5)
    head = torch.tensor([ids[:64]])
    with torch.no_grad():
        logp = torch.log_softmax(lm.model(head).logits[0, :-1], -1)
    assert got[0] == pytest.approx(logp.gather(1, head[0, 1:, None]).mean().item(), abs=1e-5)


def test_lm_term_is_added_with_its_coefficient(tiny_bert, tiny_gpt2):
    r = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2), weights={"lm": 0.1}).score(ES[:3], EN[:3])
    np.testing.assert_allclose(r.final, r.xmover + 0.1 * r.lm)


def test_bad_inputs_fail_before_encoding(tiny_bert, tmp_path, monkeypatch):
    s = XMoverScorer(str(tiny_bert), layer=2)
    monkeypatch.setattr(s.encoder, "encode_tokens", lambda *a, **k: pytest.fail("encoded first"))
    with pytest.raises(InputError, match="2 sources but 1 hypotheses"):
        s.score(["a", "b"], ["x"])
    with pytest.raises(InputError, match="pair 2 has an empty source"):
        s.score(["a", " "], ["x", "y"])
    with open(tmp_path / "w.BAM", "wb") as fh:
        np.save(fh, np.eye(16, dtype=np.float32))
    with pytest.raises(InputError, match=r"w.BAM: BAM has shape \(16, 16\) but the encoder needs \(32, 32\)"):
        XMoverScorer(str(tiny_bert), layer=2, mapping=str(tmp_path / "w.BAM"))
    with pytest.raises(InputError, match="version"):
        XMoverScorer(str(tiny_bert), version="2021")
    with pytest.raises(InputError, match="layer 8 out of range"):
        XMoverScorer(str(tiny_bert), version="2022", layer=8)  # asked for: refused
    defaulted = XMoverScorer(str(tiny_bert), version="2022")  # 2022's default 8 > 2 layers
    assert defaulted.encoder.layer == 2 and "using its last, 2" in defaulted.notes[0]


def test_the_process_pool_gives_the_same_scores(tiny_bert, monkeypatch):
    import alignment.xmover.transport as transport_mod

    serial = XMoverScorer(str(tiny_bert), layer=2, runtime=Runtime.of(jobs=1)).score(ES, EN).xmover
    monkeypatch.setattr(transport_mod, "MIN_PARALLEL_PROBLEMS", 1)
    pooled = XMoverScorer(str(tiny_bert), layer=2, runtime=Runtime.of(jobs=2)).score(ES, EN).xmover
    np.testing.assert_array_equal(serial, pooled)


def test_a_flow_export_scores_like_any_other(tmp_path, tiny_bert):
    from alignment.encoding.encoder import load_encoder
    from alignment.export.remapped import export_remapped
    from alignment.mappings import RealNVPMapping

    torch.manual_seed(0)
    flow = RealNVPMapping(32, transforms=2, hidden=8)
    meta = export_remapped(tmp_path / "flow", flow, DataProvenance(
        load_encoder(str(tiny_bert), layer=2).identity(), src_lang="es", tgt_lang="en"))
    assert meta["xmoverscore_files"] == [] and meta["mapped_side"] == "src"
    scores = XMoverScorer(str(tmp_path / "flow")).score(ES[:3], EN[:3]).xmover
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES[:3], EN[:3]).xmover
    assert np.isfinite(scores).all() and not np.allclose(scores, plain)


def test_a_gbdd_on_both_sides_is_the_papers_umd_and_is_signed_apart(tiny_bert, tmp_path):
    v = np.random.default_rng(0).normal(size=32)
    v /= np.linalg.norm(v)
    path = tmp_path / "toy.en-en.1k.2.GBDD"
    with open(path, "wb") as fh:
        np.save(fh, v.astype(np.float32))
    same = EN[:4]
    src_only = XMoverScorer(str(tiny_bert), layer=2, mapping=path)
    both = XMoverScorer(str(tiny_bert), layer=2, mapping=path, mapping_both_sides=True)
    public = XMoverScorer(str(tiny_bert), layer=2, mapping=path, public_gbdd=True)
    # identical sentences: removing the direction from both sides keeps them identical
    np.testing.assert_allclose(both.score(same, same).xmover, 1.0, atol=1e-6)
    assert (src_only.score(same, same).xmover < 1 - 1e-6).all()
    labels = {parse_signature(s.signature)["map"].split("#")[0] for s in (src_only, both, public)}
    assert labels == {"umd", "umd@both", "GBDD-public"}  # named as an exported UMD is
    with pytest.raises(InputError, match="source side only"):
        XMoverScorer(str(tiny_bert), layer=2, mapping=path, public_gbdd=True, mapping_both_sides=True)


def test_a_single_string_is_refused_not_read_as_characters(tiny_bert):
    scorer = XMoverScorer(str(tiny_bert), layer=2)
    with pytest.raises(InputError, match="not one string"):
        scorer.score("El perro come pan.", "The dog eats bread.")
    with pytest.raises(InputError, match="must be a string"):
        scorer.score(["El perro come pan."], [None])


def test_formula_is_the_cli_name_and_version_still_works(tiny_bert):
    by_formula = XMoverScorer(str(tiny_bert), formula="2020", layer=2)
    by_version = XMoverScorer(str(tiny_bert), version="2020", layer=2)
    assert by_formula.signature == by_version.signature and "ver:2020" in by_formula.signature
    assert "ver:2022" in XMoverScorer(str(tiny_bert), layer=2).signature


def test_the_lm_weight_defaults_to_the_formulas(tiny_bert, tiny_gpt2):
    # 2022's scores spread about ten times less than 2020's: its weight is 0.01, 2020's the paper's 0.1
    for formula, coef in (("2022", 0.01), ("2020", 0.1)):
        scorer = XMoverScorer(str(tiny_bert), formula=formula, layer=2, lm=str(tiny_gpt2))
        r = scorer.score(ES[:3], EN[:3])
        np.testing.assert_allclose(r.final, r.xmover + coef * r.lm)
        assert r.signature.endswith(f"|coef:{coef}")


def test_scoring_asks_for_fp32_arithmetic_on_any_device(tiny_bert, tmp_path, monkeypatch):
    """On a GPU an encoder autocasts to bf16 unless told otherwise: scores would move from the
    published ones by about 1e-3 with nothing in the signature saying so. Plain encoders and
    exports alike are loaded for fp32."""
    from alignment.encoding import encoder as encoder_module
    from alignment.encoding.encoder import load_encoder
    from alignment.export.remapped import export_remapped
    from alignment.mappings import fit_composition
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    clp = fit_composition(PairMoments.of(torch.randn(100, 32), torch.randn(100, 32)), "clp")
    enc = load_encoder(str(tiny_bert), layer=2)
    export_remapped(tmp_path / "exp", clp, DataProvenance(
        enc.identity(), n_sentences=10, corpus="toy", src_lang="es", tgt_lang="en"))
    asked = []
    original = encoder_module.Encoder.__init__

    def recording(self, *args, **kwargs):
        asked.append(kwargs.get("dtype", "auto"))
        original(self, *args, **kwargs)

    monkeypatch.setattr(encoder_module.Encoder, "__init__", recording)
    XMoverScorer(str(tiny_bert), layer=1).score(ES, EN)
    XMoverScorer(str(tmp_path / "exp")).score(ES, EN)
    assert asked == ["fp32", "fp32"]


def test_with_xmoverscores_weight_zero_no_token_pass_or_transport_is_run(tiny_bert, tiny_gpt2,
                                                                          monkeypatch):
    """From English the sentence term (and the LM) alone is the row to use: XMoverScore is
    then not computed at all, and the score is the other terms exactly."""
    from alignment.encoding.encoder import Encoder

    full = XMoverScorer(str(tiny_bert), layer=2, weights={"sentence": 0.5}, lm=str(tiny_gpt2)).score(ES, EN)

    def no_token_pass(*args, **kwargs):
        raise AssertionError("the token pass ran")

    monkeypatch.setattr(Encoder, "encode_tokens", no_token_pass)
    alone = XMoverScorer(str(tiny_bert), layer=2, weights={"sentence": 0.5, "xmover": 0},
                         lm=str(tiny_gpt2)).score(ES, EN)
    assert alone.xmover is None and "transport" not in alone.seconds
    np.testing.assert_allclose(alone.final, full.final - full.xmover, atol=1e-12)
    np.testing.assert_array_equal(alone.sentence, full.sentence)
