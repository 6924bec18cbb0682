"""The certificate of local suppression (kanon_engine/algorithms/local_bound.py) and the time-limited run
(local_improve.py): the bound is checked against exact optima (exhaustive search on tiny tables, an
independent integer program on tables of a few hundred records), its arithmetic against exact rational
recomputation, every release against an independent pandas checker of the written file."""

from __future__ import annotations

import json
import time
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms import local_bound as lb
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import Cancelled, DataError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import using
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity
from tests.conftest import ADULT_QI
from tests.engine import reference as ref
from tests.engine.exact_suppression import exact_min_stars, stars_in, strict_classes_ok


def _config(frame: pd.DataFrame, k: int, models: tuple = ()) -> AnonymizationConfig:
    qi = tuple(c for c in frame.columns if c != "diagnosis")
    hs = {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}
    return AnonymizationConfig(
        qi, hs, models or (KAnonymity(k),), sensitive=("diagnosis",) if "diagnosis" in frame else ()
    )


def _run(frame: pd.DataFrame, k: int, **params):
    return get_algorithm("local-suppression", **params).run(Table.from_frame(frame), _config(frame, k))


def _random_table(rng: np.random.Generator, n: int, d: int) -> pd.DataFrame:
    """Skewed values (a few common, many rare), so that some records must give up values."""
    cols = {}
    for j in range(d):
        size = int(rng.integers(2, 9))
        p = rng.dirichlet(np.full(size, 0.6))
        cols[f"q{j}"] = [f"v{int(x)}" for x in rng.choice(size, n, p=p)]
    return pd.DataFrame(cols, dtype=object)


def _long_bound(frame: pd.DataFrame, k: int, target: int, steps: int = 150) -> int:
    codes = np.stack([pd.factorize(frame[q])[0] for q in frame.columns])
    tuples, m, _row = lb.distinct_tuples(codes)
    model = lb.SuppressionModel(tuples, m, k)
    ascent = lb.Ascent(model, model.fewest.astype(float), target)
    for _ in range(steps):
        ascent.step()
    return ascent.bound


# --- the bound's arithmetic ------------------------------------------------------------------------------
def _lagrangian_fraction(frame: pd.DataFrame, k: int, prices: list[Fraction]) -> Fraction:
    """L(u) from its definition, in exact rationals, with pandas groupbys and Python loops over classes:
    every pattern, every class holding k records, each class's sub-problem by the greedy rule."""
    d = frame.shape[1]
    rows = frame.astype(str).value_counts(sort=False).reset_index(name="m")
    value = sum(p * int(m) for p, m in zip(prices, rows["m"]))
    for pattern in range(1 << d):
        kept = [q for j, q in enumerate(frame.columns) if not (pattern >> j) & 1]
        s = bin(pattern).count("1")
        groups = rows.groupby(kept, sort=False).indices if kept else {(): np.arange(len(rows))}
        for members in groups.values():
            m = [int(rows["m"].iloc[t]) for t in members]
            if sum(m) < k:
                continue
            costs = sorted((s - prices[t], mt) for t, mt in zip(members, m))
            total, taken = Fraction(0), 0
            for cost, mt in costs:
                if cost < 0:
                    total, taken = total + cost * mt, taken + mt
                elif taken < k:
                    use = min(mt, k - taken)
                    total, taken = total + cost * use, taken + use
            value += min(Fraction(0), total)
    return value


@pytest.mark.parametrize("seed", range(6))
def test_evaluation_is_exact(seed):
    """The engine's L(u) (integer ticks, sparse) equals the definition recomputed in exact rationals,
    and the bound is its ceiling."""
    rng = np.random.default_rng(seed)
    frame = _random_table(rng, int(rng.integers(30, 90)), int(rng.integers(2, 5)))
    k = int(rng.integers(2, 5))
    codes = np.stack([pd.factorize(frame[q])[0] for q in frame.columns])
    tuples, m, _row = lb.distinct_tuples(codes)
    model = lb.SuppressionModel(tuples, m, k)
    u = model.ticks(model.fewest + rng.uniform(-0.5, 2.0, len(m)))
    got = lb.evaluate(model, u)
    one = 1 << model.bits
    # the engine's tuples (numbered by distinct_tuples) onto the rows of the rational recomputation
    rows = frame.astype(str).value_counts(sort=False).reset_index(name="m")
    index = {r: i for i, r in enumerate(rows[list(frame.columns)].itertuples(index=False, name=None))}
    prices = [Fraction(0)] * len(rows)
    first = lb.distinct_tuples(codes)[2]
    for t in range(len(m)):
        record = int(np.flatnonzero(first == t)[0])
        prices[index[tuple(frame.astype(str).iloc[record])]] = Fraction(int(u[t]), one)
    want = _lagrangian_fraction(frame, k, prices)
    assert Fraction(got.value, one) == want
    assert lb.bound_of(model, got.value) == -((-want.numerator) // want.denominator)


# --- the bound against exact optima ---------------------------------------------------------------------
def test_bound_at_most_the_exhaustive_minimum_on_tiny_tables():
    """On 60 tiny tables: certificate bound <= the fewest '*' (exhaustive search) <= kanon's '*'."""
    rng = np.random.default_rng(35)
    equal = 0
    for _ in range(60):
        frame = _random_table(rng, int(rng.integers(5, 11)), int(rng.integers(2, 4)))
        k = int(rng.integers(2, 4))
        r = _run(frame, k)
        stars = r.recoding.suppressed_cells
        best = ref.min_suppressed_cells(frame, list(frame.columns), k, upper=stars)
        bound = r.certificate["lower_bound"]
        assert bound <= best <= stars, (frame, k, bound, best, stars)
        assert _long_bound(frame, k, stars, 60) <= best
        equal += bound == best
    assert equal > 0


def test_bound_against_an_integer_program(adult_frame):
    """On tables of 150-300 records (random, and samples of Adult's quasi-identifiers), 3-6 attributes,
    k 2-5: bound (default and after price steps) <= optimum (HiGHS, proved) <= kanon's '*', and with a
    time limit kanon's '*' stay >= the optimum and the release stays k-anonymous."""
    rng = np.random.default_rng(7)
    adult = adult_frame
    solved = 0
    for i in range(8):
        if i % 2:
            qi = list(rng.choice(ADULT_QI, int(rng.integers(3, 6)), replace=False))
            frame = adult[qi].sample(int(rng.integers(150, 300)), random_state=i).reset_index(drop=True)
        else:
            frame = _random_table(rng, int(rng.integers(150, 300)), int(rng.integers(3, 6)))
        k = int(rng.choice([2, 3, 5]))
        r = _run(frame, k)
        stars = r.recoding.suppressed_cells
        best, optimal = exact_min_stars(frame, list(frame.columns), k, seconds=20)
        if not optimal:
            continue
        solved += 1
        bound = r.certificate["lower_bound"]
        assert bound <= _long_bound(frame, k, stars) <= best <= stars, (i, bound, best, stars)
        if i < 3:
            timed = _run(frame, k, time_limit=1.0)
            assert best <= timed.recoding.suppressed_cells <= stars
            assert strict_classes_ok(timed.release, list(frame.columns), k)
            assert timed.certificate["lower_bound"] <= best
    assert solved >= 6


# --- what the user gets ----------------------------------------------------------------------------------
def test_certificate_in_the_json_report_matches_the_written_file(tmp_path):
    """The CLI's JSON report carries certificate {lower_bound, gap, method}; the '*' in the written file,
    counted by pandas, are the certificate's, the file is k-anonymous, and gap = '*' / bound - 1."""
    from kanon_engine.cli import main

    rng = np.random.default_rng(3)
    frame = _random_table(rng, 600, 5)
    src = tmp_path / "in.csv"
    frame.to_csv(src, index=False)
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    qi = ",".join(frame.columns)
    args = ["anonymize", str(src), "--qi", qi, "--k", "4", "--algorithm", "local-suppression"]
    code = main([*args, "--time-limit", "1.5", "--output", str(out), "--report", str(rep)])
    assert code == 0
    cert = json.loads(rep.read_text())["certificate"]
    assert {"lower_bound", "gap", "method"} <= set(cert)
    release = pd.read_csv(out, dtype=str, keep_default_na=False)
    stars = stars_in(release, list(frame.columns))
    assert strict_classes_ok(release, list(frame.columns), 4)
    assert cert["suppressed_cells"] == stars and 0 < cert["lower_bound"] <= stars
    assert cert["gap"] == pytest.approx(stars / cert["lower_bound"] - 1, abs=1e-6)
    assert cert["method"] == "lagrangian-relaxation"


def test_time_limit_keeps_the_best_and_finishes_in_time():
    """A time limit never gives more '*' than the usual run, ends near its limit, and reports progress
    with the best so far."""
    rng = np.random.default_rng(11)
    frame = _random_table(rng, 2000, 6)
    usual = _run(frame, 3)
    messages = []
    t0 = time.perf_counter()
    timed = get_algorithm("local-suppression", time_limit=3.0).run(
        Table.from_frame(frame), _config(frame, 3), progress=lambda f, msg: messages.append(msg)
    )
    assert time.perf_counter() - t0 < 3.0 + 2.0
    assert timed.recoding.suppressed_cells <= usual.recoding.suppressed_cells
    assert timed.certificate["lower_bound"] >= usual.certificate["lower_bound"]  # prices only improve
    assert any(msg.startswith("Best so far:") for msg in messages)
    assert strict_classes_ok(timed.release, list(frame.columns), 3)


def test_cancel_stops_a_timed_run():
    rng = np.random.default_rng(12)
    frame = _random_table(rng, 2000, 6)
    calls = []

    def progress(fraction, message):
        calls.append(message)
        if message.startswith("Best so far:") and len(calls) > 5:
            raise Cancelled()

    t0 = time.perf_counter()
    with pytest.raises(Cancelled):
        get_algorithm("local-suppression", time_limit=30.0).run(
            Table.from_frame(frame), _config(frame, 3), progress
        )
    assert time.perf_counter() - t0 < 10.0


def test_l_diversity_keeps_the_release_and_a_valid_bound():
    """With l-diversity the program is not used (it knows no sensitive values): the release is the
    usual one; the bound of k-anonymity alone still bounds it."""
    rng = np.random.default_rng(5)
    frame = _random_table(rng, 400, 4)
    frame["diagnosis"] = rng.choice(["a", "b", "c", "d"], len(frame))
    config = _config(frame, 3, (KAnonymity(3), DistinctLDiversity(2, "diagnosis")))
    usual = get_algorithm("local-suppression").run(Table.from_frame(frame), config)
    timed = get_algorithm("local-suppression", time_limit=1.0).run(Table.from_frame(frame), config)
    assert timed.recoding.suppressed_cells == usual.recoding.suppressed_cells
    assert timed.certificate["lower_bound"] <= timed.recoding.suppressed_cells


def test_literal_star_values_are_refused_before_any_bound():
    """A value that is the string '*' would read like a suppressed cell in the release (and could share a
    group with suppressed cells): such a table is refused in one sentence naming the column, before
    any certificate is computed (issue 29's mark check), unless another mark is chosen."""
    rng = np.random.default_rng(9)
    frame = _random_table(rng, 9, 2)
    frame.loc[[0, 3], "q0"] = "*"
    with pytest.raises(DataError, match="q0"):
        _run(frame, 2)


def test_a_truncated_model_still_bounds(monkeypatch):
    """On a table too large for every pattern, the patterns with the most '*' are left out and prices
    capped: the bound stays below the exact minimum."""
    monkeypatch.setattr(lb, "MAX_ENTRIES", 150)
    rng = np.random.default_rng(21)
    for _ in range(8):
        frame = _random_table(rng, 80, 4)
        codes = np.stack([pd.factorize(frame[q])[0] for q in frame.columns])
        tuples, m, _row = lb.distinct_tuples(codes)
        model = lb.SuppressionModel(tuples, m, 3)
        assert not model.complete
        r = _run(frame, 3)
        best, optimal = exact_min_stars(frame, list(frame.columns), 3, seconds=20)
        assert optimal
        assert r.certificate["lower_bound"] <= best
        assert _long_bound(frame, 3, r.recoding.suppressed_cells) <= best


def test_certificate_sentence_rounds_up_and_reads_plainly():
    cert = lb.Certificate(14_137, 15_084, 3, 1, 0.3).to_dict()
    assert lb.certificate_sentence(cert) == (
        "At most 6.7 % more '*' than the fewest possible: no release of this table with groups of at least "
        "3 records can have fewer than 14,137 '*'."
    )
    assert "fewest '*' possible" in lb.certificate_sentence(lb.Certificate(10, 10, 3, 1, 0.1).to_dict())
    assert lb.certificate_sentence(lb.Certificate(0, 5, 3, 1, 0.1).to_dict()) == ""
    assert lb.certificate_sentence(None) == ""
    with using("de"):
        assert "6,7" in lb.certificate_sentence(cert)


def test_restored_project_does_not_rerun_a_timed_run():
    from kanon_engine.project.restore import rebuild_run

    rng = np.random.default_rng(2)
    frame = _random_table(rng, 300, 4)
    table, config = Table.from_frame(frame), _config(frame, 3)
    timed = get_algorithm("local-suppression", time_limit=0.5).run(table, config)
    result, reason = rebuild_run(table, config, timed.summary())
    assert result is None and "time limit" in reason
    usual = get_algorithm("local-suppression").run(table, config)
    again, _reason = rebuild_run(table, config, usual.summary())
    assert again is not None and again.certificate["lower_bound"] == usual.certificate["lower_bound"]
