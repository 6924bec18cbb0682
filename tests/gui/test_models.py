"""The Qt models: the lazy table model on 1,000,000 rows, sorting by permutation, the result models
(release aligned to the input, changed cells, classes) and the hierarchy tree model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QModelIndex, Qt

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.roles import Role
from kanon_engine.data.table import ColumnKind, Table
from kanon_engine.hierarchy import interval_hierarchy
from kanon_engine.hierarchy.model import Hierarchy
from kanon_gui.glossary import CHANGED_BG, ROLE_COLORS, SUPPRESSED_BG
from kanon_gui.models.hierarchy_model import MIME, HierarchyTreeModel
from kanon_gui.models.result_models import ComparisonModel, EquivalenceClassModel, release_rows
from kanon_gui.models.table_model import FrameModel

pytestmark = pytest.mark.gui
DISPLAY = Qt.ItemDataRole.DisplayRole
N_BIG = 1_000_000


@pytest.fixture(scope="module")
def big_frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "age": rng.integers(0, 100, N_BIG).astype(str),
            "zip": np.char.zfill(rng.integers(0, 99999, N_BIG).astype(str), 5),
            "sex": rng.choice(np.array(["F", "M"]), N_BIG),
        }
    )


def test_lazy_model_with_a_million_rows(qtbot, big_frame):
    model = FrameModel()
    model.set_frame(big_frame, {"age": ColumnKind.INTEGER})
    # construction and reading cells convert nothing: a column becomes a numpy array only to sort
    assert model._cache == {}
    assert model.rowCount() == N_BIG and model.columnCount() == 3
    far = model.index(N_BIG - 1, 1)
    assert model.data(far, DISPLAY) == big_frame["zip"].iloc[-1]
    assert model._cache == {}
    # roles it does not serve return early
    assert model.data(far, Qt.ItemDataRole.DecorationRole) is None
    assert model.headerData(N_BIG - 1, Qt.Orientation.Vertical, DISPLAY) == str(N_BIG)


def test_sort_is_a_permutation_not_a_copy(qtbot, big_frame):
    model = FrameModel()
    model.set_frame(big_frame, {"age": ColumnKind.INTEGER})
    model.sort(0, Qt.SortOrder.DescendingOrder)
    ages = big_frame["age"].astype(int).to_numpy()
    rows = model.frame_rows()
    assert len(rows) == N_BIG and len(np.unique(rows[:1000])) == 1000
    shown = ages[rows]
    assert (np.diff(shown) <= 0).all()  # numeric order (not text order: "9" > "10" as text)
    assert model.data(model.index(0, 0), DISPLAY) == "99"
    assert model.frame() is big_frame  # the data itself was not copied or reordered
    # the vertical header names the original row
    assert int(model.headerData(0, Qt.Orientation.Vertical, DISPLAY)) == rows[0] + 1


def test_header_coloured_by_role_and_missing_cells(qtbot):
    frame = pd.DataFrame({"name": ["a", None], "age": ["1", "2"]}, dtype=object)
    model = FrameModel()
    model.set_frame(frame)
    model.set_roles({"name": Role.IDENTIFIER, "age": Role.QUASI_IDENTIFIER})
    brush = model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.BackgroundRole)
    assert brush.color().rgb() == ROLE_COLORS[Role.IDENTIFIER].rgb()
    assert "Quasi-identifier" in model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(1, 0), DISPLAY) == "(missing)"


@pytest.fixture(scope="module")
def small_result():
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame(
        {
            "id": [f"P{i:04d}" for i in range(n)],
            "age": rng.integers(18, 90, n).astype(str),
            "sex": rng.choice(np.array(["F", "M"]), n),
            "ward": rng.choice(np.array(["A", "B", "C"]), n),
        }
    )
    table = Table.from_frame(frame)
    hier = {
        "age": interval_hierarchy("age", frame["age"], (5, 10, 20)),
        "sex": Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]]),
    }
    return table, hier


def _run(table, hier, **cfg):
    config = AnonymizationConfig(("age", "sex"), hier, build_models(10), identifiers=("id",), **cfg)
    return get_algorithm("optimal", suppression_limit=0.05).run(table, config)


@pytest.mark.parametrize("drop, seed", [(False, None), (True, None), (True, 11), (False, 5)])
def test_release_rows_align_the_release_with_the_input(small_result, drop, seed):
    table, hier = small_result
    result = _run(table, hier, drop_suppressed=drop, shuffle_seed=seed)
    rel = release_rows(table.frame, result)
    assert rel is not None
    kept = rel >= 0
    # every kept input row maps to the release row holding its (untouched) ward value
    assert (result.release["ward"].to_numpy()[rel[kept]] == table.frame["ward"].to_numpy()[kept]).all()
    assert sorted(rel[kept]) == list(range(len(result.release)))
    if drop:
        assert (kept == (result.row_class >= 0)).all()


def test_comparison_models_mark_changes_and_suppression(qtbot, small_result):
    table, hier = small_result
    result = _run(table, hier)
    rel = release_rows(table.frame, result)
    original, release = ComparisonModel("original"), ComparisonModel("release")
    original.set_result(table.frame, result, rel)
    release.set_result(table.frame, result, rel)
    assert original.rowCount() == release.rowCount() == table.n_rows
    assert "id" not in release.column_names()  # identifiers never reach the release
    age_col = release.column_names().index("age")
    changed = [
        r
        for r in range(table.n_rows)
        if release.data(release.index(r, age_col), DISPLAY) != table.frame["age"].iloc[r]
    ]
    assert changed, "the ages were generalized"
    r = changed[0]
    bg = release.data(release.index(r, age_col), Qt.ItemDataRole.BackgroundRole)
    expected = SUPPRESSED_BG if result.row_class[r] < 0 else CHANGED_BG
    assert bg.color().rgb() == expected.rgb()
    ward_col = release.column_names().index("ward")
    if result.row_class[r] >= 0:
        assert release.data(release.index(r, ward_col), Qt.ItemDataRole.BackgroundRole) is None
    supp = np.flatnonzero(result.row_class < 0)
    if len(supp):
        header = release.headerData(int(supp[0]), Qt.Orientation.Vertical, DISPLAY)
        assert header.endswith("\u2716")


def test_equivalence_class_model(qtbot, small_result):
    table, hier = small_result
    result = _run(table, hier)
    rel = release_rows(table.frame, result)
    model = EquivalenceClassModel()
    model.set_result(result, rel)
    assert model.rowCount() == result.n_classes
    assert model.columnCount() == 2 + 2
    sizes = [int(model.data(model.index(i, 1), DISPLAY).replace(",", "")) for i in range(model.rowCount())]
    assert sizes == list(result.class_sizes)
    # the QI values shown are those of the class's records in the release
    c = 0
    rows = np.flatnonzero(result.row_class == c)
    assert model.data(model.index(0, 2), DISPLAY) == result.release["age"].iloc[rel[rows[0]]]
    model.sort(1, Qt.SortOrder.DescendingOrder)
    first = int(model.data(model.index(0, 1), DISPLAY).replace(",", ""))
    assert first == int(result.class_sizes.max())
    assert model.row_of_class(model.class_at(3)) == 3


def test_hierarchy_tree_model_and_drag_payload(qtbot):
    h = Hierarchy.from_rows("edu", [["BSc", "Higher", "*"], ["MSc", "Higher", "*"], ["HS", "School", "*"]])
    counts = pd.Series({"BSc": 5, "MSc": 2, "HS": 7})
    model = HierarchyTreeModel()
    model.set_hierarchy(h, counts)
    assert model.rowCount() == 1
    root = model.index(0, 0)
    assert model.data(root, DISPLAY) == "*"
    assert model.data(model.index(0, 2), DISPLAY) == "14"
    higher = model.index(0, 0, root)
    assert model.data(higher, DISPLAY) == "Higher" and model.rowCount(higher) == 2
    assert model.data(model.index(0, 2, root), DISPLAY) == "7"
    moves = []
    model.move_requested.connect(lambda items, parent: moves.append((items, parent)))
    bsc = model.index(0, 0, higher)
    payload = model.mimeData([bsc])
    assert payload.hasFormat(MIME)
    school = model.index(1, 0, root)
    assert model.canDropMimeData(payload, Qt.DropAction.MoveAction, -1, -1, school)
    assert not model.canDropMimeData(payload, Qt.DropAction.MoveAction, -1, -1, root)  # two levels up
    assert model.dropMimeData(payload, Qt.DropAction.MoveAction, -1, -1, school) is False
    assert moves == [([(0, "BSc")], "School")]
    renames = []
    model.rename_requested.connect(lambda *a: renames.append(a))
    model.setData(higher, "University")
    assert renames == [(1, "Higher", "University")]
    assert not model.index(5, 0, QModelIndex()).isValid()
