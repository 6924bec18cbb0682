"""How many people of the population are unique on the quasi-identifiers: estimated from the class sizes
of a sample (the table) and the size of the population it was drawn from.

A record alone in its class of the table (a *sample unique*) may still share its values with many people
who are not in the table. The share of *population uniques* can only be estimated, by a model of how the
population's class sizes are distributed. Four estimators, all computed from the histogram of class sizes
(how many classes hold 1, 2, 3, ... records; vectorized over the distinct sizes, never a loop per class):

- **Pitman** (Pitman 1996, "Some developments of the Blackwell-MacQueen urn scheme"; applied to disclosure
  by Hoshino 2001, "Applying Pitman's sampling formula to microdata disclosure risk assessment", JOS
  17(4)): the maximum-likelihood (theta, alpha) of Pitman's sampling formula, then
  ``Gamma(theta + 1) / Gamma(theta + alpha) * N**alpha`` population uniques;
- **Zayatz** (Zayatz 1991, "Estimation of the percent of unique population elements on a microdata file
  using the sample", US Census SRD report 91/08): the share of sample uniques that are population uniques,
  from the hypergeometric chance that a class of each size is drawn once;
- **SNB** (Chen & Keller-McNulty 1998, "Estimation of identification disclosure risk in microdata", JOS
  14(1)): population class sizes follow a slide negative binomial (1 + NB(alpha, beta)); the method of
  moments on the counts of classes of size 1 and 2 gives alpha and beta, then ``K * beta**alpha``;
- **Dankar** (Dankar, El Emam, Neisa & Roffey 2012, "Estimating the re-identification risk of clinical
  data sets", BMC Med Inform Decis Mak 12:66): a decision rule among them, Pitman when the sampling
  fraction is at most 10 %, otherwise the smaller of Zayatz and SNB.

The definitions and the initial values follow ARX 3.9.2 (``org.deidentifier.arx.risk``), so the figures
agree with ARX's to 1e-6; where they do not, this module says why (see :func:`snb`). An estimator that
has no solution gives None, never 0: "no estimate" is not "no population uniques".

Numerical work (scipy 1.17): Pitman's likelihood equations are solved by Newton's method from ARX's start
with the analytic Jacobian and a scale-invariant step test (:func:`_newton`), and where that ends off a
root by ``scipy.optimize.root`` (MINPACK's hybrid Powell method, ``hybr``); their sums over the classes
are digamma and trigamma differences (``scipy.special.psi``, ``zeta``; ARX's closed form), so a solve
costs the same for 10 classes as for 10,000 (:class:`_PitmanEquations`); the result's Gamma ratio is
``scipy.special.poch`` (exact where two log-Gamma values of size 1e10 would cancel). SNB's two moment
equations go through the same root finder from ARX's sixteen start values. Zayatz's hypergeometric
ratios are a cumulative product in log space (``numpy.log1p``), exact even for a population of 1e9, where
a difference of two ``gammaln`` values of size 2e10 would lose six digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special  # type: ignore[import-untyped]

from kanon_engine.data.records import named_values
from kanon_engine.i18n import N_

#: The population sizes ARX 3.9.2 offers as regions (``ARXPopulationModel.Region``), keyed for the CLI.
REGIONS: dict[str, int] = {
    "africa": 1_100_000_000,
    "australia": 23_130_900,
    "europe": 740_000_000,
    "north-america": 565_265_000,
    "south-america": 385_742_554,
    "european-union": 507_420_000,
    "brazil": 202_656_788,
    "canada": 34_834_841,
    "china": 1_366_040_000,
    "france": 65_820_916,
    "germany": 80_767_000,
    "india": 1_210_569_573,
    "uk": 63_705_000,
    "usa": 317_238_626,
}
#: The regions' names for people (catalog ids).
REGION_NAMES: dict[str, str] = {
    "africa": N_("Africa"),
    "australia": N_("Australia"),
    "europe": N_("Europe"),
    "north-america": N_("North America"),
    "south-america": N_("South America"),
    "european-union": N_("European Union"),
    "brazil": N_("Brazil"),
    "canada": N_("Canada"),
    "china": N_("China"),
    "france": N_("France"),
    "germany": N_("Germany"),
    "india": N_("India"),
    "uk": N_("United Kingdom"),
    "usa": N_("USA"),
}
#: The estimators by name (the CLI's ``--population-model`` values).
ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
#: Dankar et al. use Pitman up to this sampling fraction.
DANKAR_PITMAN_FRACTION = 0.1
#: A solution must make both equations this small, relative to the counts they match.
_RESIDUAL = 1e-7


@dataclass(frozen=True, eq=False)
class SizeHistogram:
    """How many classes hold each number of records: ``sizes`` ascending (distinct), ``counts`` classes."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, class_sizes: np.ndarray) -> SizeHistogram:
        """The histogram of a table's class sizes (classes of 0 records are left out)."""
        s = np.asarray(class_sizes, dtype=np.int64)
        sizes, counts = np.unique(s[s > 0], return_counts=True)
        return cls(sizes.astype(np.int64), counts.astype(np.int64))

    @property
    def records(self) -> int:
        return int((self.sizes * self.counts).sum())

    @property
    def classes(self) -> int:
        return int(self.counts.sum())

    def classes_of_size(self, size: int) -> int:
        return int(self.counts[self.sizes == size].sum())


# --- Pitman -------------------------------------------------------------------------------------------
def pitman(h: SizeHistogram, population: float) -> float | None:
    """Share of the population that is unique, by Pitman's sampling formula (Hoshino 2001); None when
    the likelihood equations have no solution with theta >= 0 (ARX's constraint)."""
    c1 = h.classes_of_size(1)
    if c1 == 0:
        return 0.0
    n, u = float(h.records), float(h.classes)
    c2 = float(h.classes_of_size(2)) or 1.0  # ARX: an overestimate when there are no pairs
    c = c1 * (c1 - 1) / c2
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    i = np.arange(1, int(u), dtype=np.float64)
    equations = _PitmanEquations(h)

    def accept(root: np.ndarray | None) -> tuple[float, float] | None:
        """A root of the equations that ARX accepts (theta >= 0, alpha not 0)."""
        if root is None:
            return None
        t, a = float(root[0]), float(root[1])
        if not (t >= 0 and a != 0 and math.isfinite(a)):
            return None
        with np.errstate(all="ignore"):
            terms = np.array([special.psi(t + n) - special.psi(t + 1.0), (i / (t + i * a)).sum()])
            return (t, a) if _small(equations(root)[0], np.abs(terms)) else None

    # Newton on the analytic Jacobian settles in a few steps from ARX's start; where it does not, or ends
    # outside the model's range, MINPACK's hybrid method from the same start
    found = accept(_newton(equations, (t0, a0))) or accept(_solve(equations, (t0, a0)))
    if found is None:
        return None
    t, a = found
    if t + a <= 0:
        return None
    uniques = float(special.poch(t + a, 1.0 - a)) * math.exp(a * math.log(population))
    if not 0.0 <= uniques <= population:
        return None
    return uniques / population


#: Pitman's sums over the classes i = 1 .. u-1 (:class:`_PitmanEquations`) are taken as digamma and
#: trigamma differences, O(1) instead of O(u), when the table has at least this many classes and
#: |theta / alpha| is at most :data:`_CLOSED_SPAN` times u (beyond, the differences would cancel digits)
_CLOSED_MIN_CLASSES = 256
_CLOSED_SPAN = 64.0


class _PitmanEquations:
    """The two likelihood equations of Pitman's sampling formula for a histogram (Hoshino 2001, eqs. for
    the maximum-likelihood theta and alpha), as ARX states them, with their analytic Jacobian.

    The sums over the classes i = 1 .. u-1 of 1 / (t + i a) and its square are Hurwitz-zeta differences:
    with x = t / a, sum 1 / (x + i) = psi(x + u) - psi(x + 1) and sum 1 / (x + i)^2 = zeta(2, x + 1) -
    zeta(2, x + u) for a > 0 (for a < 0 the same on y - i, y = -x > u - 1 in the model's range), and the
    sums weighted by i and i^2 follow from i a = (t + i a) - t. That makes an evaluation cost the same
    for 10 classes as for 10,000 (a search solves them ~60 times per node). Where |x| is large against u
    (alpha near 0) those differences would cancel digits, and the sums are added up term by term."""

    def __init__(self, h: SizeHistogram) -> None:
        self.n, self.u = float(h.records), float(h.classes)
        self.i = np.arange(1, int(self.u), dtype=np.float64)
        big = h.sizes > 1
        self.s, self.cs = h.sizes[big].astype(np.float64), h.counts[big].astype(np.float64)

    def _ends(self, t: float, a: float) -> list[float]:
        """The two arguments (lo, hi) of the closed-form sums, or none when they would lose digits."""
        m = self.u - 1.0
        if m < _CLOSED_MIN_CLASSES or a == 0.0 or abs(t / a) > _CLOSED_SPAN * m:
            return []
        x = t / a
        return [x + 1.0, x + m + 1.0] if a > 0 else [-x - m, -x]

    def __call__(self, x: np.ndarray, with_jacobian: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The two equations at x = (theta, alpha), and their Jacobian when asked."""
        t, a = float(x[0]), float(x[1])
        n, u, i, s, cs = self.n, self.u, self.i, self.s, self.cs
        if not (t > -1.0 and a < 1.0 and t + a > 0.0 and t + (u - 1.0) * a > 0.0):
            # outside the model's range (theta > -alpha, alpha < 1), where the trigamma of a large
            # negative argument also takes scipy minutes: no value, so Newton halves its step
            return np.full(2, np.nan), np.full((2, 2), np.nan)
        ends = self._ends(t, a)
        k = 3 + len(ends)
        # digamma and trigamma (= Hurwitz zeta(2, x) for x > 0) of every argument in one call each:
        # the per-call overhead of scipy's scalar polygamma was most of a search's time
        args = np.concatenate([[t + n, t + 1.0, 1.0 - a], ends, s - a])
        psi = special.psi(args)
        if ends:
            s0 = (psi[4] - psi[3]) / abs(a)
            s1 = ((u - 1.0) - t * s0) / a
        else:
            inv = 1.0 / (t + i * a)
            s0, s1 = inv.sum(), (i * inv).sum()
        f1 = s0 - (psi[0] - psi[1])
        f2 = s1 - (cs * (psi[k:] - psi[2])).sum()
        if not with_jacobian:
            return np.array([f1, f2]), None
        tri = special.zeta(2.0, args)
        if ends:
            q0 = (tri[3] - tri[4]) / (a * a)
            q1 = (s0 - t * q0) / a
            q2 = (s1 - t * q1) / a
        else:
            inv2 = inv * inv
            q0, q1, q2 = inv2.sum(), (i * inv2).sum(), (i * i * inv2).sum()
        d_tt = -q0 - (tri[0] - tri[1])
        d_aa = -q2 + (cs * (tri[k:] - tri[2])).sum()
        return np.array([f1, f2]), np.array([[d_tt, -q1], [-q1, d_aa]])


def _newton(equations: Any, start: tuple[float, float], steps: int = 60) -> np.ndarray | None:
    """Newton's method on two equations with their analytic Jacobian (``equations(x)`` gives both,
    ``equations(x, False)`` the values alone), the step halved while it leaves the equations' domain or
    does not pass Deuflhard's natural monotonicity test (Deuflhard 2004, "Newton Methods for Nonlinear
    Problems", sec. 3.3: the next Newton correction from the same Jacobian, J(x)^-1 F(trial), must be
    smaller than this one; unlike the size of F itself this does not depend on the equations' scales,
    which differ by orders of magnitude here, so steps are not halved for nothing near the root). None
    when it leaves the finite values (the caller then tries MINPACK's hybrid method); where it ends is a
    root only when the caller's residual test says so."""
    x = np.asarray(start, dtype=np.float64)
    with np.errstate(all="ignore"):
        values, jac = equations(x)
        for _step in range(steps):
            if not (np.all(np.isfinite(values)) and np.all(np.isfinite(jac))):
                return None
            try:
                inverse = np.linalg.inv(jac)
            except np.linalg.LinAlgError:
                return None
            delta = -(inverse @ values)
            size = float(np.abs(delta).max())
            scale = 1.0
            for _half in range(40):  # trial points need the values only, not the Jacobian
                trial = x + scale * delta
                t_values = equations(trial, False)[0]
                t_size = float(np.abs(inverse @ t_values).max())
                if np.isfinite(t_size) and t_size < size:
                    break
                scale /= 2.0
            else:  # no step passes: x is a root as far as the arithmetic tells, or Newton is stuck
                return x
            if np.all(np.abs(trial - x) <= 1e-13 * np.maximum(np.abs(x), 1.0)):
                return trial
            x, values = trial, t_values
            if not np.any(values):
                return x
            jac = equations(x)[1]
    return x


def _solve(equations: Any, start: tuple[float, float], jac: bool = True) -> np.ndarray | None:
    """A root of two equations from ``start`` by MINPACK's hybrid method (``equations`` gives the values,
    and the Jacobian too when ``jac``); None when the solver stops elsewhere than at a finite point (the
    caller checks how close to 0 the equations are there)."""
    if not all(math.isfinite(v) for v in start):
        return None
    from scipy import optimize  # (0.4 s to import: only when asked)

    with np.errstate(all="ignore"):
        try:
            sol = optimize.root(equations, np.asarray(start, dtype=np.float64), jac=jac, method="hybr")
        except (ValueError, ZeroDivisionError, FloatingPointError, OverflowError):
            return None
    return sol.x if np.all(np.isfinite(sol.x)) else None


def _small(values: np.ndarray, scale: np.ndarray) -> bool:
    """Whether both equations are 0 up to :data:`_RESIDUAL` relative to the size of their terms."""
    return bool(np.all(np.isfinite(values)) and np.all(np.abs(values) <= _RESIDUAL * np.maximum(scale, 1.0)))


# --- Zayatz -------------------------------------------------------------------------------------------
def zayatz(h: SizeHistogram, population: float) -> float | None:
    """Share of the population that is unique by Zayatz's method, as ARX computes it.

    With P_s the hypergeometric chance that a class of s records of the population shows exactly one in a
    sample of n (``hypergeom.pmf(1, N, s, n)``), the share of sample uniques that are population uniques
    is ``(c1 P_1) / sum_s c_s P_s`` (ARX's form, with the sample class sizes standing for the
    population's); population uniques = c1 x that share / (n / N). The ratios ``P_s / P_1 = s prod_{j<s}
    (N - n + 1 - j) / (N - j)`` are accumulated in log space, exact for any N.
    """
    c1 = h.classes_of_size(1)
    if c1 == 0:
        return 0.0
    n = float(h.records)
    if population < n:
        return None
    top = int(h.sizes[-1])
    j = np.arange(1, top, dtype=np.float64)
    log_ratio = np.concatenate([[0.0], np.cumsum(np.log1p(-(n - 1.0) / (population - j)))])
    ratio = h.sizes * np.exp(log_ratio[h.sizes - 1])  # P_s / P_1 for every distinct size
    uniqueness = c1 / float((h.counts * ratio).sum())
    return c1 * uniqueness / n


# --- SNB ----------------------------------------------------------------------------------------------
def snb(h: SizeHistogram, population: float) -> float | None:
    """Share of the population that is unique under the slide negative binomial model (Chen &
    Keller-McNulty 1998); None when its moment equations have no solution.

    The population's class sizes are 1 + NB(alpha, beta); a sample of n = f N records shows a class of
    size 1 or 2 with the chances that the sizes' generating function gives, so the expected numbers of
    sample classes of size 1 and 2 are ``K f (b/w)^a (1 + a d/w)`` and ``K a b^a f^2 (1 - b) / 2
    w^-(a+2) (2 - (1 - a) d)``, with d = (1 - f)(1 - b), w = 1 - d and K = N / (1 + a (1 - b) / b) the
    model's number of non-empty classes (so that its population adds up to N). Set equal to the counts
    c1 and c2, they give alpha and beta: their ratio does not involve K and gives alpha for every beta
    (a quadratic), which leaves one equation in beta, scanned over (0, 1) at once (vectorized) and solved
    where it changes sign by ``scipy.optimize.brentq`` (the first such beta); the population uniques are
    ``K b^a``. No sign change: no solution. On populations drawn from the model this
    recovers alpha, beta and the share of uniques (tests/engine/test_population_estimates.py).

    ARX 3.9.2 solves other equations: its second moment has w^(a+2) (the exponent's sign lost) and its K
    comes from a separate formula that falls far below the true K on such populations; it finds no root
    on every Adult table tried and reports 0. A table without a solution is reported here as having none.
    """
    c1, c2 = float(h.classes_of_size(1)), float(h.classes_of_size(2))
    if c1 == 0:
        return 0.0
    f = h.records / population
    if not 0.0 < f < 1.0 or c2 == 0:
        return None

    b = special.expit(np.linspace(-14.0, 14.0, 561))  # beta over (0, 1), dense at both ends
    gap = _snb_gap(b, c1, c2, f, population)
    change = np.flatnonzero(
        np.isfinite(gap[:-1]) & np.isfinite(gap[1:]) & (np.sign(gap[:-1]) != np.sign(gap[1:]))
    )
    if not len(change):
        return None
    lo, hi = float(b[change[0]]), float(b[change[0] + 1])
    from scipy import optimize  # (0.4 s to import: only when asked)

    root = optimize.brentq(_snb_gap_at, lo, hi, args=(c1, c2, f, population), xtol=1e-14)
    alpha = float(_snb_alpha(np.array([root]), c2 / c1, f)[0])
    return _snb_classes(alpha, root, population) * root**alpha / population


def _snb_alpha(b: np.ndarray, ratio: float, f: float) -> np.ndarray:
    """For each beta, the alpha for which the expected classes of size 2 and 1 are in the ratio c2 / c1
    (that ratio does not depend on K): the positive root of f (1-b) d a^2 + (f (1-b) (2-d) - 2 r w d) a
    - 2 r w^2 = 0, with d = (1-f)(1-b), w = 1 - d."""
    d = (1.0 - f) * (1.0 - b)
    w = 1.0 - d
    qa = f * (1.0 - b) * d
    qb = f * (1.0 - b) * (2.0 - d) - 2.0 * ratio * w * d
    qc = -2.0 * ratio * w * w
    return (-qb + np.sqrt(qb * qb - 4.0 * qa * qc)) / (2.0 * qa)


def _snb_gap_at(b: float, c1: float, c2: float, f: float, population: float) -> float:
    """:func:`_snb_gap` at one beta, in scalar arithmetic (what the root finder calls, a few times)."""
    ratio = c2 / c1
    d = (1.0 - f) * (1.0 - b)
    w = 1.0 - d
    qa = f * (1.0 - b) * d
    qb = f * (1.0 - b) * (2.0 - d) - 2.0 * ratio * w * d
    a = (-qb + math.sqrt(qb * qb + 8.0 * qa * ratio * w * w)) / (2.0 * qa)
    k = population / (1.0 + a * (1.0 - b) / b)
    return k * f * (b / w) ** a * (1.0 + a * d / w) / c1 - 1.0


def _snb_gap(b: np.ndarray, c1: float, c2: float, f: float, population: float) -> np.ndarray:
    """Per beta (with its alpha from :func:`_snb_alpha`): expected sample uniques / c1 - 1."""
    with np.errstate(all="ignore"):
        a = _snb_alpha(b, c2 / c1, f)
        d = (1.0 - f) * (1.0 - b)
        w = 1.0 - d
        k = population / (1.0 + a * (1.0 - b) / b)
        return k * f * (b / w) ** a * (1.0 + a * d / w) / c1 - 1.0


def _snb_classes(a: float, b: float, population: float) -> float:
    """The number of non-empty classes of a population of ``population`` people whose class sizes are
    1 + NB(a, b) (mean size 1 + a (1 - b) / b)."""
    return population / (1.0 + a * (1.0 - b) / b)


# --- Dankar's rule ------------------------------------------------------------------------------------
def dankar(h: SizeHistogram, population: float, fallback: bool = True) -> tuple[float | None, str | None]:
    """Dankar et al. (2012)'s choice among the estimators and its estimate: (share, chosen estimator).

    Sampling fraction n/N at most 10 %: Pitman (Zayatz when Pitman has no solution and ``fallback``, as
    ARX's risk analysis does; the privacy model does without). Above: the smaller of Zayatz and SNB, Zayatz
    alone when SNB has no solution. No sample uniques: 0, nothing chosen.
    """
    if h.classes_of_size(1) == 0:
        return 0.0, None
    if h.records / population <= DANKAR_PITMAN_FRACTION:
        p = pitman(h, population)
        if p is not None and p > 0:
            return p, "pitman"
        return (zayatz(h, population), "zayatz") if fallback else (None, None)
    z = zayatz(h, population)
    s = snb(h, population)
    if s is not None and s > 0 and (z is None or s <= z):
        return s, "snb"
    return z, "zayatz"


@dataclass(frozen=True)
class PopulationUniques:
    """The four estimates of the share of population uniques for one table (None: no solution)."""

    population: int
    records: int
    sample_uniques: int
    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    dankar_chooses: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **named_values(self, "pitman", "zayatz", "snb", "dankar", "dankar_chooses"),
            "population_size": self.population,
            **named_values(self, "records", "sample_uniques"),
        }


def population_uniques(class_sizes: np.ndarray, population: int) -> PopulationUniques:
    """Every estimate for a table with these class sizes drawn from a population of ``population``."""
    h = SizeHistogram.of(class_sizes)
    d, chosen = dankar(h, float(population))
    return PopulationUniques(
        int(population),
        h.records,
        h.classes_of_size(1),
        pitman(h, float(population)),
        zayatz(h, float(population)),
        snb(h, float(population)),
        d,
        chosen,
    )
