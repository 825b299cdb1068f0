"""The word-level metrics: equal to scikit-learn's (the task's own script calls them) and to the
task's recall at top-K, ties included; sentences without both labels skipped as the script
skips them; MCC thresholds chosen where they separate."""
import numpy as np
import pytest

from alignment.errors import InputError
from alignment.judgments.word_level import (average_precision, best_threshold, explanation_metrics,
                                            mcc, recall_at_top_k, roc_auc, tag_mcc)


def _sentences(seed: int = 0, n: int = 60):
    rng = np.random.default_rng(seed)
    labels, scores = [], []
    for _ in range(n):
        length = int(rng.integers(3, 25))
        y = (rng.random(length) < 0.3).astype(int)
        s = np.round(rng.normal(size=length) + y, 1)  # rounded: ties happen
        labels.append(y)
        scores.append(s)
    return labels, scores


def test_metrics_equal_scikit_learn_and_the_task_script_with_ties():
    sklearn = pytest.importorskip("sklearn.metrics")
    labels, scores = _sentences()
    checked = 0
    for y, s in zip(labels, scores):
        if y.sum() in (0, len(y)):
            continue
        assert roc_auc(y, s) == pytest.approx(sklearn.roc_auc_score(y, s), abs=1e-12)
        assert average_precision(y, s) == pytest.approx(sklearn.average_precision_score(y, s),
                                                        abs=1e-12)
        top = np.argsort(s)[::-1][:y.sum()]  # the task script's own expression
        assert recall_at_top_k(y, s) == pytest.approx(y[top].sum() / y.sum())
        assert mcc(y, s > 0.5) == pytest.approx(sklearn.matthews_corrcoef(y, s > 0.5), abs=1e-12)
        checked += 1
    assert checked > 30


def test_sentences_without_an_error_or_without_a_correct_word_are_skipped():
    labels = [np.array([0, 1, 0]), np.array([0, 0, 0]), np.array([1, 1])]
    scores = [np.array([0.1, 0.9, 0.2]), np.array([0.5, 0.1, 0.2]), np.array([0.1, 0.2])]
    found = explanation_metrics(labels, scores, resamples=50)
    assert found["n"] == 1 and found["auc"] == 1.0 and found["ap"] == 1.0
    assert found["recall_at_k"] == 1.0 and found["auc_lo"] == found["auc_hi"] == 1.0
    reversed_scores = [-s for s in scores]
    assert explanation_metrics(labels, reversed_scores, 50)["auc"] == 0.0


def test_scores_of_the_wrong_length_are_refused_with_the_sentence_number():
    with pytest.raises(InputError, match="sentence 2: 1 word scores for 2 labels"):
        explanation_metrics([np.array([0, 1]), np.array([1, 0])],
                            [np.array([0.0, 1.0]), np.array([0.0])])


def test_the_mcc_threshold_chosen_on_dev_separates_and_carries_to_test():
    rng = np.random.default_rng(1)
    labels = [(rng.random(12) < 0.25).astype(int) for _ in range(40)]
    scores = [y * 2.0 + rng.normal(0, 0.3, len(y)) for y in labels]
    threshold = best_threshold(labels, scores)
    assert 0.3 < threshold < 1.7
    found = tag_mcc(labels, scores, threshold, resamples=50)
    assert found["mcc"] > 0.9 and found["mcc_lo"] <= found["mcc"] <= found["mcc_hi"]
    noise = [rng.normal(size=len(y)) for y in labels]
    assert abs(tag_mcc(labels, noise, threshold, resamples=10)["mcc"]) < 0.3
