"""SafePub: a differentially private release by sampling, generalization and suppression (Bild, Kuhn,
Prasser, "SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy Guarantees", PoPETs
2018(1):67-87, Algorithm 1).

1. Every record is kept with probability beta, independently, by uniforms from the operating system's
   cryptographically secure source (:class:`SecureRandom`, ``os.urandom``); which records were dropped
   is itself part of the randomness and is reported nowhere.
2. One full-domain transformation is chosen: the one fixed in advance (``dp_levels``), or one drawn by the
   exponential mechanism (McSherry & Talwar 2007) over the whole lattice with the search budget: node g
   has probability proportional to exp(budget * score(g) / (2 * sensitivity)), computed with the
   log-sum-exp shift (the largest exponent is subtracted before ``exp``, so nothing overflows and the
   best node has weight 1). ARX's SafePub instead walks the lattice top-down in several steps, splitting
   the budget; one draw over every node spends the same budget on the same score, without the walk.
3. Every class smaller than k is suppressed; suppressed records are left out of the release (as in the
   paper), so there is no group of '*' records.

Scores (SafePub, Section 5; the sensitivities are the paper's, as ARX 3.9 divides them), with n the
records of the table given, S the records suppressed in the sample, U those kept, h_i the height of
attribute i's hierarchy, l_i its level and d the number of quasi-identifiers:

- ``discernibility`` (Section 5.2): -(sum of |E|^2 over kept classes E + n * S), sensitivity
  n * (k^2 / (k - 1) + 1) (5n for k = 1);
- ``precision`` (granularity, Section 5.1): -(1/d) * sum_i (U * l_i / h_i + S), sensitivity k - 1 (1 for
  k = 1);
- ``entropy`` (non-uniform entropy, Section 5.3, as ARX 3.9's ``MetricMDNUEntropyPrecomputed.getScore``):
  -(sum over the attributes below their top level of sum_v c_v^2 + n * (U * t + d * S)), c_v the kept
  records showing generalized value v, t the attributes at their top level (shown as *), sensitivity
  n * d * (k^2 / (k - 1) + 1) (5nd for k = 1).

Every node's classes are rolled up from its smallest direct specialization's (:mod:`.lattice_sums`), and
the scores computed for all nodes at once.

Records dropped by sampling count as suppressed in ARX's scores; they add the same constant to every
node's score, which the exponential mechanism cancels, so scoring the sample alone draws the same node.

Randomness: only :func:`random_source` hands out the generator. It is the secure one unless a test
replaces that function (``monkeypatch``); there is no CLI flag and no project field for a seed.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Protocol

import numpy as np

from kanon_engine.algorithms.base import Algorithm, Job
from kanon_engine.algorithms.full_domain import full_domain_result, level_vector
from kanon_engine.algorithms.lattice_sums import ClassSums, class_sums
from kanon_engine.algorithms.person_support import require_person_support
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import NodeEvaluator, evaluator_context
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _
from kanon_engine.params import choice_spec
from kanon_engine.privacy.differential_privacy import DifferentialPrivacy
from kanon_engine.privacy.k_anonymity import k_of
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource, as_source

#: Largest lattice scored in full (every node's classes are counted: :mod:`.lattice_sums`).
MAX_NODES = 200_000

SCORE = choice_spec(
    "dp_score",
    N_("What the random choice prefers"),
    "discernibility",
    N_(
        "The utility the random choice of the generalization favours (SafePub's score functions): "
        "discernibility prefers small groups and few removed records; precision prefers few "
        "generalization levels; entropy prefers released values that set records apart."
    ),
    {
        "discernibility": N_("small groups (discernibility)"),
        "precision": N_("few levels (precision)"),
        "entropy": N_("many distinct values (entropy)"),
    },
)


class RandomSource(Protocol):
    """Where SafePub's randomness comes from: uniforms in [0, 1)."""

    def uniforms(self, n: int) -> np.ndarray: ...


class SecureRandom:
    """Uniforms in [0, 1) from the operating system's cryptographically secure source: 53 random bits
    of ``os.urandom`` per number (a double's mantissa), read in bulk."""

    def uniforms(self, n: int) -> np.ndarray:
        bits = np.frombuffer(os.urandom(8 * n), dtype=np.uint64) >> np.uint64(11)
        return bits.astype(np.float64) * (1.0 / (1 << 53))


def random_source() -> RandomSource:
    """The source every SafePub run draws from: always the secure one in kanon (tests replace this
    function to make a run reproducible; nothing a user can set reaches it)."""
    return SecureRandom()


def sample_mask(n: int, beta: float, source: RandomSource) -> np.ndarray:
    """Which of ``n`` records are kept: each independently with probability ``beta``."""
    return source.uniforms(n) < beta


def exponential_mechanism(
    scores: np.ndarray, epsilon: float, sensitivity: float, source: RandomSource
) -> int:
    """The index drawn with probability proportional to exp(epsilon * score / (2 * sensitivity)), by the
    log-sum-exp shift and one uniform against the cumulative weights."""
    cumulative = np.cumsum(selection_probabilities(scores, epsilon, sensitivity))
    u = float(source.uniforms(1)[0]) * cumulative[-1]
    return int(min(np.searchsorted(cumulative, u, side="right"), len(cumulative) - 1))


def selection_probabilities(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """The exponential mechanism's probabilities (what :func:`exponential_mechanism` draws from): the
    largest exponent is subtracted before ``exp`` (log-sum-exp), so the best node weighs 1 and nothing
    overflows or underflows to an all-zero vector."""
    logits = np.asarray(scores, dtype=np.float64) * (epsilon / (2.0 * sensitivity))
    w = np.exp(logits - logits.max())
    return w / w.sum()


def sensitivity_of(score: str, n: int, k: int, d: int = 1) -> float:
    """The sensitivity of SafePub's score (module docstring; Sections 5.1 to 5.3 of the paper), ``d`` the
    number of quasi-identifiers."""
    if score == "discernibility":
        return 5.0 * n if k == 1 else n * (k * k / (k - 1.0) + 1.0)
    if score == "entropy":
        return 5.0 * n * d if k == 1 else n * d * (k * k / (k - 1.0) + 1.0)
    return 1.0 if k == 1 else k - 1.0


def node_scores(score: str, sums: ClassSums, levels: np.ndarray, heights: np.ndarray, n: int) -> np.ndarray:
    """SafePub's score of every node (higher is better; module docstring), from each node's class sums
    over the sample and its ``levels`` (one row per node), ``n`` the records of the table given."""
    suppressed = sums.suppressed.astype(np.float64)
    if score == "discernibility":
        return -(sums.kept_squares.astype(np.float64) + n * suppressed)
    if score == "entropy":
        at_top = ((levels == heights[None, :]) & (heights[None, :] > 0)).sum(axis=1)
        hidden = sums.kept * at_top + levels.shape[1] * sums.suppressed  # values shown as * or removed
        return -(sums.value_squares.astype(np.float64) + n * hidden.astype(np.float64))
    if levels.shape[1] == 0:
        return -suppressed
    share = np.divide(
        levels.astype(np.float64), heights, out=np.zeros(levels.shape), where=heights[None, :] > 0
    )
    return -np.mean(sums.kept.astype(np.float64)[:, None] * share + suppressed[:, None], axis=1)


def dp_model(config: AnonymizationConfig) -> DifferentialPrivacy:
    """The run's differential-privacy model, or a ConfigError saying SafePub needs one."""
    model = next((m for m in config.models if isinstance(m, DifferentialPrivacy)), None)
    if model is None:
        raise ConfigError(
            _(
                "SafePub makes a differentially private release: give epsilon and delta "
                "(--dp-epsilon, --dp-delta)."
            ),
            where="dp_epsilon",
        )
    return model


def _on_input_rows(result: AnonymizationResult, keep: np.ndarray) -> AnonymizationResult:
    """The sample's result told on the rows of the table given: a record the sample left out is a
    removed record (class -1), so exports, checks and the report line the release up with the input,
    and the records left out are dropped like every removed one (the run drops them)."""
    changes: dict[str, object] = {}
    if result.row_class is not None:
        row_class = np.full(len(keep), -1, dtype=result.row_class.dtype)
        row_class[keep] = result.row_class
        changes["row_class"] = row_class
    if result.n_records is not None:
        changes["n_records"] = len(keep)
        changes["n_suppressed"] = result.suppressed + int(len(keep) - keep.sum())
    return dataclasses.replace(result, **changes)  # type: ignore[arg-type]


class SafePub(Algorithm):
    """(epsilon, delta)-differential privacy by sampling, one full-domain generalization and suppression
    of the classes smaller than k (module docstring)."""

    name = "safepub"
    title = N_("SafePub (differential privacy)")
    description = N_(
        "Makes a differentially private release: keeps each record at random with a probability derived "
        "from epsilon, chooses the generalization at random favouring useful ones (or uses the levels "
        "you fixed), and removes every group smaller than a k derived from epsilon and delta. Each run "
        "is a new random release and spends the privacy budget again."
    )
    full_domain = True
    #: draws single rows at random (the person role refuses it: its guarantee is about rows)
    samples_records = True
    params = (SCORE,)

    def run(
        self,
        table: Table | TableSource,
        config: AnonymizationConfig,
        progress: ProgressCallback = no_progress,
    ) -> AnonymizationResult:
        """Sample the records, then the lattice run of :class:`Algorithm` on the sample."""
        self.parameters  # noqa: B018 - validates every parameter
        model = dp_model(config)
        require_person_support(config, self)
        source = as_source(table)
        if not source.in_memory:
            raise ConfigError(
                _("SafePub samples single records, so it needs the table in memory: choose --engine memory."),
                where="engine",
            )
        records: Table = source.table  # type: ignore[attr-defined]
        config.check_columns(records)
        progress(0.0, _("drawing the random sample"))
        keep = sample_mask(records.n_rows, model.derived.beta, random_source())
        sample = dataclasses.replace(records, frame=records.frame.loc[keep].reset_index(drop=True))
        config = dataclasses.replace(config, drop_suppressed=True)
        self._input_rows = records.n_rows  # the n of the scores (constructor arguments stay untouched)
        result = super().run(sample, config, progress)
        block: dict[str, Any] = {
            "epsilon": model.dp_epsilon,
            "delta": model.dp_delta,
            "search_budget": model.search_budget,
            "beta": model.derived.beta,
            "k": max(model.derived.k, k_of(config.models)),
            "records_sampled": int(keep.sum()),
            "records_given": int(records.n_rows),
            "levels_fixed": bool(model.levels()),
            "score": self.parameters["dp_score"],
        }
        result = _on_input_rows(result, keep)
        block["records_released"] = int(result.released_records)
        block["records_left_out_by_sampling"] = int(records.n_rows - keep.sum())
        block["records_suppressed_in_small_groups"] = int(keep.sum()) - block["records_released"]
        return dataclasses.replace(result, differential_privacy=block)

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        model = dp_model(config)
        evaluator = NodeEvaluator(enc, config.models, enc.n_rows, suppressed_group_k=0)
        fixed = model.levels()
        if fixed:
            levels = level_vector(enc, fixed)
        else:
            levels = self._draw(enc, config, model, evaluator, progress)
        progress(1.0, _("building the release"))
        ev = evaluator.evaluate(levels, complete=True)
        notes = (
            _(
                "This is a random sample of the records, generalized and with every group smaller than {k} "
                "removed; which records the sample left out is random and not reported.",
                k=str(max(model.derived.k, k_of(config.models))),
            ),
        )
        ctx = evaluator_context(evaluator)
        params = self.parameters
        return full_domain_result(
            self.name,
            params,
            table,
            config,
            enc,
            ev,
            ctx,
            start,
            evaluator.checks,
            None,
            notes,
        )

    def _draw(
        self,
        enc: EncodedTable,
        config: AnonymizationConfig,
        model: DifferentialPrivacy,
        evaluator: NodeEvaluator,
        progress: ProgressCallback,
    ) -> tuple[int, ...]:
        """The node drawn by the exponential mechanism over the whole lattice of the sample."""
        lattice, scores, sensitivity = self.lattice_scores(enc, config, model, evaluator, progress)
        chosen = exponential_mechanism(scores, model.search_budget, sensitivity, random_source())
        return lattice.node(chosen)

    def lattice_scores(
        self,
        enc: EncodedTable,
        config: AnonymizationConfig,
        model: DifferentialPrivacy,
        evaluator: NodeEvaluator,
        progress: ProgressCallback = no_progress,
    ) -> tuple[Lattice, np.ndarray, float]:
        """The lattice, the score of every node (in index order) and the score's sensitivity."""
        lattice = Lattice(enc.heights, tuple(enc.qi))
        Lattice.require_size(lattice.size, _(self.title), MAX_NODES)
        n = getattr(self, "_input_rows", enc.n_rows)
        k = max(model.derived.k, k_of(config.models))
        score = self.parameters["dp_score"]
        values = score == "entropy"
        if enc.below is None:
            sums = class_sums(enc, evaluator.base, lattice, k, progress, values)
        else:  # points counted above the leaves (over 12 million): finer nodes are counted by the engine
            sums = ClassSums.zeros(lattice.size)
            for i, levels in enumerate(lattice.levels):
                if i % 256 == 0:
                    progress(0.9 * i / lattice.size, _("scoring the generalizations"))
                ev = evaluator.evaluate(tuple(int(x) for x in levels), complete=True)
                leaves = ev.freq.leaves() if values else None
                codes = [
                    enc.level_maps[a][lv][leaves[a]]
                    for a, lv in enumerate(levels)
                    if leaves is not None and (lv < enc.heights[a] or not enc.heights[a])
                ]
                sums.add(i, ev.sizes, k, codes)
        heights = np.asarray(enc.heights, dtype=np.float64)
        scores = node_scores(score, sums, lattice.levels, heights, n)
        return lattice, scores, sensitivity_of(score, n, k, enc.n_qi)
