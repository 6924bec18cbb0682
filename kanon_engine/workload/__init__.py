"""Workload-driven quality (the seed's Mondrian paper, section 2.4): how well a release answers the
aggregate queries its users mean to run.

- :mod:`.query` the workload's syntax tree; :mod:`.parser` reads the workload file format;
- :mod:`.constraints` what a query's predicates ask of one column, checked the same way everywhere;
- :mod:`.exact` the true answers on the original table; :mod:`.estimate` the estimates from the
  release alone; :mod:`.evaluate` errors, their mean and median, and the match share;
- :mod:`.generate` random range COUNT queries when the user has no workload.
"""

from kanon_engine.workload.evaluate import WorkloadEvaluation, evaluate_release, evaluate_result
from kanon_engine.workload.generate import generate_workload
from kanon_engine.workload.parser import WorkloadError, parse_query, parse_workload, read_workload
from kanon_engine.workload.query import Query, Workload

__all__ = [
    "Query",
    "Workload",
    "WorkloadError",
    "WorkloadEvaluation",
    "evaluate_release",
    "evaluate_result",
    "generate_workload",
    "parse_query",
    "parse_workload",
    "read_workload",
]
