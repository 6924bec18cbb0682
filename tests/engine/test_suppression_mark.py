"""'*' in a release means one thing (issue 29, items 3 and 4).

Item 3: a quasi-identifier holding the suppression mark ('*', an export's "unknown") as a value is
refused in one sentence naming the column and the lines; the user may choose another mark
(``--suppression-mark``, the project file, the export dialog), which every engine writes alike and the
JSON report names.

Item 4: with ``--suppress cells``, a cell the chosen level already shows as '*' (the root of its hierarchy)
is not changed by suppression, so it is not counted among the suppressed cells: the count is that of the
cells a reader sees changed.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.privacy.models import KAnonymity


def _table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(15, 60))
    return pd.DataFrame(
        {
            "a": rng.choice(list("abcdefg")[: rng.integers(2, 7)], n),
            "b": rng.choice(list("xyzw")[: rng.integers(2, 4)], n),
            "c": [str(x) for x in rng.integers(0, rng.integers(3, 30), n)],
        }
    )


def test_datafly_cells_counts_only_cells_it_changed():
    """Seed 91 is a table where Datafly's chosen node already shows 'a' as '*' in rows that cell
    suppression also picks (it reported 15 cells for 10 visible changes)."""
    checked = 0
    for seed in (91, *range(20)):
        frame = _table(seed)
        h = {q: default_hierarchy(q, frame[q]) for q in frame}
        config = AnonymizationConfig(tuple(frame), h, (KAnonymity(int(2 + seed % 4)),))
        algo = get_algorithm("datafly", suppress="cells", suppression_limit=0.2)
        result = algo.run(Table.from_frame(frame), config)
        at_level = {  # every cell as the chosen node shows it, before any cell is suppressed
            q: np.asarray(h[q].matrix[h[q].leaf_index.get_indexer(frame[q]), result.transformation[q]])
            for q in frame
        }
        changed = sum(int(((result.release[q] == ROOT) & (at_level[q] != ROOT)).sum()) for q in frame)
        assert result.summary()["suppressed_cells"] == changed, seed
        checked += changed > 0
    assert checked


# --- item 3: '*' already in the data ------------------------------------------------------------------
def _data(tmp_path, star: bool):
    rows = [
        f"{i},{30 + i % 3},{'*' if star and i % 7 == 0 else ('F' if i % 7 == 0 else 'M')}" for i in range(40)
    ]
    path = tmp_path / "data.csv"
    path.write_text("id,age,sex\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_star_in_the_data_is_refused_naming_column_and_lines(tmp_path, capsys, engine):
    path = _data(tmp_path, star=True)
    out = tmp_path / "release.csv"
    code = main(["anonymize", str(path), "--qi", "age,sex", "--identifier", "id", "--k", "2",
                 "--engine", engine, "--output", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "The quasi-identifier 'sex' of data.csv holds '*'" in err and "lines 2, 9 and 16" in err
    assert "--suppression-mark" in err and err.count("\n") == 1


@pytest.mark.parametrize("algorithm", ["datafly", "local-suppression"])
def test_the_chosen_mark_is_written_the_same_by_every_engine(tmp_path, capsys, algorithm):
    path = _data(tmp_path, star=False)
    written = {}
    for engine in ("memory", "duckdb") if algorithm == "datafly" else ("memory",):
        out, report = tmp_path / f"{engine}.csv", tmp_path / f"{engine}.json"
        code = main(["anonymize", str(path), "--qi", "age,sex", "--identifier", "id", "--k", "6",
                     "--algorithm", algorithm, "--suppression-limit", "0.3", "--engine", engine,
                     "--suppression-mark", "[suppressed]", "--output", str(out),
                     "--report", str(report)])  # fmt: skip
        assert code == 0, capsys.readouterr().err
        summary = json.loads(report.read_text())
        assert summary["suppression_mark"] == "[suppressed]"
        release = pd.read_csv(out, dtype=str, keep_default_na=False)
        marked = int((release[["age", "sex"]] == "[suppressed]").to_numpy().sum())
        assert marked and not (release[["age", "sex"]] == "*").to_numpy().any()
        expected = summary["suppressed"] * 2 if algorithm == "datafly" else summary["suppressed_cells"]
        assert marked == expected
        written[engine] = out.read_bytes()
    assert len(set(written.values())) == 1


def test_the_mark_is_kept_in_the_project_file(tmp_path):
    from kanon_engine.project.project_file import Project

    project = Project(suppression_mark="[s]")
    path = tmp_path / "p.json"
    project.save(path)
    assert json.loads(path.read_text())["output"]["suppression_mark"] == "[s]"
    assert Project.load(path).suppression_mark == "[s]"
