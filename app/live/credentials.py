"""The participant credential (one phone, one vote) and the hashed client address, both keyed by the
deployment's secret (``AIINFRA_SECRET``, or one made once and kept in the live store).

A credential is ``p1.{code}.{epoch}.{pid}.{mac}``: the class code, the class's epoch (derived from
the class itself, so a later class that happens to get the same code does not accept it), a
random participant id, and an HMAC-SHA256 over all of them. It is stateless: any worker, instance
or restarted server that shares the secret verifies it from the credential alone, and the id is
stable for as long as the phone keeps the credential (what a later class sweep can assign work by).
A participant cannot choose or guess another's id, so answers keyed by it are one per phone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

VERSION = "p1"
PID_BYTES = 12  # 96 random bits
MAC_BYTES = 16  # 128 bits of HMAC-SHA256


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass(frozen=True)
class Participant:
    """A verified credential: the class it belongs to, and the participant's id within it."""

    code: str
    epoch: str
    pid: str


class Keys:
    """Keys derived from one secret, one per purpose (a participant MAC can never be replayed as an
    address hash or an epoch)."""

    def __init__(self, secret: bytes):
        self._participant = hmac.new(secret, b"aiinfra live participant", hashlib.sha256).digest()
        self._epoch = hmac.new(secret, b"aiinfra live epoch", hashlib.sha256).digest()
        self._address = hmac.new(secret, b"aiinfra live address", hashlib.sha256).digest()

    def epoch(self, code: str, token_hash: str) -> str:
        """A class's epoch: the same for every worker, different for each class (its token differs)."""
        return hmac.new(self._epoch, f"{code}|{token_hash}".encode(), hashlib.sha256).hexdigest()[:8]

    def _mac(self, code: str, epoch: str, pid: str) -> str:
        msg = f"{VERSION}|{code}|{epoch}|{pid}".encode()
        return _b64(hmac.new(self._participant, msg, hashlib.sha256).digest()[:MAC_BYTES])

    def issue(self, code: str, epoch: str) -> tuple[str, Participant]:
        """A new participant of class ``code``: the credential and what it says."""
        pid = _b64(secrets.token_bytes(PID_BYTES))
        return f"{VERSION}.{code}.{epoch}.{pid}.{self._mac(code, epoch, pid)}", Participant(code, epoch, pid)

    def open(self, credential: str) -> Participant | None:
        """What ``credential`` says, if this deployment signed it (checked from the credential alone);
        None for anything forged, altered, truncated or foreign."""
        parts = credential.split(".")
        if len(parts) != 5 or parts[0] != VERSION:
            return None
        _, code, epoch, pid, mac = parts
        if not hmac.compare_digest(self._mac(code, epoch, pid).encode(), mac.encode()):
            return None
        return Participant(code, epoch, pid)

    def address(self, host: str) -> str:
        """A client address as the store keeps it: keyed-hashed (no address is ever stored in clear)."""
        return hmac.new(self._address, host.encode(), hashlib.sha256).hexdigest()[:20]
