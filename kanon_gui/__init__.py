"""kanon's desktop workbench (PySide6): a thin layer of Qt models, views, dialogs and workers over
``kanon_engine``. The engine never imports this package; this package never computes anonymizations
itself, it asks the engine (through :mod:`kanon_gui.tasks` when the call may take time)."""
