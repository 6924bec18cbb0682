"""Dialogs: data import, hierarchy builder wizard, crash report."""
