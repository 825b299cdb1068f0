"""The routes of ``crossalign unsupervised``, as registered compositions: a registered method
fitted on the unpaired pools (``PoolFit``), optionally followed by a refinement of that fit —
self-training rounds (``SelfTrained``) or a supervised method on the pairs it mined
(``FittedOnMined``). Routes that share a ``PoolFit`` share its fit. Any other registered method
that learns without pairs is a route by its method string."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from alignment.catalogue import Registry, check_choice, unknown_name
from alignment.errors import InputError
from alignment.mappings import DataKind, MethodSpec, parse_method

GAN_SPEC = "center > gan_realnvp:critic_hidden=512,lr=0.0003,critic_lr=0.0003"
ROWS = ("tokens", "types", "sentences")


def no_settings(cfg: Any) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class PoolFit:
    """A registered method fitted on the pools: the ``rows`` it reads (``tokens``: the token
    pools; ``types``: centroids of the most frequent types; ``sentences``: the token pools and
    the encoded sentences, for mining), fitter ``settings`` and ``epochs`` from the run's
    config (no epochs: one pass), its batch size, and (``seeds``) one fit per ``gan_seeds``."""

    method: str
    rows: str = "tokens"
    settings: Callable[[Any], dict[str, Any]] = no_settings
    epochs: Callable[[Any], int] | None = None
    batch_size: int = 256
    seeds: bool = False


def self_training_rounds(cfg: Any) -> int:
    return cfg.rounds


@dataclass(frozen=True)
class SelfTrained:
    """Self-training rounds from the fit's map (``rounds`` from the config), with ``constraint``
    and ``refit``: supervised, or adversarial (Algorithm 1 as published, with the fit's own
    settings and batch)."""

    rounds: Callable[[Any], int] = self_training_rounds
    constraint: str | None = None
    refit: str = "supervised"


@dataclass(frozen=True)
class FittedOnMined:
    """A supervised ``method`` fitted on the word pairs the fit mined (its kept iteration)."""

    method: str


@dataclass(frozen=True)
class Route:
    """One row of the table: a fit on the pools, and what refines it (nothing: the fit's own
    map is the row)."""

    fit: PoolFit
    then: SelfTrained | FittedOnMined | None = None


ROUTES: Registry[Route] = Registry("route", "routes")


def register_route(name: str, route: Route) -> Route:
    """Add a named route; a refinement's fit must already be a route of its own (its row is
    the one the refinement is compared with and builds on)."""
    check_choice(route.fit.rows, ROWS, "row kind", "rows")
    if route.then is not None and base_route(route) is None:
        raise ValueError(f"'{name}' refines a fit that is not a route of its own")
    ROUTES.add(name, route)
    return route


def base_route(route: Route) -> str | None:
    """The name of the plain route whose fit ``route`` refines."""
    return next((n for n, r in ROUTES.items() if r.fit == route.fit and r.then is None), None)


def current_route_names(names: list[str]) -> list[str]:
    """``names`` with former route names replaced by today's, each with a warning (the
    registry's former names); any other name is left for ``route_for``."""
    return [ROUTES.canonical(n) if ROUTES.taken(n) else n for n in names]


def route_for(name: str, parsed: dict[str, MethodSpec] | None = None) -> Route:
    """A named route, or any registered method that fits on unpaired pools, given as its
    method string (``center > my_method``): fitted on the token pools for ``epochs`` epochs.
    ``parsed`` (a run's method texts and their parse) receives the method parsed here."""
    if ROUTES.taken(name):
        return ROUTES.lookup(name)
    try:
        spec = parse_method(name, "routes")
        if parsed is not None:
            parsed[name] = spec
    except InputError:
        raise unknown_name("route", name, ROUTES, "routes",
                           advice="or a method that learns without pairs") from None
    if not spec.fits_on(DataKind.UNPAIRED):
        raise InputError(f"'{name}' trains on {spec.data.value} data, not unpaired pools",
                         parameter="routes")
    return Route(PoolFit(name, epochs=None if spec.trained is None else run_epochs))


def run_epochs(cfg: Any) -> int:
    return cfg.epochs


# --- the named routes ------------------------------------------------------------------------
def vecmap_settings(cfg: Any) -> dict[str, Any]:
    return {"max_rows": cfg.vecmap_types, "seed": cfg.seed}


def mining_settings(cfg: Any) -> dict[str, Any]:
    return {"rounds": cfg.mining_rounds, "threshold": cfg.mining_threshold,
            "criterion": cfg.mining_criterion}


MUSE = PoolFit("center > muse", epochs=lambda cfg: cfg.muse_epochs, batch_size=128)
GAN = PoolFit(GAN_SPEC, epochs=lambda cfg: cfg.gan_epochs, seeds=True)
MINING = PoolFit("mining:fit=center > clp", "sentences", mining_settings)

register_route("center", Route(PoolFit("center")))
register_route("vecmap", Route(PoolFit("center > vecmap", "types", vecmap_settings)))
register_route("vecmap (identity start)",
               Route(PoolFit("center > vecmap:init=identity", "types", vecmap_settings)))
register_route("muse", Route(MUSE))
register_route("muse + refinement", Route(MUSE, SelfTrained(lambda cfg: cfg.refinement_rounds)))
register_route("gan_realnvp", Route(GAN))
for constraint, label in (("cross_correlation", "cross-corr"), ("graph", "graph"),
                          ("procrustes", "procrustes")):
    register_route(f"gan_realnvp + self-training ({label})",
                   Route(GAN, SelfTrained(constraint=constraint)))
    # 0.3.0 and earlier called self-training "bootstrapping"
    ROUTES.rename(f"gan_realnvp + boot ({label})", f"gan_realnvp + self-training ({label})")
register_route("gan_realnvp + Algorithm 1 (cross-corr)",
               Route(GAN, SelfTrained(constraint="cross_correlation", refit="adversarial")))
register_route("mining > center > clp", Route(MINING))
register_route("mining > clp_flow", Route(MINING, FittedOnMined("clp_flow")))
