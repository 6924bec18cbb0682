"""Role suggestions made at import (kanon_engine.data.roles.suggest_roles)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.data import Role, read_table, suggest_roles

SHARED = Path(os.environ.get("KANON_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared"))
SEEDS = SHARED / "datasets" / "seed_examples"
needs_shared = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/ datasets not available")


def by_column(frame: pd.DataFrame) -> dict:
    return {s.column: s for s in suggest_roles(frame)}


@needs_shared
def test_salary_employees_identifiers() -> None:
    s = by_column(read_table(SEEDS / "salary_employees.csv").frame)
    for name in ("id", "name", "address"):
        assert s[name].role is Role.IDENTIFIER, name
        assert s[name].flagged is False
        assert "a direct identifier" in s[name].reason and f"'{name}' looks like" in s[name].reason
    for name in ("gender", "age", "zip"):
        assert s[name].role is Role.QUASI_IDENTIFIER and s[name].confident, name
    assert s["basic"].role is None


@needs_shared
def test_test_scores_first_and_last_name() -> None:
    s = by_column(read_table(SEEDS / "test_scores.csv").frame)
    assert s["first_name"].role is Role.IDENTIFIER
    assert s["last_name"].role is Role.IDENTIFIER
    assert s["age"].role is Role.QUASI_IDENTIFIER


def test_unique_column_is_flagged_not_decided_silently() -> None:
    frame = pd.DataFrame({"code": [f"K{i}" for i in range(20)], "sex": ["M", "F"] * 10})
    s = by_column(frame)
    assert s["code"].role is Role.IDENTIFIER and s["code"].flagged
    assert "Almost every value of 'code' is unique" in s["code"].reason
    assert s["sex"].role is Role.QUASI_IDENTIFIER


@pytest.mark.parametrize(
    "name", ["Coût (€)", "Kosten (€)", "Behandlungskosten", "Montant", "Importe", "cost", "Betrag in CHF"]
)
def test_amounts_are_not_identifiers_by_their_name(name: str) -> None:
    """The walk of issue 27: "Coût (€)", every value different, was suggested as an identifier."""
    frame = pd.DataFrame({name: [f"{100 + i * 1.37:.2f}".replace(".", ",") for i in range(50)]})
    s = suggest_roles(frame)[0]
    assert s.role is Role.INSENSITIVE and s.kind == "amount" and not s.flagged
    assert "a measurement, not an identifier" in s.reason


@pytest.mark.parametrize(
    "values",
    [
        [f"{100 + i * 1.37:.2f}".replace(".", ",") for i in range(50)],  # 104,11
        [f"{1000 + i * 13.7:,.2f}".replace(",", " ").replace(".", ",") for i in range(50)],  # 1 013,70
        [f"{1000 + i * 13.7:,.2f}" for i in range(50)],  # 1,013.70
        [f"{20 + i * 0.31:.1f}" for i in range(50)],  # 35.5
    ],
    ids=["comma", "space-comma", "comma-dot", "dot"],
)
def test_unique_decimal_values_are_not_flagged_as_identifiers(values: list[str]) -> None:
    frame = pd.DataFrame({"Wert": values, "Nummer": [str(4711000 + i * 13) for i in range(50)]})
    s = by_column(frame)
    assert s["Wert"].role is None and not s["Wert"].flagged
    assert s["Nummer"].role is Role.IDENTIFIER and s["Nummer"].flagged  # whole numbers: a record number


def test_invoice_and_batch_numbers_are_not_amounts() -> None:
    for name in ("Rechnungsnummer", "Charge", "numéro de facture"):
        frame = pd.DataFrame({name: [f"R{i:05d}" for i in range(50)]})
        assert suggest_roles(frame)[0].kind != "amount", name


def test_small_tables_are_not_flagged_by_uniqueness() -> None:
    frame = pd.DataFrame({"code": ["a", "b", "c"]})
    assert by_column(frame)["code"].role is None


@pytest.mark.parametrize("name", ["Patient ID", "patient_id", "e-mail", "SSN", "phone", "surname"])
def test_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is Role.IDENTIFIER


@pytest.mark.parametrize("name", ["age", "zipcode", "diagnosis", "idea", "rename", "Stationsname", "cpu"])
def test_non_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is not Role.IDENTIFIER


# --- conflicting roles (issue 17, item 7) ----------------------------------------------------------------
@pytest.mark.parametrize(
    "flags,words",
    [
        (
            ["--identifier", "patient_id,name", "--qi", "age,name"],
            "an identifier (--identifier) and as a quasi",
        ),
        (["--identifier", "name", "--qi", "age", "--sensitive", "name"], "(--identifier) and as a sensitive"),
        (
            ["--qi", "age,diagnosis", "--sensitive", "diagnosis"],
            "a quasi-identifier (--qi) and as a sensitive",
        ),
    ],
)
def test_a_column_given_two_roles_is_refused(capsys, tmp_path, flags, words) -> None:
    from kanon_engine.cli import main

    data = Path(__file__).resolve().parents[2] / "resources" / "sample" / "sample_patients.csv"
    out = tmp_path / "rel.csv"
    code = main(["anonymize", str(data), *flags, "--k", "5", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "a column has one role" in err and "Traceback" not in err
    assert not out.exists()


def test_a_flag_against_the_projects_role_is_refused(capsys, tmp_path) -> None:
    from kanon_engine.cli import main

    sample = Path(__file__).resolve().parents[2] / "resources" / "sample"
    project = str(sample / "sample_project.json")
    code = main(["anonymize", "--project", project, "--qi", "age,sex,name", "--k", "5"])
    err = capsys.readouterr().err
    assert code == 2
    assert "'name' is given both as an identifier (in the project sample_project.json)" in err
    assert "as a quasi-identifier (--qi)" in err
    # giving --identifier too replaces the project's identifiers: then the choice is explicit
    code = main(
        ["anonymize", "--project", project, "--identifier", "patient_id", "--qi", "age,name", "--k", "2"]
    )
    assert code == 0, capsys.readouterr().err


def test_project_file_with_a_column_twice_in_roles(capsys, tmp_path) -> None:
    from kanon_engine.cli import main
    from kanon_engine.errors import ConfigError
    from kanon_engine.project.project_file import Project

    (tmp_path / "d.csv").write_text("name,age\nA,1\nB,2\n")
    path = tmp_path / "p.json"
    path.write_text(
        '{"schema_version": 1, "data": {"path": "d.csv"}, '
        '"roles": {"name": "identifier", "age": "quasi-identifier", "name": "quasi-identifier"}}'
    )
    with pytest.raises(ConfigError, match="'name' is given two roles, 'identifier' and 'quasi-identifier'"):
        Project.load(path)
    assert main(["anonymize", "--project", str(path), "--k", "2"]) == 2
    assert "a column has one role" in capsys.readouterr().err


# --- issue 12, item 6: names in English, German, French and Spanish, words inside compounds ------------
@pytest.mark.parametrize(
    ("name", "role", "kind"),
    [
        ("Patientenname", Role.IDENTIFIER, "name"),
        ("Vorname", Role.IDENTIFIER, "name"),
        ("Nom du patient", Role.IDENTIFIER, "name"),
        ("nombre", Role.IDENTIFIER, "name"),
        ("Apellidos", Role.IDENTIFIER, "name"),
        ("Prénom", Role.IDENTIFIER, "name"),
        ("Fallnummer", Role.IDENTIFIER, "patient number"),
        ("Versichertennummer", Role.IDENTIFIER, "insurance number"),
        ("Telefonnummer", Role.IDENTIFIER, "contact"),
        ("Straße", Role.IDENTIFIER, "address"),
        ("Geburtsdatum", Role.QUASI_IDENTIFIER, "date of birth"),
        ("date de naissance", Role.QUASI_IDENTIFIER, "date of birth"),
        ("fecha_nacimiento", Role.QUASI_IDENTIFIER, "date of birth"),
        ("DateOfBirth", Role.QUASI_IDENTIFIER, "date of birth"),
        ("PLZ", Role.QUASI_IDENTIFIER, "postcode"),
        ("Postleitzahl", Role.QUASI_IDENTIFIER, "postcode"),
        ("code postal", Role.QUASI_IDENTIFIER, "postcode"),
        ("CP", Role.QUASI_IDENTIFIER, "postcode"),
        ("Código postal", Role.QUASI_IDENTIFIER, "postcode"),
        ("Geschlecht", Role.QUASI_IDENTIFIER, "sex"),
        ("sexe", Role.QUASI_IDENTIFIER, "sex"),
        ("Sexo", Role.QUASI_IDENTIFIER, "sex"),
        ("Aufnahmedatum", Role.QUASI_IDENTIFIER, "admission date"),
        ("Aufnahme", Role.QUASI_IDENTIFIER, "admission date"),
        ("admission_date", Role.QUASI_IDENTIFIER, "admission date"),
        ("Fecha de ingreso", Role.QUASI_IDENTIFIER, "admission date"),
        ("Alter", Role.QUASI_IDENTIFIER, "age"),
        ("Edad", Role.QUASI_IDENTIFIER, "age"),
        ("Diagnose (ICD-10)", Role.SENSITIVE, "diagnosis"),
        ("diagnóstico", Role.SENSITIVE, "diagnosis"),
    ],
)
def test_names_in_four_languages(name: str, role: Role, kind: str) -> None:
    s = suggest_roles(pd.DataFrame({name: ["x", "x", "y"]}))[0]
    assert (s.role, s.kind) == (role, kind)
    assert s.confident
    assert f"'{name}' looks like" in s.reason


@pytest.mark.parametrize(
    "name", ["Stationsname", "cpu", "Ingresos", "Sextant", "Aufnahmestation", "Postfach"]
)
def test_short_words_only_match_whole_words(name: str) -> None:
    s = suggest_roles(pd.DataFrame({name: ["x", "x", "y"]}))[0]
    assert not s.confident


def test_suggestions_from_values_are_shown_not_applied() -> None:
    """Dates, 4-5 digit codes and a handful of categories suggest a quasi-identifier, with the reason;
    they are not applied on their own (confident is False)."""
    from kanon_engine.data.table import Table

    n = 60
    frame = pd.DataFrame(
        {
            "d1": [f"{1 + i % 28:02d}.03.1971" for i in range(n)],
            "k2": ["01067", "04109", "10115"] * (n // 3),
            "k3": ["A", "B", "0"] * (n // 3),
        }
    )
    table = Table.from_frame(frame)
    s = {x.column: x for x in suggest_roles(table.frame, column_types=table.column_types)}
    assert (s["d1"].role, s["d1"].kind, s["d1"].confident) == (Role.QUASI_IDENTIFIER, "date", False)
    assert "holds dates" in s["d1"].reason
    assert (s["k2"].role, s["k2"].kind) == (Role.QUASI_IDENTIFIER, "postcode")
    assert "such as '01067'" in s["k2"].reason or "codes such as" in s["k2"].reason
    assert (s["k3"].role, s["k3"].kind) == (Role.QUASI_IDENTIFIER, "categories")
    assert "only 3 different values" in s["k3"].reason
