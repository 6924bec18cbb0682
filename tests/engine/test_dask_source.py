"""The Dask engine on a LocalCluster of 2 worker processes: the same figures and release bytes as in
memory, and plain sentences for a scheduler that cannot be used."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("distributed")

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.errors import ConfigError  # noqa: E402
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity  # noqa: E402
from kanon_engine.project.project_file import Project  # noqa: E402
from kanon_engine.release.export import ExportOptions, export_release  # noqa: E402
from kanon_engine.sources.backends.dask_source import DaskSource  # noqa: E402
from tests.conftest import ADULT_QI  # noqa: E402
from tests.engine.test_sources import check_release_independently  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def adult_on_dask(adult_dir):
    source = DaskSource(adult_dir / "adult.csv", workers=2)
    yield source
    source.close()


def _figures(result) -> dict:
    out = {k: v for k, v in result.summary().items() if k not in ("engine", "runtime_seconds")}
    return json.loads(json.dumps(out, default=float))


@pytest.mark.parametrize("name", ["optimal", "datafly", "mondrian", "mondrian-relaxed"])
def test_adult_on_two_workers_same_results(adult_on_dask, adult_dir, adult_hierarchies, name, tmp_path):
    assert adult_on_dask.describe().startswith("Dask (a cluster), a local cluster of 2 worker processes")
    table = read_table(adult_dir / "adult.csv")
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(
        tuple(ADULT_QI), hs, (KAnonymity(5), DistinctLDiversity(2, "occupation")), ("occupation",)
    )
    params = {"suppression_limit": 0.02} if name in ("optimal", "datafly") else {}
    algo = get_algorithm(name, **params)
    mem, dask = algo.run(table, config), algo.run(adult_on_dask, config)
    assert dask.engine == "dask" and not dask.in_memory
    assert _figures(dask) == _figures(mem)
    for options in ({}, {"suppressed": "drop"}):
        a = export_release(table, mem, tmp_path / "mem.csv", ExportOptions(**options))
        b = export_release(adult_on_dask, dask, tmp_path / "dask.csv", ExportOptions(**options))
        assert a.sha256 == b.sha256
    check_release_independently(tmp_path / "dask.csv", config)


def test_parquet_pieces_are_row_groups(sample_dir, tmp_path):
    """A Parquet file is read a row group per task; the sample project gives the same release."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    path = tmp_path / "sample.parquet"
    pq.write_table(pa.Table.from_pandas(table.frame.astype(object)), path, row_group_size=100)
    config = project.config(table)
    with DaskSource(path, workers=2) as source:
        assert len(source.pieces) == -(-table.n_rows // 100)
        algo = get_algorithm(project.algorithm, **project.algorithm_params)
        mem, dask = algo.run(table, config), algo.run(source, config)
        assert _figures(dask) == _figures(mem)


def test_a_scheduler_that_is_neither_an_address_nor_a_file(sample_dir):
    with pytest.raises(ConfigError, match="neither an address such as tcp://HOST:8786 nor a file"):
        DaskSource(sample_dir / "sample_patients.csv", scheduler="no-such-scheduler-file")


def test_the_project_files_scheduler_is_the_one_used(sample_dir, tmp_path, capsys):
    """``"engine": {"engine": "dask", "scheduler": ...}`` in the project file reaches the Dask engine
    (here a scheduler that is neither an address nor a file: its one sentence, no traceback, no work)."""
    from kanon_engine.cli import main
    from kanon_engine.sources.backends.settings import EngineSettings

    project = Project.load(sample_dir / "sample_project.json")
    project = project.with_changes(engine=EngineSettings("dask", scheduler="no-such-scheduler-file"))
    project.save(tmp_path / "p.json")
    saved = json.loads((tmp_path / "p.json").read_text())["engine"]
    assert saved["engine"] == "dask" and saved["scheduler"] == "no-such-scheduler-file"
    rc = main(["anonymize", "--project", str(tmp_path / "p.json"), "--output", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err
    assert rc != 0 and "Traceback" not in err
    assert "The scheduler 'no-such-scheduler-file' is neither an address such as tcp://HOST:8786" in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("error", [OSError("Timed out trying to connect"), TimeoutError()])
def test_an_unreachable_scheduler_is_one_plain_sentence(error):
    from kanon_engine.sources.backends.dask_source import _connect

    def client(*args, **kwargs):
        raise error

    with pytest.raises(ConfigError) as err:
        _connect(client, "tcp://head-node:8786")
    message = err.value.message
    assert message.startswith("The Dask scheduler at tcp://head-node:8786 cannot be reached")
    assert "Error" not in message and "\n" not in message
    assert "this computer may connect to it" in err.value.hint
