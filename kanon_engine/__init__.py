"""kanon engine: k-anonymity by generalization and suppression, with no Qt dependency.

Everything the workbench window can do is available here headless (see ``python -m kanon_engine``).
"""

__version__ = "0.1.0"
