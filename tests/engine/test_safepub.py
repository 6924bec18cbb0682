"""SafePub (issue 32): sampling frequencies, the exponential mechanism's selection frequencies, classes
of at least k, refusals, and Adult releases checked from the written files."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from kanon_engine.algorithms import get_algorithm, safepub
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.core.table_check import check_table
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy import DifferentialPrivacy, KAnonymity
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.sources import encode_records
from tests.conftest import ADULT_QI


class Seeded:
    """A reproducible source for tests only (SafePub itself always uses the secure one)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def uniforms(self, n: int) -> np.ndarray:
        return self.rng.random(n)


def _tiny(n: int = 300) -> tuple[Table, AnonymizationConfig, DifferentialPrivacy]:
    """n records over two quasi-identifiers with 2-level hierarchies (a 3 x 3 lattice) and a record id."""
    rng = np.random.default_rng(7)
    x = rng.choice(["a1", "a2", "b1", "b2"], n, p=[0.4, 0.3, 0.2, 0.1])
    y = rng.choice(["p", "q", "r", "s"], n, p=[0.5, 0.3, 0.15, 0.05])
    frame = pd.DataFrame({"x": x, "y": y, "rid": [str(i) for i in range(n)]})
    hx = Hierarchy.from_rows("x", [["a1", "a", "*"], ["a2", "a", "*"], ["b1", "b", "*"], ["b2", "b", "*"]])
    hy = Hierarchy.from_rows("y", [["p", "pq", "*"], ["q", "pq", "*"], ["r", "rs", "*"], ["s", "rs", "*"]])
    model = DifferentialPrivacy(1.0, 1e-5, 0.1)
    config = AnonymizationConfig(("x", "y"), {"x": hx, "y": hy}, (KAnonymity(2), model))
    return Table.from_frame(frame), config, model


def test_secure_source_gives_uniforms() -> None:
    u = safepub.SecureRandom().uniforms(200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 6 * math.sqrt(1 / 12 / len(u))
    assert not np.array_equal(u[:100], safepub.SecureRandom().uniforms(100))
    assert isinstance(safepub.random_source(), safepub.SecureRandom)  # nothing a user sets changes it


def test_each_record_is_included_with_probability_beta(monkeypatch: pytest.MonkeyPatch) -> None:
    """400 SafePub runs at fixed top levels (one class, nothing but sampling removes a record): every
    record's inclusion frequency is beta within 4.5 standard errors (fixed test seed)."""
    table, config, _m = _tiny()
    model = DifferentialPrivacy(1.0, 1e-5, dp_levels="x=2,y=2")
    config = AnonymizationConfig(config.quasi_identifiers, config.hierarchies, (KAnonymity(2), model))
    src = Seeded(11)
    monkeypatch.setattr(safepub, "random_source", lambda: src)
    runs, beta = 400, model.derived.beta
    hits = np.zeros(table.n_rows)
    for _ in range(runs):
        result = get_algorithm("safepub").run(table, config)
        assert int(result.class_sizes.min()) >= model.derived.k
        hits[result.release["rid"].astype(int).to_numpy()] += 1
    se = math.sqrt(beta * (1 - beta) / runs)
    assert np.all(np.abs(hits / runs - beta) < 4.5 * se)
    assert abs(hits.mean() / runs - beta) < 4.5 * se / math.sqrt(table.n_rows)


def _pandas_scores(frame: pd.DataFrame, config: AnonymizationConfig, k: int) -> dict[tuple[int, int], float]:
    """SafePub's discernibility score of every node, by pandas on the generalized values (independent
    of the engine): -(sum of kept class sizes squared + n * suppressed)."""
    n = len(frame)
    out = {}
    for lx in range(3):
        for ly in range(3):
            gx = config.hierarchies["x"].generalize(frame["x"], lx)
            gy = config.hierarchies["y"].generalize(frame["y"], ly)
            sizes = pd.Series(list(zip(gx, gy))).value_counts().to_numpy()
            kept = sizes[sizes >= k]
            out[(lx, ly)] = -(float((kept.astype(float) ** 2).sum()) + n * float(sizes[sizes < k].sum()))
    return out


def test_exponential_mechanism_selection_frequencies_match_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 3 x 3 lattice, 20,000 draws of SafePub's choice match exp(B * score / (2 * sensitivity))
    computed from pandas scores (chi-square, fixed test seed); the engine's scores are the pandas ones."""
    table, config, _m = _tiny(120)
    budget = 40.0  # large, so the weights differ enough for the test to have power
    big = DifferentialPrivacy(41.0, 1e-5, budget)
    config = AnonymizationConfig(config.quasi_identifiers, config.hierarchies, (KAnonymity(2), big))
    enc = encode_records(table, config)
    k = big.derived.k
    scores = _pandas_scores(table.frame, config, k)
    sensitivity = enc.n_rows * (k * k / (k - 1) + 1)
    logits = np.array([budget * s / (2 * sensitivity) for s in scores.values()])
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    evaluator = NodeEvaluator(enc, config.models, enc.n_rows, suppressed_group_k=0)
    lattice, engine_scores, engine_sensitivity = safepub.SafePub().lattice_scores(enc, config, big, evaluator)
    nodes = [lattice.node(i) for i in range(lattice.size)]
    assert engine_scores.tolist() == [scores[node] for node in nodes]
    assert engine_sensitivity == pytest.approx(sensitivity)
    source = Seeded(5)
    draws = 20_000
    counts = dict.fromkeys(scores, 0)
    for _ in range(draws):
        chosen = safepub.exponential_mechanism(engine_scores, budget, engine_sensitivity, source)
        counts[nodes[chosen]] += 1
    observed = np.array([counts[node] for node in scores])
    keep = expected * draws >= 5
    f_exp = np.append(expected[keep] * draws, expected[~keep].sum() * draws)
    f_obs = np.append(observed[keep], observed[~keep].sum())
    assert chisquare(f_obs, f_exp).pvalue > 1e-3
    assert len(set(counts.values())) > 2  # the weights really differ


def test_identifiers_never_reach_the_release() -> None:
    table, config, model = _tiny()
    frame = table.frame.assign(name=[f"patient {i}" for i in range(table.n_rows)])
    config = AnonymizationConfig(
        config.quasi_identifiers, config.hierarchies, config.models, identifiers=("name",)
    )
    result = get_algorithm("safepub").run(Table.from_frame(frame), config)
    assert "name" not in result.release.columns and "rid" in result.release.columns


def test_log_sum_exp_never_overflows() -> None:
    scores = np.array([-1e12, -1e12 + 3, -5e11, -2e12])
    p = safepub.selection_probabilities(scores, 1.0, 1.0)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0) and p.argmax() == 2
    assert safepub.exponential_mechanism(scores, 1.0, 1.0, Seeded(1)) == 2


def test_refusals_in_one_sentence() -> None:
    with pytest.raises(ConfigError, match="fix the levels in advance"):
        DifferentialPrivacy(1.0, 1e-5, 0.0)
    with pytest.raises(ConfigError, match="delta"):
        DifferentialPrivacy(1.0, 2.0)
    table, config, _m = _tiny()
    with pytest.raises(ConfigError, match="SafePub"):
        get_algorithm("optimal", suppression_limit=0.1).run(table, config)
    with pytest.raises(ConfigError, match="SafePub"):  # chosen levels applied by hand are no DP release
        apply_transformation(table, config, {"x": 1, "y": 1})
    with pytest.raises(ConfigError, match="epsilon"):
        get_algorithm("safepub").run(table, AnonymizationConfig(("x",), config.hierarchies, (KAnonymity(2),)))


@pytest.mark.parametrize(
    ("eps", "delta", "budget", "beta", "k"),
    [(1, 1e-5, 0.1, 0.593430340259, 59), (2, 1e-5, 0.1, 0.850431380777, 103)],
)
def test_adult_release_from_the_cli(
    capsys: pytest.CaptureFixture[str], adult_dir, tmp_path, eps, delta, budget, beta, k
) -> None:
    """Adult through the CLI twice: the report's beta and k are ARX's, every class of the written file
    has >= k records, the records kept agree with beta, and the two releases differ."""
    from kanon_engine.cli import main

    hierarchies = [f"--hierarchy={q}={adult_dir / f'adult_hierarchy_{q}.csv'}" for q in ADULT_QI]
    releases = []
    for run in range(2):
        out, rep = tmp_path / f"r{run}.csv", tmp_path / f"r{run}.json"
        args = [
            "anonymize", str(adult_dir / "adult.csv"), "--qi", ",".join(ADULT_QI), *hierarchies,
            "--dp-epsilon", str(eps), "--dp-delta", str(delta), "--dp-search-budget", str(budget),
            "--output", str(out), "--report", str(rep),
        ]  # fmt: skip
        assert main(args) == 0, capsys.readouterr().err
        block = json.loads(rep.read_text())["differential_privacy"]
        assert block["beta"] == pytest.approx(beta, abs=1e-12) and block["k"] == k
        assert set(block) >= {"epsilon", "delta", "search_budget", "beta", "k", "records_sampled"}
        n = block["records_given"]
        assert abs(block["records_sampled"] - beta * n) < 6 * math.sqrt(n * beta * (1 - beta))
        frame = pd.read_csv(out, dtype=str, keep_default_na=False)
        found = check_table(frame, ADULT_QI, k)
        assert found.smallest_class >= k and found.suppressed == 0
        assert len(frame) <= block["records_sampled"]
        releases.append(frame)
    assert not releases[0].equals(releases[1])


def test_a_person_role_is_refused_because_safepub_samples_rows() -> None:
    """SafePub's guarantee is about rows: with a person column (patients with several rows) it is
    refused in one sentence before any record is drawn."""
    import dataclasses

    table, config, _model = _tiny()
    config = dataclasses.replace(config, person="rid")
    with pytest.raises(ConfigError, match="samples single rows"):
        get_algorithm("safepub").run(table, config)


def test_records_left_out_are_never_written_even_when_asked_to_keep_suppressed(tmp_path) -> None:
    """An export asked to keep suppressed records as * must still leave out every record the sampling
    dropped and every record of a group under k: writing them (with their other columns) would undo the
    sampling that makes the release private."""
    table, config, model = _tiny(400)
    result = get_algorithm("safepub").run(table, config)
    for how in ("mask", "drop", None):
        path = tmp_path / f"{how}.csv"
        summary = export_release(table, result, path, ExportOptions(suppressed=how))
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        assert len(frame) == result.released_records == summary.rows
        assert sorted(frame["rid"]) == sorted(result.release["rid"])  # the released records, no other
        if len(frame):  # the draw may pick a node whose groups are all under k: nothing released
            assert check_table(frame, ["x", "y"], model.derived.k).smallest_class >= model.derived.k
        assert len(frame) <= result.differential_privacy["records_sampled"] < table.n_rows


def test_report_numbers_are_named_for_what_they_are(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    """Records given, sampled, left out by the sampling, removed in groups under k and released: each
    under its own name in the JSON and the HTML report, recomputed here from the files written (the
    sample's size is the one figure only the run knows)."""
    from kanon_engine.cli import main

    table, config, model = _tiny(600)
    source = tmp_path / "in.csv"
    table.frame.to_csv(source, index=False)
    for q in ("x", "y"):
        h = config.hierarchies[q]
        pd.DataFrame(h.rows()).to_csv(tmp_path / f"h_{q}.csv", sep=";", header=False, index=False)
    out, rep, html = tmp_path / "out.csv", tmp_path / "r.json", tmp_path / "r.html"
    args = [
        "anonymize", str(source), "--qi", "x,y", "--dp-epsilon", "1", "--dp-delta", "1e-5",
        f"--hierarchy=x={tmp_path / 'h_x.csv'}", f"--hierarchy=y={tmp_path / 'h_y.csv'}",
        "--output", str(out), "--report", str(rep), "--report-html", str(html),
    ]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    report = json.loads(rep.read_text())
    dp = report["differential_privacy"]
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    given, sampled, released = len(table.frame), dp["records_sampled"], len(written)
    assert dp["records_given"] == report["records"] == given
    assert dp["records_released"] == report["released_records"] == released
    assert dp["records_left_out_by_sampling"] == report["records_left_out_by_sampling"] == given - sampled
    assert dp["records_suppressed_in_small_groups"] == report["suppressed"] == sampled - released
    assert report["facts"]["release"]["records_suppressed"] == sampled - released
    if released:  # the draw may pick a node whose groups are all under k: nothing released
        assert check_table(written, ["x", "y"], model.derived.k).smallest_class >= model.derived.k
    text = html.read_text()
    for label, n in [
        ("Records given", given),
        ("Records in the random sample", sampled),
        ("Records left out by the random sampling", given - sampled),
        (f"Records removed in groups smaller than {model.derived.k}", sampled - released),
        ("Records in the release file", released),
    ]:
        assert re.search(rf"<td[^>]*>{label}</td><td[^>]*>{n:,}</td>", text), label
    assert f"measured on the random sample of {sampled:,} records" in text


def test_a_run_keeps_the_fingerprint_of_its_settings() -> None:
    """A configuration with differential privacy drops suppressed records by itself, so the run's
    settings are the project's (the workbench showed every SafePub run as out of date)."""
    table, config, _model = _tiny()
    assert config.drop_suppressed
    result = get_algorithm("safepub").run(table, config)
    assert result.config.fingerprint() == config.fingerprint()


def test_a_release_at_the_top_generalization_is_not_called_removed(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    """Levels fixed at the top: every released row reads * in every quasi-identifier, one group of the
    whole sample (at least the derived k). Those records are in the release file, not "removed in groups
    smaller than k" (the random draw of the test above lands there now and then)."""
    from kanon_engine.cli import main

    table, config, model = _tiny(600)
    source = tmp_path / "in.csv"
    table.frame.to_csv(source, index=False)
    top = {q: len(config.hierarchies[q].rows()[0]) - 1 for q in ("x", "y")}
    for q in ("x", "y"):
        pd.DataFrame(config.hierarchies[q].rows()).to_csv(
            tmp_path / f"h_{q}.csv", sep=";", header=False, index=False
        )
    out, rep = tmp_path / "out.csv", tmp_path / "r.json"
    args = [
        "anonymize", str(source), "--qi", "x,y", "--dp-epsilon", "1", "--dp-delta", "1e-5",
        f"--hierarchy=x={tmp_path / 'h_x.csv'}", f"--hierarchy=y={tmp_path / 'h_y.csv'}",
        "--dp-levels", f"x={top['x']},y={top['y']}", "--output", str(out), "--report", str(rep),
    ]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    report = json.loads(rep.read_text())
    dp = report["differential_privacy"]
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(written) >= model.derived.k and (written[["x", "y"]] == "*").all().all()
    assert dp["records_released"] == len(written) == dp["records_sampled"] == report["released_records"]
    assert dp["records_suppressed_in_small_groups"] == 0 == report["suppressed"]
    assert report["facts"]["release"]["records_suppressed"] == 0
