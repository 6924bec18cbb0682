"""A streamed batch's released column carries only the labels its rows use
(:func:`kanon_engine.sources.plan.release_plan.batch_categorical`): the same text per row as the whole label
table."""

from __future__ import annotations

import numpy as np
import pytest

from kanon_engine.release.writer import csv_bytes
from kanon_engine.sources.plan.release_plan import _FEW_LABELS, batch_categorical


@pytest.mark.parametrize("n_labels", [1, 7, _FEW_LABELS, _FEW_LABELS + 1, 60_000])
@pytest.mark.parametrize("extra", [None, "*"])
def test_same_text_per_row_with_only_the_labels_used(n_labels, extra):
    rng = np.random.default_rng(n_labels)
    labels = np.array([f"[{i}-{i + 3}]" for i in range(n_labels)], dtype=object)
    whole = np.append(labels, np.array([] if extra is None else [extra], dtype=object))
    codes = rng.integers(0, len(whole), size=5_000)
    column = batch_categorical(codes, labels, extra)
    assert np.asarray(column, dtype=object).tolist() == whole[codes].tolist()
    if len(whole) > _FEW_LABELS:  # a long table is cut down to the labels the batch uses, in order
        assert list(column.categories) == [whole[c] for c in np.unique(codes)]
    else:
        assert len(column.categories) == len(whole)


def test_csv_bytes_do_not_depend_on_the_label_table():
    """The CSV writer sees the same text whichever categories a column carries."""
    import pandas as pd

    labels = np.array([f"v{i}" for i in range(_FEW_LABELS * 3)], dtype=object)
    codes = np.array([5, 9000, 5, 12000, 1])
    cut = pd.DataFrame({"a": batch_categorical(codes, labels)})
    full = pd.DataFrame({"a": pd.Categorical.from_codes(codes, pd.Index(labels, dtype=object))})
    assert csv_bytes(cut) == csv_bytes(full)
