"""Information loss of a partitioned release (Mondrian): NCP per class and attribute, GCP, DM, C_AVG.

The normalized certainty penalty (NCP) measures how much of an attribute's domain a released value
leaves open (Xu, Wang, Pei, Wang, Shi & Fu 2006, "Utility-based anonymization using local recoding",
KDD; used as GCP by Ghinita, Karras, Kalnis & Mamoulis 2007, "Fast data anonymization with low
information loss", VLDB):

- numeric (and date) attribute released as the range ``[lo-hi]``: ``(hi - lo) / (max - min)``, with
  ``max - min`` the range of the attribute over the whole table (0 when the table has one value);
- categorical attribute released as a hierarchy node ``u``: ``(leaves(u) - 1) / (leaves - 1)``, with
  ``leaves(u)`` the leaves of the hierarchy under ``u`` and ``leaves`` all leaves (0 for a single value).

The global certainty penalty GCP is the average NCP over every record and quasi-identifier:
``GCP = sum_classes |E| * sum_q NCP(E, q) / (n * n_qi)``; 0 means nothing was generalized, 1 that every
value was replaced by its whole domain. Unlike DM it rewards narrow ranges, not only small classes.
DM and C_AVG are the seed paper's C_DM and C_AVG (LeFevre, DeWitt & Ramakrishnan 2006, "Mondrian
Multidimensional K-Anonymity", ICDE), computed by :mod:`kanon_engine.metrics.loss`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.loss import average_class_size, discernibility, discernibility_star


def numeric_ncp(lower: np.ndarray, upper: np.ndarray, domain_min: float, domain_max: float) -> np.ndarray:
    """NCP of numeric ranges ``[lower, upper]`` (element-wise) in a domain ``[domain_min, domain_max]``."""
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    span = float(domain_max) - float(domain_min)
    if not span > 0:
        return np.zeros(np.broadcast(lower, upper).shape)
    return np.clip((upper - lower) / span, 0.0, 1.0)


def categorical_ncp(leaves_under: np.ndarray, total_leaves: int) -> np.ndarray:
    """NCP of hierarchy nodes with ``leaves_under`` leaves each, in a hierarchy of ``total_leaves``."""
    leaves_under = np.asarray(leaves_under, dtype=np.float64)
    if total_leaves <= 1:
        return np.zeros(leaves_under.shape)
    return np.clip((leaves_under - 1.0) / (total_leaves - 1.0), 0.0, 1.0)


def hierarchy_ncp(hierarchy: Hierarchy) -> np.ndarray:
    """NCP of every leaf generalized to every level: shape ``(n_leaves, depth)``.

    Lets a full-domain release be scored with the same NCP/GCP as a Mondrian one: the NCP of a record's
    value at level ``j`` is ``hierarchy_ncp(h)[leaf, j]``. Nodes are told apart by their label at the
    level (as the release shows them).
    """
    n = len(hierarchy.values)
    out = np.zeros((n, hierarchy.depth))
    for j, (codes, labels) in enumerate(hierarchy.level_codes):
        counts = np.bincount(codes, minlength=len(labels))
        out[:, j] = categorical_ncp(counts[codes], n)
    return out


def per_attribute_ncp(ncp: np.ndarray | Iterable[np.ndarray], sizes: np.ndarray) -> np.ndarray:
    """Average NCP of each attribute over the records; ``ncp`` is (n_classes, n_qi), or one array per
    attribute, computed as it is summed (the 7.5 million partitions of a 100-million-row Mondrian run are
    not stacked into a matrix and its weighted copy: 1 GB), ``sizes`` per class."""
    columns = ncp.T if isinstance(ncp, np.ndarray) else ncp  # an iterable: each column once, then freed
    sizes = np.asarray(sizes, dtype=np.float64)
    total = sizes.sum()
    sums = [float((sizes * np.asarray(c, dtype=np.float64)).sum()) if total else 0.0 for c in columns]
    return np.array(sums) / total if total else np.zeros(len(sums))


def global_certainty_penalty(ncp: np.ndarray, sizes: np.ndarray) -> float:
    """GCP = sum over records and QIs of NCP / (records * QIs) (Ghinita et al. 2007)."""
    per_qi = per_attribute_ncp(ncp, sizes)
    return float(per_qi.mean()) if per_qi.size else 0.0


def partition_metrics(
    qi: Sequence[str],
    class_sizes: np.ndarray,
    partition_sizes: np.ndarray,
    ncp: np.ndarray | Iterable[np.ndarray],
    k: int,
) -> dict[str, float]:
    """Every metric reported for a partitioned release.

    ``class_sizes`` are the released equivalence classes (records that look alike in the release);
    ``partition_sizes`` and ``ncp`` (n_partitions, n_qi, or one array per attribute) the partitions
    the algorithm made. They differ
    only when two partitions happen to get the same released values (then they form one class). Nothing
    is suppressed, so DM is the plain sum of squared class sizes.
    """
    class_sizes = np.asarray(class_sizes, dtype=np.int64)
    partition_sizes = np.asarray(partition_sizes, dtype=np.int64)
    n = int(class_sizes.sum())
    per_qi = per_attribute_ncp(ncp, partition_sizes)
    out = {
        "discernibility": discernibility(class_sizes, 0, n),
        "discernibility_star": discernibility_star(class_sizes),
        "cavg": average_class_size(n, len(class_sizes), k),
        "cavg_released": average_class_size(n, len(class_sizes), k),  # nothing is suppressed
        "gcp": float(per_qi.mean()) if per_qi.size else 0.0,
        "partitions": float(len(partition_sizes)),
        "discernibility_partitions": discernibility_star(partition_sizes),
        "cavg_partitions": average_class_size(n, len(partition_sizes), k),
    }
    for name, value in zip(qi, per_qi):
        out[f"ncp:{name}"] = float(value)
    return out
