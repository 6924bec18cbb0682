"""SafePub's (beta, k) against ARX 3.9's ParameterCalculation (issue 32's figures) and the theorem."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binom

from kanon_engine.privacy.dp_parameters import delta_of_k, derive, sampling_probability


@pytest.mark.parametrize(
    ("epsilon", "delta", "budget", "beta", "k"),
    [
        (1.0, 1e-5, 0.1, 0.593430340259, 59),  # ARX, issue 32
        (2.0, 1e-5, 0.1, 0.850431380777, 103),  # ARX, issue 32
        (1.0, 1e-6, 0.0, 0.632120558829, 75),  # ARX, issue 32
    ],
)
def test_arx_figures(epsilon: float, delta: float, budget: float, beta: float, k: int) -> None:
    p = derive(epsilon, delta, budget)
    assert p.beta == pytest.approx(beta, abs=1e-12)
    assert p.k == k
    assert p.sampling_epsilon == pytest.approx(epsilon - budget)


def _delta_brute(k: int, eps: float, beta: float) -> float:
    """delta(k) by the theorem's definition, one n at a time, far past the stopping rule."""
    gamma = (math.exp(eps) - 1 + beta) / math.exp(eps)
    n_m = max(math.ceil(k / gamma - 1), 0)
    return max(binom.sf(math.floor(n * gamma), n, beta) for n in range(n_m, n_m + 4000))


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 1e-4), (1.0, 1e-3), (1.5, 1e-6), (3.0, 1e-5), (0.9, 1e-7)])
def test_k_is_arx_smallest_plus_one(eps: float, delta: float) -> None:
    """k - 1 is the smallest class size whose delta is below the target (brute force), as ARX returns."""
    p = derive(eps, delta, 0.0)
    beta = sampling_probability(eps)
    assert _delta_brute(p.k - 1, eps, beta) < delta
    assert _delta_brute(p.k - 2, eps, beta) >= delta


def test_more_budget_means_larger_sample_and_smaller_delta_means_larger_k() -> None:
    assert derive(2.0, 1e-5, 0.1).beta > derive(1.0, 1e-5, 0.1).beta
    assert derive(1.0, 1e-8, 0.1).k > derive(1.0, 1e-5, 0.1).k
    assert delta_of_k(50, 0.9, sampling_probability(0.9)) >= delta_of_k(60, 0.9, sampling_probability(0.9))


def test_beta_small_epsilon_has_no_cancellation() -> None:
    assert sampling_probability(1e-12) == pytest.approx(1e-12, rel=1e-9)
