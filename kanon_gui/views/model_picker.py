"""The privacy-model picker's groups: the models filed by what the user protects against (each model's
``threat``, :data:`kanon_engine.privacy.base.THREATS`), each group headed by its title, one plain line
and the published thresholds its models declare (their ``presets``, each citing its source).

Choosing a preset only fills the form: the project stores the values, never the preset, and the command
line is unchanged. A model added later joins its group with its presets and no change here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from kanon_engine.i18n import _
from kanon_engine.params import ParamSpec
from kanon_engine.privacy import PrivacyModel, families
from kanon_engine.privacy.base import THREAT_EXPLANATIONS, THREATS, Preset
from kanon_gui.views.parts import note_label


def threat_groups(classes: Iterable[type[PrivacyModel]] | None = None) -> dict[str, list[type[PrivacyModel]]]:
    """The model families by threat, in the picker's order (an unknown threat files as "singled-out")."""
    groups: dict[str, list[type[PrivacyModel]]] = {threat: [] for threat in THREATS}
    for cls in families() if classes is None else classes:
        groups[cls.threat if cls.threat in THREATS else "singled-out"].append(cls)
    return {threat: found for threat, found in groups.items() if found}


def grouped_params(
    groups: dict[str, list[type[PrivacyModel]]],
) -> tuple[tuple[ParamSpec, ...], dict[str, str]]:
    """Every parameter in group order (a shared one once, where it first appears), and the first
    parameter of each group by threat (where its heading goes)."""
    seen: dict[str, ParamSpec] = {}
    first: dict[str, str] = {}
    for threat, classes in groups.items():
        for cls in classes:
            for spec in cls.params:
                if spec.name not in seen:
                    seen[spec.name] = spec
                    first.setdefault(threat, spec.name)
    return tuple(seen.values()), first


def group_presets(classes: Iterable[type[PrivacyModel]]) -> list[Preset]:
    """The published thresholds of a group's models, in model order."""
    return [preset for cls in classes for preset in cls.presets]


class ThreatHeading(QWidget):
    """A group's title, its one plain line and, when its models declare some, a "Published thresholds"
    menu; ``apply`` receives the chosen preset. The line under it says which preset filled the form and
    its source."""

    def __init__(self, threat: str, presets: list[Preset], apply: Callable[[Preset], None]) -> None:
        super().__init__()
        self.setObjectName(f"threat_{threat}")
        self.presets = presets
        self._apply = apply
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 2)
        layout.setSpacing(2)
        line = QHBoxLayout()
        title = QLabel(f"<b>{_(THREATS[threat])}</b>")
        line.addWidget(title, 1)
        self.button: QToolButton | None = None
        if presets:
            self.button = QToolButton()
            self.button.setObjectName(f"presets_{threat}")
            self.button.setText(_("Published thresholds"))
            self.button.setToolTip(_("Fill the form with a threshold a published source uses."))
            self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            menu = QMenu(self.button)
            menu.setToolTipsVisible(True)
            for preset in presets:
                action = menu.addAction(_(preset.label))
                action.setToolTip(_("Source: {source}", source=_(preset.source)))
                action.triggered.connect(lambda _checked=False, p=preset: self.choose(p))
            self.button.setMenu(menu)
            line.addWidget(self.button)
        layout.addLayout(line)
        self.explanation = note_label(f"threat_explanation_{threat}")
        self.explanation.setText(_(THREAT_EXPLANATIONS.get(threat, "")))
        layout.addWidget(self.explanation)
        self.chosen = note_label(f"threat_preset_{threat}", "color: #555;")
        self.chosen.hide()
        layout.addWidget(self.chosen)

    def choose(self, preset: Preset) -> None:
        """Fill the form with ``preset`` and say where its figure comes from."""
        self._apply(preset)
        self.chosen.setText(
            _("Filled in: {preset}. Source: {source}", preset=_(preset.label), source=_(preset.source))
        )
        self.chosen.show()

    def forget(self) -> None:
        """The form no longer holds a preset's values as chosen (an edit, another project)."""
        self.chosen.hide()
