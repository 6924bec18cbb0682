"""Panels of the main window. Each panel reads :class:`kanon_gui.state.AppState` and changes the project
only through it."""
