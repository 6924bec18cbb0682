"""Checks on any table as it is (a release, or raw data): equivalence classes and k of the table.

Used by ``python -m kanon_engine check`` and by the GUI to verify a release independently of the
algorithm that made it. Rows whose quasi-identifiers are all ``*`` are suppressed records (that is how a
release marks them) and are counted apart, not as a class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.frequency import group_columns
from kanon_engine.hierarchy.model import ROOT


@dataclass(frozen=True)
class ClassCheck:
    """Equivalence classes of a table on a set of quasi-identifiers."""

    records: int
    suppressed: int
    classes: int
    smallest_class: int
    k: int  # the k the table achieves (its smallest class); 0 when every record is suppressed
    records_below_k: int  # records in classes smaller than the requested k
    classes_below_k: int
    requested_k: int

    @property
    def k_anonymous(self) -> bool:
        return self.records_below_k == 0

    def to_dict(self) -> dict:
        return {
            "k_anonymous": self.k_anonymous,
            "requested_k": self.requested_k,
            "k": self.k,
            "records": self.records,
            "suppressed": self.suppressed,
            "classes": self.classes,
            "smallest_class": self.smallest_class,
            "records_below_k": self.records_below_k,
            "classes_below_k": self.classes_below_k,
        }


def equivalence_classes(
    frame: pd.DataFrame, qi: list[str] | tuple[str, ...], suppressed_marker: str | None = ROOT
) -> tuple[np.ndarray, np.ndarray]:
    """Class id of every row (-1 for suppressed rows) and the size of every class.

    Missing values form their own value (two missing ages are equal), as they do in a release.
    """
    codes = []
    sizes = []
    for q in qi:
        c, uniques = pd.factorize(frame[q], use_na_sentinel=True)
        c = np.where(c < 0, len(uniques), c)
        codes.append(c.astype(np.int64))
        sizes.append(len(uniques) + 1)
    if suppressed_marker is not None and len(qi):
        supp = np.ones(len(frame), dtype=bool)
        for q in qi:
            supp &= (frame[q].astype(object) == suppressed_marker).to_numpy()
    else:
        supp = np.zeros(len(frame), dtype=bool)
    ids, n = group_columns(codes, sizes)
    ids = np.where(supp, -1, ids)
    kept = ids[ids >= 0]
    counts = np.bincount(kept, minlength=n)
    present = counts > 0
    renumber = np.cumsum(present) - 1
    row_class = np.where(ids >= 0, renumber[np.maximum(ids, 0)], -1)
    return row_class, counts[present]


def check_table(
    frame: pd.DataFrame, qi: list[str] | tuple[str, ...], k: int, suppressed_marker: str | None = ROOT
) -> ClassCheck:
    """k of a table, its classes, and the records in classes smaller than ``k``."""
    row_class, sizes = equivalence_classes(frame, qi, suppressed_marker)
    small = sizes < k
    return ClassCheck(
        records=int(len(frame)),
        suppressed=int((row_class < 0).sum()),
        classes=int(len(sizes)),
        smallest_class=int(sizes.min()) if len(sizes) else 0,
        k=int(sizes.min()) if len(sizes) else 0,
        records_below_k=int(sizes[small].sum()),
        classes_below_k=int(small.sum()),
        requested_k=int(k),
    )
