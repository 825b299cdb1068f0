import pytest
import torch
from torch import nn

from alignment.unsupervised.critic import Critic, gradient_penalty, interpolate_gradient_norms, spectral_norms


def _samples(n=512, d=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    real = torch.randn(n, d, generator=g) + 2.0
    fake = torch.randn(n, d, generator=g) * 0.5
    return real, fake


def _train(penalty: float, steps: int = 400) -> tuple[Critic, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    real, fake = _samples()
    critic = Critic(6, hidden=64)
    opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
    for _ in range(steps):
        loss = critic(fake).mean() - critic(real).mean()
        if penalty:
            loss = loss + penalty * gradient_penalty(critic, real, fake)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return critic, real, fake


def test_gradient_penalty_makes_the_critic_about_1_lipschitz_on_interpolates():
    """The penalty is soft: on two samples ~5 apart the norm settles a little above 1 (the
    usual WGAN-GP trade-off at weight 10); without it the gradients grow without bound."""
    critic, real, fake = _train(penalty=10.0)
    norms = interpolate_gradient_norms(critic, real, fake, seed=1)
    assert 0.8 < float(norms.mean()) < 1.35, float(norms.mean())
    assert float(norms.std()) < 0.2
    # and it separates the samples: the estimated Wasserstein gap is positive
    with torch.no_grad():
        assert float(critic(real).mean() - critic(fake).mean()) > 1.0
    free, real, fake = _train(penalty=0.0)
    assert float(interpolate_gradient_norms(free, real, fake, seed=1).mean()) > 3.0


def test_spectral_norm_bounds_every_layer_by_one():
    torch.manual_seed(0)
    real, fake = _samples()
    critic = Critic(6, hidden=64, lipschitz="spectral")
    opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
    for _ in range(50):  # large steps: the raw weights grow, the normalised ones must not
        loss = critic(fake).mean() - critic(real).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    critic.eval()
    assert all(s <= 1.0 + 1e-3 for s in spectral_norms(critic))
    assert float(interpolate_gradient_norms(critic, real, fake).max()) <= 1.0 + 1e-3


def test_unknown_lipschitz_mode_is_refused():
    with pytest.raises(ValueError, match="lipschitz"):
        Critic(4, lipschitz="clip")


def test_the_one_sided_penalty_spares_a_flat_critic_and_equals_the_penalty_above_slope_one():
    torch.manual_seed(0)
    real, fake = torch.randn(64, 3), torch.randn(64, 3) + 1

    def linear(slope: float) -> nn.Module:
        layer = nn.Linear(3, 1, bias=False)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor([[slope, 0.0, 0.0]]))
        return layer

    flat, steep = linear(0.05), linear(3.0)
    def penalty(critic: nn.Module, one_sided: bool = False) -> float:
        gen = torch.Generator().manual_seed(1)
        return gradient_penalty(critic, real, fake, gen, one_sided=one_sided).item()

    assert penalty(flat, one_sided=True) == 0.0
    assert penalty(flat) == pytest.approx(0.95 ** 2)
    assert penalty(steep, one_sided=True) == pytest.approx(penalty(steep)) == pytest.approx(4.0)
    assert Critic(3, hidden=8, lipschitz="one_sided")(real).shape == (64,)
