"""Password protection of project files: authenticated encryption of the whole document.

Why: a project file holds every distinct value of its quasi-identifiers (the hierarchies list each date
of birth and postcode), so it is patient data. It is written for its owner only (permissions 0600), and
it can be sealed with a password, so a copy left on a shared drive or a USB stick reveals nothing.

How: the password is stretched with scrypt (Percival 2009; RFC 7914; n = 2^15, r = 8, p = 1, a fresh
16-byte salt per save), and the document is encrypted with AES-256-GCM (NIST SP 800-38D), an
authenticated cipher: a wrong password or a single changed byte fails the tag check, so it is refused,
never read as garbage. The KDF parameters and a format tag are authenticated with the data. The key
depends on the password, so nothing can be authenticated before it is derived: what can be checked
without it is checked first (the fields and their types, the parameters within bounds, the sizes of salt,
nonce and tag), so a tampered file is refused in milliseconds, never after gigabytes of key stretching.
Both come from the ``cryptography`` package (pyca), which wraps OpenSSL; nothing here is home-made
cryptography.

A sealed file is JSON too, so it is recognised at once::

    {"kanon_sealed": 1, "kdf": "scrypt", "n": 32768, "r": 8, "p": 1, "salt": "...",
     "cipher": "AES-256-GCM", "nonce": "...", "data": "..."}
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from kanon_engine.errors import DataError
from kanon_engine.i18n import _

FORMAT = 1
_SCRYPT = {"n": 1 << 15, "r": 8, "p": 1}
#: Bounds of the scrypt parameters a sealed file may ask for, checked before any key is derived: a
#: tampered file asking n = 2^30 would take gigabytes and minutes (scrypt needs 128 * n * r bytes and
#: time in proportion to n * r * p). The bounds allow four times kanon's own cost (about a second here).
_N_RANGE = (1 << 14, 1 << 17)
_R_RANGE = (1, 16)
_P_RANGE = (1, 4)
_MAX_WORK = 4 * _SCRYPT["n"] * _SCRYPT["r"] * _SCRYPT["p"]
#: The fields of a sealed document, and nothing else.
_FIELDS = frozenset({"kanon_sealed", "kdf", "n", "r", "p", "salt", "cipher", "nonce", "data"})
_TAG_BYTES = 16
_KEY_BYTES = 32
_NONCE_BYTES = 12
_SALT_BYTES = 16


class PasswordError(DataError):
    """A sealed project needs a password (``missing``), or the one given does not open it."""

    kind = "password"

    def __init__(self, message: str, *, missing: bool, where: str = "") -> None:
        hint = (
            _("Enter the password the project was saved with.")
            if missing
            else _("Check the password (it is case-sensitive) and try again; the file was not changed.")
        )
        super().__init__(message, hint=hint, where=where)
        self.missing = missing


def is_sealed(document: Any) -> bool:
    """Whether a parsed JSON document is a password-protected project."""
    return isinstance(document, dict) and "kanon_sealed" in document


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any, name: str) -> bytes:
    if not isinstance(text, str):
        raise _damaged(name)
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise DataError(
            _("The protected project {name} is damaged (it cannot be decoded).", name=name), where=name
        ) from None


def _damaged(name: str) -> DataError:
    return DataError(
        _("The protected project {name} is damaged (it was altered or cut short).", name=name),
        hint=_("Open a copy saved earlier."),
        where=name,
    )


def _whole_number(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _damaged(name)
    return value


def _checked_parameters(document: dict[str, Any], name: str) -> tuple[int, int, int]:
    """The scrypt parameters of ``document``, refused at once when out of bounds (see ``_N_RANGE``)."""
    n, r, p = (_whole_number(document[k], name) for k in ("n", "r", "p"))
    fits = (
        _N_RANGE[0] <= n <= _N_RANGE[1]
        and n & (n - 1) == 0
        and _R_RANGE[0] <= r <= _R_RANGE[1]
        and _P_RANGE[0] <= p <= _P_RANGE[1]
        and n * r * p <= _MAX_WORK
    )
    if not fits:
        raise DataError(
            _(
                "The protected project {name} asks for password-stretching parameters kanon never writes "
                "(n = {n}, r = {r}, p = {p}), so it was altered and is not opened.",
                name=name,
                n=str(n)[:20],
                r=str(r)[:20],
                p=str(p)[:20],
            ),
            hint=_("Open a copy saved earlier."),
            where=name,
        )
    return n, r, p


def _fields(document: dict[str, Any], name: str) -> tuple[int, int, int, bytes, bytes, bytes]:
    """Everything that can be checked without the key, checked (before the costly key derivation):
    the fields and their types, the parameters' bounds, and the sizes of salt, nonce and data."""
    if set(document) != _FIELDS:
        raise _damaged(name)
    n, r, p = _checked_parameters(document, name)
    salt, nonce, data = (_unb64(document[k], name) for k in ("salt", "nonce", "data"))
    if len(salt) != _SALT_BYTES or len(nonce) != _NONCE_BYTES or len(data) < _TAG_BYTES:
        raise _damaged(name)
    return n, r, p, salt, nonce, data


def _key(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=_KEY_BYTES, n=n, r=r, p=p).derive(password.encode("utf-8"))


def _header(fields: dict[str, Any]) -> bytes:
    """The authenticated associated data: every field except the ciphertext, in a fixed order."""
    return json.dumps({k: fields[k] for k in sorted(fields) if k != "data"}, sort_keys=True).encode()


def seal(text: str, password: str) -> str:
    """The sealed JSON document holding ``text`` (a project file's contents) under ``password``."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if not password:
        raise DataError(
            _("An empty password protects nothing."), hint=_("Choose a password, or save without one.")
        )
    salt, nonce = os.urandom(_SALT_BYTES), os.urandom(_NONCE_BYTES)
    fields: dict[str, Any] = {
        "kanon_sealed": FORMAT,
        "kdf": "scrypt",
        **_SCRYPT,
        "salt": _b64(salt),
        "cipher": "AES-256-GCM",
        "nonce": _b64(nonce),
    }
    key = _key(password, salt, **_SCRYPT)
    fields["data"] = _b64(AESGCM(key).encrypt(nonce, text.encode("utf-8"), _header(fields)))
    return json.dumps(fields, indent=1) + "\n"


def unseal(document: dict[str, Any], password: str | None, name: str | None = None) -> str:
    """The text inside a sealed document; a PasswordError when the password is missing or wrong."""
    name = _("the project") if name is None else name
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    version = document.get("kanon_sealed")
    if version != FORMAT or document.get("kdf") != "scrypt" or document.get("cipher") != "AES-256-GCM":
        raise DataError(
            _(
                "{name} is protected in a way this kanon does not know (format {version}).",
                name=name,
                version=str(version)[:20],
            ),
            hint=_("Open it with the kanon version that saved it."),
            where=name,
        )
    n, r, p, salt, nonce, data = _fields(document, name)
    if not password:
        raise PasswordError(_("{name} is protected by a password.", name=name), missing=True, where=name)
    try:
        key = _key(password, salt, n, r, p)
        plain = AESGCM(key).decrypt(nonce, data, _header(document))
    except (InvalidTag, UnicodeEncodeError):
        raise PasswordError(
            _("The password does not open {name} (or the file was altered since it was saved).", name=name),
            missing=False,
            where=name,
        ) from None
    except (KeyError, TypeError, ValueError, OverflowError, MemoryError):
        raise _damaged(name) from None
    return plain.decode("utf-8")
