"""Terms as modules changed how terms are computed, not what they compute: every term's values,
the scores and the signature of every shipped export by name on a fixed sample
(``term_sample``) equal those the scorer gave before (``term_values.json``) to 1e-6."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.alignment.terms.term_sample import term_values

KEPT = json.loads((Path(__file__).parent / "term_values.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_every_shipped_exports_term_values_equal_the_kept_ones(monkeypatch):
    monkeypatch.setenv("CROSSALIGN_NO_REUSE", "1")  # computed now, not read back
    now = term_values(sorted(KEPT))
    for name, kept in KEPT.items():
        assert _unversioned(now[name]["signature"]) == _unversioned(kept["signature"]), name
        assert set(now[name]["values"]) == set(kept["values"]), name
        for term, values in kept["values"].items():
            np.testing.assert_allclose(now[name]["values"][term], values, atol=1e-6,
                                       err_msg=f"{name}: {term}")
        np.testing.assert_allclose(now[name]["final"], kept["final"], atol=1e-6, err_msg=name)


def _unversioned(signature: str) -> str:
    """A signature without crossalign's version (a release changes it, not the terms)."""
    return re.sub(r"\|v:[^|]*\|", "|", signature)
