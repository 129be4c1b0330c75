"""Join codes (short, unambiguous, typed by students) and instructor tokens (secrets)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
CODE_LEN = 6
CODE_RE = re.compile(f"^[{ALPHABET}]{{{CODE_LEN}}}$")
TOKEN_BYTES = 24  # 192 bits (≥ 128 required)


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))


def normalise_code(raw: str) -> str | None:
    """A code as typed (any case, stray spaces) → canonical, or None when it cannot be one."""
    code = raw.strip().upper()
    return code if CODE_RE.match(code) else None


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """Only a hash of the token is stored: a leaked database does not hand out control."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(token_hash(token), stored_hash)
