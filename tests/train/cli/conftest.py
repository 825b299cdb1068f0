"""What the command-line tests share: WMT17's fixture clone built once a module by `data wmt17`."""
from pathlib import Path

import pytest

from train.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures"


@pytest.fixture(scope="module")
def wmt17_data(tmp_path_factory):
    """WMT17 data (de-en, lv-en) made from the fixture clone by the product's own verb."""
    out = tmp_path_factory.mktemp("data") / "wmt17"
    assert main(["data", "wmt17", "--from", str(FIXTURES / "wmt17-clone"), "--out", str(out),
                 "--pairs", "de-en", "lv-en"]) == 0
    return out
