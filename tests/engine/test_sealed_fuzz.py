"""A sealed project whose fields were tampered with is refused in one sentence, quickly, in little memory
(issue 29, item 2).

The scrypt parameters of a sealed file are read from the file itself, so a tampered file could ask for
n = 2^30 (a MemoryError) or n = 2^21 (2 GiB and half a minute before the tag check refused it). They are
now bounded, and everything that can be checked without the key is checked before it is derived. The
fuzz test draws random fields, sizes and parameters (hypothesis) and asserts, for every document: a typed
error whose message is one line, within a time and memory bound.
"""

from __future__ import annotations

import base64
import json
import resource
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.errors import DataError, KanonError
from kanon_engine.project.project_file import Project
from kanon_engine.project.sealed import seal, unseal

PASSWORD = "Geheim-2024"
#: The slowest refusal allowed (a document within the bounds derives one key: about 0.25 s here, at
#: most four times that at the bounds' edge, plus a loaded machine's margin).
SECONDS = 3.0
#: The memory a refusal may add to the process's peak (scrypt within bounds takes at most 128 MiB).
PEAK_BYTES = 400 << 20


@pytest.fixture(scope="module")
def sealed() -> dict:
    return json.loads(seal('{"schema_version": 2}', PASSWORD))


def _peak() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _refused(document: object, tmp_path: Path, name: str = "p.json") -> KanonError:
    """Load ``document`` as a project file; the typed error it gives, checked for one line and bounds."""
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    peak, start = _peak(), time.perf_counter()
    with pytest.raises(KanonError) as err:
        Project.load(path, PASSWORD)
    assert time.perf_counter() - start < SECONDS
    assert _peak() - peak < PEAK_BYTES
    message = str(err.value)
    assert message and "\n" not in message and "Traceback" not in message
    return err.value


@pytest.mark.parametrize(
    "changes",
    [
        {"n": 1 << 30},
        {"r": 1 << 20},
        {"n": 1 << 21},
        {"p": 1 << 30},
        {"n": 3 << 14},  # not a power of two
        {"n": 10**400},
        {"n": -1},
        {"n": 1.5e300},
        {"n": True},
        {"n": "32768"},
    ],
    ids=lambda c: "-".join(f"{k}={str(v)[:12]}" for k, v in c.items()),
)
def test_parameters_out_of_bounds_are_refused_at_once(sealed, tmp_path, changes):
    start = time.perf_counter()
    error = _refused({**sealed, **changes}, tmp_path)
    assert time.perf_counter() - start < 1.0
    assert isinstance(error, DataError) and "p.json" in str(error)


def test_the_parameters_are_checked_before_a_password_is_asked(sealed):
    with pytest.raises(DataError, match="password-stretching parameters kanon never writes"):
        unseal({**sealed, "n": 1 << 30}, None, "p.json")


def test_an_untouched_document_still_opens(sealed):
    assert json.loads(unseal(sealed, PASSWORD, "p.json")) == {"schema_version": 2}


_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(1 << 70), max_value=1 << 70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.binary(max_size=64).map(lambda b: base64.b64encode(b).decode("ascii")),
)
_json_value = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=4), max_leaves=8)
_parameter = st.one_of(
    st.integers(min_value=0, max_value=40).map(lambda e: 1 << e), st.integers(min_value=-5, max_value=1 << 40)
)


@st.composite
def tampered(draw, sealed: dict) -> dict:
    """A sealed document with random fields replaced, dropped or added, parameters and sizes changed
    (its ``kanon_sealed`` field kept, maybe changed: a document without it is a plain project file)."""
    doc = dict(sealed)
    for key in draw(st.lists(st.sampled_from(sorted(doc)), max_size=4, unique=True)):
        action = draw(st.sampled_from(["replace", "drop", "parameter", "resize"]))
        if action == "drop" and key != "kanon_sealed":  # (without it the file is no sealed project)
            del doc[key]
        elif action == "parameter":
            doc[key] = draw(_parameter)
        elif action == "resize":
            size = draw(st.integers(min_value=0, max_value=4096))
            doc[key] = base64.b64encode(draw(st.binary(min_size=size, max_size=size))).decode("ascii")
        else:
            doc[key] = draw(_json_value)
    if draw(st.booleans()):
        for key in ("n", "r", "p"):
            if key in doc and draw(st.booleans()):
                doc[key] = draw(_parameter)
    if draw(st.booleans()):
        doc[draw(st.text(min_size=1, max_size=8))] = draw(_json_value)
    return doc


@given(data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzz_tampered_sealed_documents(sealed, tmp_path, data):
    document = data.draw(tampered(sealed))
    if document == sealed:
        return
    _refused(document, tmp_path)
