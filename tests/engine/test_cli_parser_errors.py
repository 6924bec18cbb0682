"""A command line argparse itself refuses (an unknown option, an option without its value, a value not among
its choices, an unknown command) is answered as every other bad input: one sentence after ``error:``, in the
user's language, exit code 2, and none of argparse's English words or usage lines."""

from __future__ import annotations

import pytest

from kanon_engine.cli import main
from kanon_engine.cli.parser import plain_words
from kanon_engine.i18n import install

DATA = "data.csv"

#: (arguments after the command name, the English sentence, the German one)
CASES = [
    (
        ["anonymize", DATA, "--qi", "age", "--kk", "5"],
        "error: Unknown option or value: --kk 5; '--help' after the command lists its options.",
        "Fehler: Unbekannte Option oder unbekannter Wert: --kk 5; '--help' nach dem Befehl listet seine "
        "Optionen auf.",
    ),
    (
        ["anonymize", DATA, "--qi", "age", "--k"],
        "error: --k needs a value.",
        "Fehler: --k braucht einen Wert.",
    ),
    (
        ["anonymize", DATA, "--qi", "age", "--suppression", "5"],
        "error: --suppression could be any of --suppression-limit, --suppression-mark: write the option "
        "in full.",
        "Fehler: --suppression kann jede von --suppression-limit, --suppression-mark sein: schreiben Sie "
        "die Option vollständig aus.",
    ),
    (
        ["anonymise", DATA],
        "error: 'anonymise' is not a command; the commands are check, apply, anonymize, hierarchy, "
        "algorithms, risk, workload, utility.",
        "Fehler: „anonymise“ ist kein Befehl; die Befehle sind check, apply, anonymize, hierarchy, "
        "algorithms, risk, workload, utility.",
    ),
    (
        ["check", DATA, "--k", "5"],
        "error: Missing: --qi. 'python -m kanon_engine check --help' says what is needed.",
        "Fehler: Es fehlt: --qi. 'python -m kanon_engine check --help' sagt, was nötig ist.",
    ),
    (
        ["hierarchy", DATA, "--column", "age", "--intervals", "5,10", "--bottom", "low"],
        "error: --bottom takes a number; got 'low'.",
        "Fehler: --bottom nimmt eine Zahl; angegeben: „low“.",
    ),
    (
        ["hierarchy", DATA, "--column", "age", "--intervals", "5,10", "--masking"],
        "error: --masking cannot be used together with --intervals.",
        "Fehler: --masking kann nicht zusammen mit --intervals verwendet werden.",
    ),
    (
        ["risk", DATA, "--qi", "age", "--population-region", "Atlantis"],
        None,  # the regions are many: checked below by their start
        None,
    ),
]


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("case", CASES, ids=[" ".join((c[0][0], c[0][-1])) for c in CASES])
def test_argparse_refusals_are_one_sentence_in_the_users_language(case, language, capsys) -> None:
    args, english, german = case
    try:
        with pytest.raises(SystemExit) as stop:
            main([*args, "--language", language])
    finally:
        install("en")  # (main makes the language asked for the process's: the tests read English)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line: no usage lines before it
    assert "usage:" not in err and "argument" not in err and "expected" not in err
    expected = {"en": english, "de": german}[language]
    if expected is not None:
        assert err.strip() == expected
    else:
        word = {"en": "error: --population-region: 'Atlantis' is not one of ", "de": "Fehler: "}[language]
        assert err.startswith(word) and "Atlantis" in err and "choose from" not in err


def test_a_message_argparse_did_not_word_is_kept() -> None:
    """A refusal a flag's own check gave (already kanon's sentence) passes unchanged, named by its flag."""
    assert plain_words("argument --k: k must be at least 2", "kanon") == "--k: k must be at least 2"
    assert plain_words("something else", "kanon") == "something else"
