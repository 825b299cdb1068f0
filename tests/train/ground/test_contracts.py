"""The Protocols hold for the real pieces: every registered method's planned fitter is a
``MethodFitter`` reading the registry's data kind, every DataModule says what it provides, and
the plan's data check refuses a module or data that keeps no contract."""
import typing

import pytest
import torch

from alignment.errors import InputError
from alignment.mappings import METHODS, DataKind, MethodSpec
from train.callbacks import KeepBest
from train.unsupervised.self_training import SelfTraining
from train.data.paired import PairedVectorDataModule
from train.ground.contracts import ChecksData, FitData, Fitter, MethodFitter, VectorData
from train.fitting.plan import DATA_MODULES, check_fit, plan_fit
from train.modules import JointAlign


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_planned_fitter_keeps_the_method_fitter_contract(name):
    plan = plan_fit(name)
    module = plan.build()
    assert isinstance(module, MethodFitter) and module.spec is plan.spec
    assert module.data is METHODS[name].data is plan.data
    assert module.hparams["method"] == name  # the text, not the parsed object
    # a recipe hands the fitter the parsed method: its constructor says it takes one
    accepted = typing.get_args(typing.get_type_hints(plan.fitter.__init__)["method"])
    assert MethodSpec in accepted and str in accepted


def test_data_modules_say_what_they_provide():
    for kind, cls in DATA_MODULES.items():
        assert cls.provides is kind and isinstance(cls.__new__(cls), FitData)
    assert isinstance(PairedVectorDataModule.from_arrays(torch.zeros(4, 2).numpy(),
                                                         torch.zeros(4, 2).numpy()), VectorData)
    assert JointAlign.data is DataKind.PARALLEL_TEXT


def test_only_callbacks_with_a_demand_on_the_data_check_it():
    assert isinstance(SelfTraining(), ChecksData) and not isinstance(KeepBest("semantic"), ChecksData)


def test_the_data_check_refuses_what_keeps_no_contract():
    dm = PairedVectorDataModule.from_arrays(torch.zeros(4, 2).numpy(), torch.zeros(4, 2).numpy())
    with pytest.raises(InputError, match="not a fitter"):
        check_fit(torch.nn.Linear(2, 2), dm)
    with pytest.raises(InputError, match="fits 'center > vecmap' on unpaired data"):
        check_fit(plan_fit("center > vecmap").build(), dm)
    check_fit(plan_fit("center > clp").build(), dm)  # the right kind passes
    assert isinstance(plan_fit("center").build(), Fitter)
