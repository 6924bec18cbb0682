"""Classifiers trained on the original and on the release: can the study still predict its target?

As ARX 3.9.2 does (its "classification accuracy" analysis), three classifiers are cross-validated on each
table, and put beside the majority baseline (always predicting the most frequent value, ARX's ZeroR):
logistic regression, naive Bayes and a random forest, from scikit-learn (Pedregosa et al. 2011), the
field's library for this. ARX's *relative accuracy* places the release between the baseline (0 %) and
the original (100 %).

How cells become features (the same for both tables, so the comparison is fair):

- a numeric attribute (a number in almost every original cell): the number, or a released range's
  midpoint; the suppression mark and blanks are missing (filled with the fold's mean and flagged for the
  logistic regression, left missing for the forest, a bin of their own for naive Bayes);
- any other attribute: categories, a generalized label being a category of its own and the mark one more;
- naive Bayes (the categorical variant) sees numbers in ten quantile bins of the column.

Every table is cross-validated on its own rows in the same stratified folds (fixed seed: an analysis, not
a release, must be reproducible); the target is read from each table as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.utility.values import SUPPRESSED, categories, midpoints

#: the classifiers, in the order they are shown, with their names for people
CLASSIFIERS: dict[str, str] = {
    "logistic_regression": N_("Logistic regression"),
    "naive_bayes": N_("Naive Bayes"),
    "random_forest": N_("Random forest"),
}
FOLDS = 5
SEED = 0
_BINS = 10


@dataclass(frozen=True)
class Scores:
    """Cross-validated figures of one classifier on one table."""

    accuracy: float
    #: area under the ROC curve, for a target with two values (None otherwise)
    auc: float | None
    #: mean squared error of the predicted probabilities (lower is better; 0 is perfect)
    brier: float

    def to_dict(self) -> dict[str, float | None]:
        return {"accuracy": self.accuracy, "auc": self.auc, "brier": self.brier}


@dataclass(frozen=True, eq=False)
class Design:
    """One table's features in the three shapes the classifiers take, and its target."""

    numbers: np.ndarray  # (n, p_num) float, nan missing
    codes: np.ndarray  # (n, p_cat) int, categories numbered (missing has a code of its own)
    binned: np.ndarray  # (n, p) int: codes and numbers in bins (naive Bayes)
    y: np.ndarray  # (n,) int codes of the target
    labels: tuple[str, ...]  # target values, in code order


def design(
    frame: pd.DataFrame,
    features: Sequence[str],
    numeric: Sequence[bool],
    target: str,
    mark: str = SUPPRESSED,
) -> Design:
    """The features of ``frame`` encoded as the module docstring says (rows with no target value are the
    caller's to drop)."""
    nums, cats = [], []
    for name, is_num in zip(features, numeric):
        if is_num:
            nums.append(midpoints(frame[name], mark))
        else:
            cat = categories(frame[name], mark)
            codes, _uniques = pd.factorize(cat, use_na_sentinel=True)
            cats.append(np.where(codes < 0, codes.max(initial=-1) + 1, codes))
    n = len(frame)
    numbers = np.column_stack(nums) if nums else np.zeros((n, 0))
    codes = np.column_stack(cats).astype(np.int64) if cats else np.zeros((n, 0), dtype=np.int64)
    binned = np.column_stack([codes, *(_bins(c) for c in numbers.T)]) if len(features) else codes
    y, labels = pd.factorize(frame[target].astype("string"), sort=True)
    return Design(numbers, codes, binned.astype(np.int64), y.astype(np.int64), tuple(str(v) for v in labels))


def _bins(values: np.ndarray) -> np.ndarray:
    """Quantile bins 0.._BINS-1 of a numeric column, missing in bin _BINS (an unsupervised recoding: the
    edges do not look at the target)."""
    present = np.isfinite(values)
    out = np.full(len(values), _BINS, dtype=np.int64)
    if present.any():
        edges = np.unique(np.quantile(values[present], np.linspace(0, 1, _BINS + 1)[1:-1]))
        out[present] = np.searchsorted(edges, values[present], side="right")
    return out


#: One-hot columns per categorical attribute at most (the most frequent values; the rest share one).
MAX_ONE_HOT = 40


def _model(name: str, d: Design) -> tuple[Any, np.ndarray]:
    """A fresh scikit-learn estimator for ``name`` and the matrix it is trained on."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    if name == "naive_bayes":
        return CategoricalNB(min_categories=d.binned.max(axis=0, initial=0) + 1), d.binned
    x = np.column_stack([d.numbers, d.codes.astype(np.float64)])
    n_num = d.numbers.shape[1]
    if name == "random_forest":
        # 40 trees, each grown on half of the records: on Adult as accurate as 60 full ones, 2.5x faster
        forest = RandomForestClassifier(
            n_estimators=40, min_samples_leaf=5, max_samples=0.5, max_features="sqrt", random_state=SEED
        )
        return forest, x
    prepare = ColumnTransformer(
        [
            (
                "numbers",
                make_pipeline(SimpleImputer(add_indicator=True, keep_empty_features=True), StandardScaler()),
                list(range(n_num)),
            ),
            (
                "categories",
                # the rarest values of a wide column (postcodes, dates) share one "other" column: a
                # thousand one-hot columns per class made the regression's solver the whole study's cost
                OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=MAX_ONE_HOT),
                list(range(n_num, x.shape[1])),
            ),
        ]
    )
    return make_pipeline(prepare, LogisticRegression(max_iter=300, tol=1e-3)), x


def folds_for(y: np.ndarray, what: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The stratified folds of one table (fewer than five when a target value is rarer)."""
    from sklearn.model_selection import StratifiedKFold

    rarest = int(np.bincount(y).min()) if len(y) else 0
    if rarest < 2:
        raise ConfigError(
            _(
                "A value of the target occurs in only one record of {table}, so the classifiers cannot be "
                "checked on records they did not learn from.",
                table=what,
            ),
            hint=_("Choose a target whose every value occurs at least twice."),
            where="target",
        )
    splitter = StratifiedKFold(min(FOLDS, rarest), shuffle=True, random_state=SEED)
    return list(splitter.split(np.zeros(len(y)), y))


def scores(
    d: Design,
    what: str,
    progress: ProgressCallback = no_progress,
    share: tuple[float, float] = (0.0, 1.0),
) -> dict[str, Scores]:
    """Every classifier cross-validated on one table (``share`` of the caller's progress bar). The
    linear algebra runs on one thread: the regression's solver makes thousands of small BLAS calls, and
    a thread pool woken for each cost three times the whole study's time on a busy machine (sample
    project: 10.0 s wall with the default threads, 3.5 s with one)."""
    from threadpoolctl import threadpool_limits

    splits = folds_for(d.y, what)
    out: dict[str, Scores] = {}
    steps = len(CLASSIFIERS) * len(splits)
    done = 0
    with threadpool_limits(1, user_api="blas"):
        for name in CLASSIFIERS:
            proba = np.zeros((len(d.y), len(d.labels)))
            for train, test in splits:
                progress(share[0] + (share[1] - share[0]) * done / steps, _fitting(name, what))
                model, x = _model(name, d)
                model.fit(x[train], d.y[train])
                proba[np.ix_(test, model.classes_)] = model.predict_proba(x[test])
                done += 1
            out[name] = _figures(d.y, proba)
    return out


def _fitting(name: str, what: str) -> str:
    return _("training {classifier} on {table}", classifier=_(CLASSIFIERS[name]), table=what)


def _figures(y: np.ndarray, proba: np.ndarray) -> Scores:
    from sklearn.metrics import roc_auc_score

    accuracy = float((proba.argmax(axis=1) == y).mean())
    onehot = np.zeros_like(proba)
    onehot[np.arange(len(y)), y] = 1.0
    brier = float(((proba - onehot) ** 2).sum(axis=1).mean())
    auc = None
    if proba.shape[1] == 2:
        brier /= 2.0  # the usual two-class Brier score: the squared error of the positive class alone
        auc = float(roc_auc_score(y, proba[:, 1]))
    return Scores(accuracy, auc, brier)


def majority(y: np.ndarray) -> float:
    """Accuracy of always predicting the most frequent value (ARX's ZeroR baseline)."""
    return float(np.bincount(y).max() / len(y)) if len(y) else 0.0


def relative_accuracy(release: float, original: float, baseline: float) -> float | None:
    """ARX's relative accuracy: where the release sits between the baseline (0) and the original (1);
    None when the original does no better than the baseline (nothing to keep)."""
    gain = original - baseline
    return None if gain <= 1e-12 else (release - baseline) / gain
