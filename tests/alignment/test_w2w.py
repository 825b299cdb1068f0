import numpy as np
import pytest

from alignment.evaluation.w2w import literal_translation, w2w_share


def test_literal_translation_and_w2w():
    lex = {"la": ["the"], "casa": ["house", "home"], "Dios": ["God"]}
    assert literal_translation("La casa de Dios.", lex) == "the house de God ."
    assert w2w_share(np.array([0.5, 0.2, 0.9]), np.array([0.4, 0.3, 0.9])) == pytest.approx(1 / 3)
