"""The workbench's language: chosen at start by the rule of :mod:`kanon_engine.i18n.language`, with
Qt's own translations (file dialogs, standard buttons) and Qt's number formats in step.

The engine's catalog (:mod:`kanon_engine.i18n`) holds every kanon message, the workbench's included.
Qt's dialogs and buttons come translated in the PySide6 wheel (``qtbase_de.qm`` and its siblings in
``QLibraryInfo``'s translations folder, which the installers bundle); they are loaded here with a
``QTranslator``. ``QLocale.setDefault`` makes spin boxes and validators read and write the language's
decimal comma. The choice made in the Language menu is saved in the settings file and applies when
kanon starts again (the menu offers to restart at once).
"""

from __future__ import annotations

import logging
import os
import sys

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QProcess, QTranslator
from PySide6.QtWidgets import QMenu, QMessageBox

from kanon_engine import i18n
from kanon_engine.i18n import N_, _
from kanon_engine.i18n.catalog import pseudo

LOG = logging.getLogger("kanon_gui.language")
SETTING = "language"
#: Qt's catalogs for the workbench: ``qtbase`` holds the dialogs and standard buttons.
QT_CATALOGS = ("qtbase",)

_translators: list[QTranslator] = []

#: Qt's own texts that the PySide6 wheel's catalogs lack for some languages (Qt 6.11 renamed "Look in:"
#: to "&Look in:" and "Files of type:" to "Files of &type:"; qtbase_fr and qtbase_es kept the old
#: wording; checked by tests/gui/test_qt_translations.py). kanon translates them in its own catalog.
QT_GAPS = {
    ("QFileDialog", "&Look in:"): N_("&Look in:"),
    ("QFileDialog", "Files of &type:"): N_("Files of &type:"),
    ("QAbstractFileIconProvider", "Folder"): N_("Folder"),
    ("QAbstractFileIconProvider", "Drive"): N_("Drive"),
}


class QtGapsTranslator(QTranslator):
    """Qt's texts of :data:`QT_GAPS` through kanon's catalog; every other text is left to Qt's own
    translations. Installed first, so Qt's catalogs are asked before it (Qt asks the last installed
    translator first) and this one fills only their gaps."""

    def translate(self, context, source_text, disambiguation=None, n=-1):  # noqa: N802 - Qt's name
        message = QT_GAPS.get((context, source_text))
        if message is None:
            return ""
        text = _(message)
        return text if text != message or i18n.current_language() == i18n.SOURCE_LANGUAGE else ""

    def isEmpty(self) -> bool:  # noqa: N802 - Qt's name
        return False


class PseudoTranslator(QTranslator):
    """Qt's own texts wrapped like kanon's in the pseudo-locale, so the walk over every view tells
    text that went through a catalog (kanon's or Qt's) from text that did not."""

    def translate(self, context, source_text, disambiguation=None, n=-1):  # noqa: N802 - Qt's name
        return pseudo(source_text) if source_text else source_text

    def isEmpty(self) -> bool:  # noqa: N802 - Qt's name
        return False


def saved_language() -> str | None:
    """The language chosen in the Language menu (None: follow the system)."""
    from kanon_gui.appdata import settings

    value = settings().value(SETTING, "")
    return str(value) if value else None


def save_language(code: str | None) -> None:
    from kanon_gui.appdata import settings

    s = settings()
    if code:
        s.setValue(SETTING, code)
    else:
        s.remove(SETTING)
    s.sync()


def system_languages() -> list[str]:
    """The system's languages as Qt reads them (on Windows and macOS they are not in the environment)."""
    system = QLocale.system()
    return [*system.uiLanguages(), system.name()]


def chosen_language() -> str:
    """The language by the rule: KANON_LANG, else the saved choice, else the system's, else English."""
    return i18n.resolve_language(saved_language(), system_languages())


def install_language(code: str | None = None) -> str:
    """Make ``code`` (default: :func:`chosen_language`) the language of kanon and of Qt; returns it."""
    code = code or chosen_language()
    i18n.install(code)
    QLocale.setDefault(QLocale("de" if code == i18n.PSEUDO else code))
    app = QCoreApplication.instance()
    for old in _translators:
        if app is not None:
            app.removeTranslator(old)
    _translators.clear()
    if app is None:
        return code
    if code == i18n.PSEUDO:
        _translators.append(PseudoTranslator(app))
    elif code != i18n.SOURCE_LANGUAGE:
        _translators.append(QtGapsTranslator(app))  # first: asked after Qt's own catalogs
        folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        for name in QT_CATALOGS:
            translator = QTranslator(app)
            if translator.load(f"{name}_{code}", folder):
                _translators.append(translator)
            else:
                LOG.warning("Qt's %s translation for %s was not found in %s", name, code, folder)
    for translator in _translators:
        app.installTranslator(translator)
    LOG.info("language: %s", code)
    return code


def qt_translation_loaded(code: str) -> bool:
    """Whether Qt's translation of ``code`` can be loaded (the self-test checks every language)."""
    if code == i18n.SOURCE_LANGUAGE:
        return True
    translator = QTranslator()
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    return translator.load(f"qtbase_{code}", folder)


# --- the Language menu -----------------------------------------------------------------------------------
def add_language_menu(window) -> QMenu:
    """A Language menu in ``window``'s menu bar: follow the system, or one of the languages kanon has
    (each in its own name). A choice is saved and applies after a restart, which the menu offers."""
    from PySide6.QtGui import QActionGroup

    menu = window.menuBar().addMenu(_("&Language"))
    group = QActionGroup(menu)
    group.setExclusive(True)
    saved = saved_language()
    choices = [(None, _("Follow the system"))] + [
        (code, i18n.language_name(code)) for code in i18n.available_languages()
    ]
    for code, text in choices:
        action = menu.addAction(text)
        action.setCheckable(True)
        action.setChecked(code == saved)
        action.setData(code or "")
        group.addAction(action)
        action.triggered.connect(lambda _checked=False, code=code: choose_language(window, code))
    forced = os.environ.get(i18n.language.ENV_VARIABLE)
    if forced:
        menu.addSeparator()
        note = menu.addAction(
            _(
                "{variable}={value} is set and wins over this choice.",
                variable=i18n.language.ENV_VARIABLE,
                value=forced,
            )
        )
        note.setEnabled(False)
    return menu


def choose_language(window, code: str | None) -> None:
    """Save the choice and offer to restart kanon in the new language."""
    save_language(code)
    new = i18n.resolve_language(code, system_languages())
    LOG.info("language chosen: %s (applies at the next start)", code or "system")
    if new == i18n.current_language():
        return
    box = QMessageBox(window)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(_("Language"))
    with i18n.using(new):  # said in the language the user just chose, so they can read it
        text = _(
            "kanon will speak {language} from its next start. Restart now?", language=i18n.language_name(new)
        )
        restart_text, later_text = _("Restart now"), _("Later")
    box.setText(text)
    restart = box.addButton(restart_text, QMessageBox.ButtonRole.AcceptRole)
    box.addButton(later_text, QMessageBox.ButtonRole.RejectRole)
    box.exec()
    if box.clickedButton() is restart:
        restart_application(window)


def restart_application(window) -> bool:
    """Close the window (it asks to save unsaved work) and start kanon again; False if the user kept
    the window open."""
    if not window.close():
        return False
    frozen = getattr(sys, "frozen", False)
    args = sys.argv[1:] if frozen else [sys.argv[0], *sys.argv[1:]]
    QProcess.startDetached(sys.executable, args)
    QCoreApplication.quit()
    return True
