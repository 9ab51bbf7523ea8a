"""Each side of the bridge proves to the other that it holds the pairing (issue 35: while the bridge
was off, another user's program listening on Operator's port received requests carrying the bearer
token and the streamed answer, had its fake results typed into the chat, and used the token later).

The token a browser got at pairing is a key now, never sent again: the extension opens a session
with a fresh nonce, Operator answers with its own nonce and an HMAC of both under that key (which
only Operator and the extension hold), and the extension checks it before it sends anything else.
Each later request carries an HMAC under the session's key of its sequence number, method and
target, so what a listener on the port receives is of no use anywhere; each answer carries an
HMAC of its sequence number, status and body, so the extension takes nothing into the chat from a
server that could not make one. A session lives as long as the listening socket that opened it
(the server keeps them): one opened with Operator cannot be replayed to Operator after another
program took the port. The construction, byte for byte: docs/bridge-protocol.md, "The
handshake". Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from msgspec import Struct, field

from . import guard

PROTOCOL = "operator-bridge/1"
SCHEME = "Operator"  # the Authorization scheme of a request in a session
PROOF_HEADER = "Operator-Proof"  # the answer's HMAC
NONCE_CHARS = (22, 128)  # a nonce's length in URL-safe base64 (128 bits at least)
MAX_UNPROVEN = 32  # sessions opened but never used with their key (anyone can open one)
MAX_PROVEN_PER_PAIRING = 8  # sessions of one paired browser (a worker restarted opens another)
SEQ_WINDOW = 4096  # sequence numbers remembered per session; older ones are refused
_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def mac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def pairing_id(token: str) -> str:
    """What names a pairing in a handshake: derived from its key, and telling nothing of it."""
    return b64(mac(token.encode("utf-8"), f"{PROTOCOL} pairing"))


def server_proof(token: str, client_nonce: str, server_nonce: str, session: str) -> str:
    return b64(
        mac(token.encode(), "\n".join((f"{PROTOCOL} server", client_nonce, server_nonce, session)))
    )


def session_key(token: str, client_nonce: str, server_nonce: str, session: str) -> bytes:
    return mac(
        token.encode(), "\n".join((f"{PROTOCOL} session", client_nonce, server_nonce, session))
    )


def request_mac(key: bytes, seq: int, method: str, target: str) -> str:
    return b64(mac(key, "\n".join(("request", str(seq), method, target))))


def response_proof(key: bytes, seq: int, status: int, body: bytes) -> str:
    digest = b64(hashlib.sha256(body).digest())
    return b64(mac(key, "\n".join(("response", str(seq), str(status), digest))))


def is_nonce(value: object) -> bool:
    low, high = NONCE_CHARS
    return isinstance(value, str) and low <= len(value) <= high and set(value) <= _B64URL


class Session(Struct):
    id: str
    token: str  # the pairing's key: a session ends with its pairing (operator-app bridge --forget)
    key: bytes
    proven: bool = False  # a request signed with its key came: the client holds the pairing
    floor: int = 0  # sequence numbers at or below it are spent
    used: set[int] = field(default_factory=set)

    def spend(self, seq: int) -> bool:
        """Take sequence number `seq`, once: a request seen before is refused."""
        if seq <= self.floor or seq in self.used:
            return False
        self.used.add(seq)
        if len(self.used) > SEQ_WINDOW:
            # Requests run side by side (long polls), so numbers arrive a little out of order:
            # the oldest remembered one becomes the floor.
            self.floor = min(self.used)
            self.used.discard(self.floor)
        return True


class Opened(Struct, frozen=True):
    """A handshake's answer."""

    session: str
    nonce: str
    proof: str


class Admitted(Struct, frozen=True):
    """A request signed in a session: its answer is signed with `key` and `seq`."""

    session: Session
    seq: int


class Sessions:
    """The sessions of one listening socket: opened by handshakes, proven by the first request
    signed with their key. Anyone may open one (it costs a nonce); those never proven are few and
    the oldest goes first, and a flood of them never closes a paired browser's proven one."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}  # in opening order

    def open(self, token: str, client_nonce: str) -> Opened:
        server_nonce, session = b64(secrets.token_bytes(32)), b64(secrets.token_bytes(16))
        self._sessions[session] = Session(
            session, token, session_key(token, client_nonce, server_nonce, session)
        )
        unproven = [s.id for s in self._sessions.values() if not s.proven]
        for old in unproven[: max(0, len(unproven) - MAX_UNPROVEN)]:
            del self._sessions[old]
        proof = server_proof(token, client_nonce, server_nonce, session)
        return Opened(session, server_nonce, proof)

    def admit(self, header: str | None, method: str, target: str) -> Admitted | guard.Refusal:
        """The session a request's `Authorization: Operator <session> <seq> <mac>` proves, its
        sequence number taken; or the refusal (BRIDGE_UNAUTHORIZED: open a session again)."""
        parts = (header or "").split(" ")
        if len(parts) != 4 or parts[0] != SCHEME or not parts[2].isascii():
            return guard.UNAUTHORIZED
        session = self._sessions.get(parts[1])
        if session is None or not parts[2].isdigit() or len(parts[2]) > 15:
            return guard.UNAUTHORIZED
        seq = int(parts[2])
        expected = request_mac(session.key, seq, method, target)
        if not hmac.compare_digest(parts[3].encode("ascii", "replace"), expected.encode()):
            return guard.UNAUTHORIZED
        if not session.spend(seq):
            return guard.REPLAYED
        if not session.proven:
            session.proven = True
            self._cap_proven(session.token)
        return Admitted(session, seq)

    def _cap_proven(self, token: str) -> None:
        proven = [s.id for s in self._sessions.values() if s.proven and s.token == token]
        for old in proven[: max(0, len(proven) - MAX_PROVEN_PER_PAIRING)]:
            del self._sessions[old]

    def end(self, session: Session) -> None:
        self._sessions.pop(session.id, None)

    def __len__(self) -> int:
        return len(self._sessions)


def sign(admitted: Admitted, status: int, body: bytes) -> str:
    return response_proof(admitted.session.key, admitted.seq, status, body)
