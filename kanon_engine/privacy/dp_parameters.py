"""The sampling probability beta and the class size k that make SafePub (epsilon, delta)-differentially
private (Bild, Kuhn, Prasser, "SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy
Guarantees", PoPETs 2018(1):67-87, Theorem 1 and Section 4; the same figures as ARX 3.9's
``org.deidentifier.arx.dp.ParameterCalculation``).

SafePub samples every record independently with probability beta, generalizes the sample and suppresses
every class smaller than k. With epsilon' = epsilon - search budget (the part of the budget left for
sampling) and delta:

- beta = 1 - exp(-epsilon'), the largest sampling probability for which sampling plus "k-anonymity"
  is epsilon'-DP up to delta;
- gamma = (exp(epsilon') - 1 + beta) / exp(epsilon');
- for a class size k, delta(k) = max over n >= n_m of a_n, with n_m = ceil(k / gamma - 1) and
  a_n = P[Binomial(n, beta) > floor(n * gamma)] (the chance that a sample of n records leaves a class
  "too" large); the maximum is taken until a_n's running maximum reaches the Chernoff bound
  c_n = exp(-n (gamma ln(gamma / beta) - (gamma - beta))), past which no a_n can exceed it;
- k is found as ARX finds it: k = 1, 2, ... until delta(k) < delta; ARX's loop then returns that k plus
  one (its counter is incremented once more before the test ends the loop). We keep that extra one so
  kanon's k equals ARX's for the same (epsilon, delta): it is one record more conservative, never less.

ARX evaluates these in interval arithmetic and takes the safe end of each interval; we use double
precision with ``scipy.stats.binom.sf`` (tail sums computed without cancellation). The three figures of
issue 32 agree to 12 digits (tests/engine/test_dp_parameters.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: How many n the search for the maximum a_n looks at per vectorized step.
_BLOCK = 256
#: No derived k beyond this (delta would have to be absurdly small): a guard against an endless loop.
_MAX_K = 1_000_000


@dataclass(frozen=True)
class DPParameters:
    """What a budget buys: the sampling probability ``beta`` and the smallest class ``k`` kept."""

    epsilon: float
    delta: float
    search_budget: float
    beta: float
    k: int

    @property
    def sampling_epsilon(self) -> float:
        """The part of epsilon spent on sampling (all of it when the generalization is fixed)."""
        return self.epsilon - self.search_budget


def sampling_probability(epsilon: float) -> float:
    """beta = 1 - exp(-epsilon) (SafePub, Theorem 1), computed without cancellation for small epsilon."""
    return -math.expm1(-epsilon)


def delta_of_k(k: int, epsilon: float, beta: float) -> float:
    """delta(k) of SafePub's Theorem 1: the largest chance, over class sizes n >= n_m, that sampling
    leaves more than gamma * n of n records (the event the privacy proof must exclude)."""
    from scipy.stats import binom  # type: ignore[import-untyped]  # (0.7 s to import: only when asked)

    gamma = (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)
    term = gamma * math.log(gamma / beta) - (gamma - beta)
    n_start = max(math.ceil(k / gamma - 1.0), 0)
    best = -math.inf
    while True:
        n = np.arange(n_start, n_start + _BLOCK, dtype=np.int64)
        a = binom.sf(np.floor(n * gamma), n, beta)
        running = np.maximum.accumulate(np.maximum(a, best))
        done = np.flatnonzero(running >= np.exp(-n * term))
        if len(done):
            return float(running[done[0]])
        best = float(running[-1])
        n_start += _BLOCK


def derive(epsilon: float, delta: float, search_budget: float) -> DPParameters:
    """beta and k for a total budget ``epsilon`` of which ``search_budget`` goes to the choice of the
    generalization, and ``delta`` (all three already checked: 0 <= budget < epsilon, 0 < delta < 1)."""
    eps = epsilon - search_budget
    beta = sampling_probability(eps)
    k = 1
    while delta_of_k(k, eps, beta) >= delta:
        k += 1
        if k > _MAX_K:
            raise ValueError(f"no k up to {_MAX_K} reaches delta {delta}")
    return DPParameters(epsilon, delta, search_budget, beta, k + 1)  # + 1: as ARX (module docstring)
