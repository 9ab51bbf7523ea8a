"""What the bridge knows and does, apart from HTTP: pairing, which browser tab talks to it, the
page messages it has seen, the Operator message each became and whether its results are in.
Everything here runs on the event loop; the feeder thread's news comes in through
`loop.call_soon_threadsafe`. The HTTP layer (server.py) only checks requests and calls in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct, field

from ..engine import AwaitingDecision, EngineEvent, ResultReady
from ..protocol import CommandResult, GrowingScan, render_results
from .feeder import Feeder, StreamHost
from .ledger import Ledger
from .pages import Feed, Open, PageKey, PageMessages, StreamOp
from .pairing import CODE_LIFETIME_S, Client, Paired, Pairing, PairingRefused

CONNECTED_FOR_S = 30.0  # a browser is "connected" this long after its last request
PAIRINGS_LOOKED_AT_S = 2.0  # how often the settings file is looked at for a forgotten pairing
FEEDER_JOIN_S = 2.0  # how long stopping waits for the feeder to end the open messages
# A "Send selection to Operator" is a page message of its own, sent by the person's own act
# (docs/bridge-protocol.md): it is never held.
SELECTION_PREFIX = "selection/"
PAGES_IN_MEMORY = (
    200  # ended page messages beyond this are forgotten here (their ledger keeps them)
)
MAX_WAIT_S = 25.0


class BridgeMessage(Struct):
    """One Operator message the bridge opened for a page message."""

    serial: int
    key: PageKey
    site: str
    number: int | None = None  # the session's message number, once the engine opened it
    waiting_for: str | None = None  # "fs.write src/app.py" while a write waits for the person
    ended: bool = False
    results: list[CommandResult] = field(default_factory=list)
    problem: str | None = None
    delivered_in: int | None = (
        None  # the delivery (the bridge's count of them) its results went back in
    )
    ledger: Ledger | None = None  # where its session remembers it (ledger.py)

    @property
    def delivered(self) -> bool:
        return self.delivered_in is not None


class HeldAnswer(Struct):
    """A page message that reached Operator already finished, or told again by the page: the
    page's answer was written while Operator was not listening (the bridge was off, Operator was
    not running, the browser could not reach it). It runs only when the person says so."""

    key: PageKey
    site: str
    title: str
    text: str
    generating: bool = False  # the model still writes it (told again mid-answer, or it grows)
    # How many blocks it would run if the person said so now, valid or not (scanned, not run): a
    # block still being written runs once the answer ends. Counted as the text arrives, by one
    # scan that goes on with what each telling adds: the question about it is worded again at
    # each line the model writes, and an answer is never scanned whole for it again.
    blocks: int = 0
    _scan: GrowingScan = field(default_factory=GrowingScan)

    def __post_init__(self) -> None:
        self._count()

    @property
    def lines(self) -> list[str]:
        return self.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def tell(self, text: str, generating: bool) -> bool:
        """The page told it again: `text` as the page has it now (a shorter text is an older
        telling, and changes nothing), and whether the model still writes it. True when what the
        person is asked about changed: it grew, or it ended."""
        before = (self.text, self.generating)
        if text != self.text and not self.text.startswith(text):
            self.text = text
        self.generating = generating
        self._count()
        return (self.text, self.generating) != before

    def _count(self) -> None:
        found = self._scan.blocks(self.text, ended=not self.generating)
        self.blocks = sum(1 for block in found if block.runs)


class Tab(Struct, frozen=True):
    site: str
    title: str
    url: str
    adapter_ok: bool = True
    problem: str | None = None
    repaired: str | None = None  # a selector the person taught is what finds the answers


class BridgeStatus(Struct, frozen=True):
    state: str  # "waiting" (for a browser) or "connected"
    tab: Tab | None
    pairing_code: str | None
    port: int | None
    browser: str | None = None  # "Chromium 156", as the extension's hello says
    keeps_paired: bool = False  # the code on offer pairs a browser beside the paired ones
    paired: tuple[str, ...] = ()  # the names of the browsers paired now


class Listener:
    """What the front end hears from the bridge (on the event loop). Override what is needed."""

    def status_changed(self, status: BridgeStatus) -> None: ...

    def paired(self, browser: str) -> None: ...

    def code_voided(self, why: str) -> None:
        """The code on offer no longer works (`why`: "5 wrong codes came from the browser")."""

    def forgotten(self) -> None:
        """The paired browsers were forgotten from outside (operator-app bridge --forget): a new
        code is on offer."""

    def delivered(self, number: int, count: int, sent: bool) -> None: ...

    def failed(self, number: int | None, why: str) -> None: ...

    def held(self, answers: list[HeldAnswer]) -> None:
        """The answers held for the person changed (one arrived, was run, or went)."""

    def asked(self, number: int, count: int) -> None:
        """The chat page asks the person where to put message `number`'s results."""


class Bridge:
    def __init__(
        self,
        current_host: Callable[[], StreamHost | None],
        listener: Listener,
        workspace_name: Callable[[], str | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._clock = clock
        self.listener = listener
        self.workspace_name = workspace_name
        self.pairing = Pairing(clock)
        self.pages = PageMessages()
        self.messages: dict[int, BridgeMessage] = {}
        self.held: dict[PageKey, HeldAnswer] = {}  # in arrival order
        self._deliveries = 0
        self._current_host = current_host
        self._ledger: Ledger | None = None
        self.port: int | None = None
        self.tab: Tab | None = None
        self.browser: str | None = None
        self._last_seen: float | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._code_expiry: asyncio.TimerHandle | None = None
        self._paired_tokens = {paired.token for paired in self.pairing.pairings}
        self._pairings_watch = self._loop.call_later(PAIRINGS_LOOKED_AT_S, self._look_at_pairings)
        self._changed = asyncio.Event()
        # What each page's last results poll was answered (state, write waiting): a poll that
        # finds anything else answers at once, even a change made between two polls.
        self._told: dict[PageKey, tuple[Any, ...]] = {}
        self.stopping = False
        self.feeder = Feeder(current_host, _ThreadSafeEvents(self))
        self.feeder.start()

    # --- status ------------------------------------------------------------------------------

    def status(self) -> BridgeStatus:
        connected = (
            self._last_seen is not None and self._clock() - self._last_seen < CONNECTED_FOR_S
        )
        return BridgeStatus(
            "connected" if connected else "waiting",
            self.tab if connected else None,
            self.pairing.code,
            self.port,
            self.browser if connected else None,
            self.pairing.keeps_paired,
            tuple(paired.browser for paired in self.pairing.pairings),
        )

    def status_now(self) -> None:
        """Tell the front end the status as it is now (something it asked for changed it)."""
        self._tell_status()

    def _tell_status(self) -> None:
        if (
            not self.stopping
        ):  # a stopped bridge's late timer must not speak over the next one's header
            self.listener.status_changed(self.status())

    def seen(
        self, tab: dict[str, Any] | None = None, *, no_tab: bool = False, browser: str | None = None
    ) -> None:
        """An authorized request came in (with the tab it speaks for, when it says; `no_tab`: it
        says no chat tab is open; `browser`: which browser it is)."""
        was = self.status()
        self._last_seen = self._clock()
        if browser:
            self.browser = browser[:60]
        if no_tab:
            self.tab = None
        elif tab is not None:
            self.tab = Tab(
                str(tab.get("site") or "page")[:40],
                str(tab.get("title") or "")[:200],
                str(tab.get("url") or "")[:2000],
                tab.get("adapter_ok") is not False,
                str(tab["problem"])[:300] if tab.get("problem") else None,
                str(tab["repaired"])[:300] if tab.get("repaired") else None,
            )
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = self._loop.call_later(CONNECTED_FOR_S + 0.1, self._tell_status)
        if self.status() != was:
            self._tell_status()

    def offer_code(self, keep_paired: bool = False) -> str:
        code = self.pairing.offer_code(keep_paired)
        self._tell_status()
        if self._code_expiry is not None:
            self._code_expiry.cancel()
        self._code_expiry = self._loop.call_later(
            CODE_LIFETIME_S + 1.0, self._tell_status
        )  # the header drops it
        return code

    def pair(self, code: str, client: Client, browser: str) -> Paired:
        try:
            paired = self.pairing.pair(code, client, browser)
        except PairingRefused:
            if self.pairing.voided is not None and self.pairing.code is None:
                # Said at once: the TUI shows no code that no longer works (issue 26, item 16).
                self._tell_status()
                self.listener.code_voided(self.pairing.voided)
            raise
        self._paired_tokens = {p.token for p in self.pairing.pairings}
        self.seen()
        self._tell_status()
        self.listener.paired(browser)
        return paired

    def _look_at_pairings(self) -> None:
        """`operator-app bridge --forget` changes the settings file under a running bridge: its
        tokens stop working at the next request (Pairing reads the file again), and here the
        TUI hears of it and a new code is offered."""
        self._pairings_watch = self._loop.call_later(PAIRINGS_LOOKED_AT_S, self._look_at_pairings)
        tokens = {paired.token for paired in self.pairing.pairings}
        if tokens == self._paired_tokens:
            return
        gone = not tokens and bool(self._paired_tokens)
        self._paired_tokens = tokens
        if gone and not self.stopping:
            self._last_seen, self.tab, self.browser = None, None, None  # no longer connected
            if self.pairing.code is None:
                self.offer_code()
            self.listener.forgotten()
        self._tell_status()

    # --- page messages -----------------------------------------------------------------------

    def update(
        self,
        key: PageKey,
        text: str,
        generating: bool,
        tab: dict[str, Any] | None,
        *,
        resent: bool = False,
    ) -> dict[str, Any]:
        """`resent`: the page tells again a text Operator may have missed (its heartbeat found
        the extension's background had no word of it): Operator did not hear it from its start."""
        site = str((tab or {}).get("site") or "page")[:40]
        if self.pages.get(key) is None:
            self._restore(key, site)
        title = str((tab or {}).get("title") or "")[:200]
        if self._hold(key, text, generating, generating and not resent, site, title):
            return {"message": None, "accepted": 0, "state": "held"}
        return self._take(key, text, generating, site)

    def _hold(
        self, key: PageKey, text: str, generating: bool, heard: bool, site: str, title: str
    ) -> bool:
        """Whether this text waits for the person instead of running. Operator runs by itself only
        what it hears being written (`heard`: the page sends it as the model writes it). A text
        that would open an Operator message and comes already finished, or is told again, was
        written while Operator was not listening (issue 20: it ran by itself seconds after the
        bridge came back, unannounced)."""
        held = self.held.get(key)
        if held is not None:
            if heard and not text.startswith(held.text) and not held.text.startswith(text):
                # Rewritten while the page watches (a regenerated answer): this one is heard.
                del self.held[key]
                self._tell_held()
                return False
            if held.tell(text, generating):
                # The person's question follows it: "began" became "ended", or it grew.
                self._tell_held()
            return True
        if heard or key[0].startswith(SELECTION_PREFIX) or not self.pages.would_open(key, text):
            return False
        self.held[key] = HeldAnswer(key, site, title, text, generating)
        self._tell_held()
        return True

    def _tell_held(self) -> None:
        self._bump()
        if not self.stopping:
            self.listener.held(list(self.held.values()))

    def run_held(self) -> int:
        """The person said run them: each held answer goes in as the page last sent it, in the
        order they arrived. Returns how many."""
        answers, self.held = list(self.held.values()), {}
        for answer in answers:
            self._take(answer.key, answer.text, answer.generating, answer.site)
        if answers:
            self._tell_held()
        return len(answers)

    def _take(self, key: PageKey, text: str, generating: bool, site: str) -> dict[str, Any]:
        ops = self.pages.update(key, text, generating=generating, source=f"bridge {site}")
        self._track(ops, site)
        self.feeder.put(ops)
        for serial in self.pages.forget_ended(PAGES_IN_MEMORY):
            self.messages.pop(serial, None)
        state = self.results_state(key)
        return {
            "message": state.get("message"),
            "accepted": sum(len(op.chunk) for op in ops if isinstance(op, Feed)),
            "state": state["state"],
        }

    def _ledger_now(self) -> Ledger | None:
        """The ledger of the session the bridge feeds now (another workspace has its own)."""
        host = self._current_host()
        if host is None:
            return None
        if self._ledger is None or self._ledger.state_dir != host.state_dir:
            self._ledger = Ledger(host.state_dir)
        return self._ledger

    def _restore(self, key: PageKey, site: str) -> None:
        """A page message this bridge has not seen, that the session's ledger knows (Operator
        restarted, or it was forgotten here): what it became, so the same text is no news and
        results never delivered are still owed."""
        host, ledger = self._current_host(), self._ledger_now()
        record = ledger.get(key) if ledger is not None else None
        if host is None or record is None or not record.messages:
            return
        text = host.message_text(record.messages[-1]) or ""
        serials = self.pages.restore(key, text, len(record.messages), closed=record.closed)
        for serial, number in zip(serials, record.messages, strict=True):
            self.messages[serial] = BridgeMessage(
                serial,
                key,
                site,
                number,
                ended=True,
                results=host.results_of(number),
                delivered_in=0 if number in record.delivered else None,
                ledger=ledger,
            )

    def _track(self, ops: list[StreamOp], site: str) -> None:
        for op in ops:
            if isinstance(op, Open):
                self.messages[op.serial] = BridgeMessage(
                    op.serial, op.key, site, ledger=self._ledger_now()
                )
        if ops:
            self._bump()

    def latest(self, key: PageKey) -> BridgeMessage | None:
        page = self.pages.get(key)
        return self.messages.get(page.serials[-1]) if page is not None and page.serials else None

    def results_state(self, key: PageKey) -> dict[str, Any]:
        if key in self.held:
            return {
                "state": "held",
                "message": None,
                "count": 0,
                "copy_text": "",
                "delivered": False,
                "waiting_for": None,
            }
        message = self.latest(key)
        if message is None:
            return {
                "state": "none",
                "message": None,
                "count": 0,
                "copy_text": "",
                "delivered": False,
                "waiting_for": None,
            }
        page = self.pages.get(key)
        if message.problem is not None:
            state = "failed"
        elif message.ended:
            state = "ready"
        elif page is not None and page.open_serial == message.serial:
            state = "streaming"
        else:
            state = "waiting"
        owed = self._owed(key) if state == "ready" else []
        reply: dict[str, Any] = {
            "state": state,
            "message": message.number,
            "count": len(owed),
            "copy_text": render_results(owed) if owed else "",
            "delivered": message.delivered,
            "waiting_for": message.waiting_for,
        }
        if message.problem is not None:
            reply["problem"] = message.problem
        return reply

    def _owed_messages(self, key: PageKey) -> list[BridgeMessage]:
        """The Operator messages whose results go back together for a page message: those since
        its results last went to the chat or, once they went, the ones that went then."""
        page = self.pages.get(key)
        found = (
            [self.messages[serial] for serial in page.serials if serial in self.messages]
            if page
            else []
        )
        if found and found[-1].delivered_in is not None:
            return [message for message in found if message.delivered_in == found[-1].delivered_in]
        last_delivered = max(
            (i for i, message in enumerate(found) if message.delivered), default=-1
        )
        return found[last_delivered + 1 :]

    def _owed(self, key: PageKey) -> list[CommandResult]:
        """Every result the model has not been given for this page message. An answer rewritten
        before its results went back (a regenerated or edited one), or grown after its message
        ended, became a further Operator message whose blocks that already ran were answered as
        repeats of the earlier one: those answers are the bridge's own re-reading of the page, not
        the model's, and are never owed (the earlier results are, until they went back). A block
        that ran in both (cut off by the rewrite, whole afterwards) is owed once, with its latest
        result; a repeat of a command of another page message is owed like any result."""
        page = self.pages.get(key)
        serials = page.serials if page is not None else []
        numbers = (self.messages[serial].number for serial in serials if serial in self.messages)
        this_page = {number for number in numbers if number is not None}
        owed: list[CommandResult] = []
        for message in self._owed_messages(key):
            if message.ended and message.problem is None:
                fresh = [r for r in message.results if r.repeat_of not in this_page]
                later = {result.id for result in fresh}
                owed = [result for result in owed if result.id not in later] + fresh
        return owed

    async def wait_results(self, key: PageKey, wait: float) -> dict[str, Any]:
        deadline = self._clock() + min(max(wait, 0.0), MAX_WAIT_S)
        first = self._told.get(key)  # what this page heard last
        while True:
            reply = self.results_state(key)
            news = (reply["state"], reply["waiting_for"])
            first = first or news
            left = deadline - self._clock()
            # A change is news too (a held answer the person ran, a write that now waits, the
            # next write waiting after the first was answered): the page hears it at once, not at
            # the end of the wait (issue 26: it named the first write while the second waited),
            # and so is a change made between this page's last poll and this one.
            if (
                reply["state"] in ("ready", "failed", "none")
                or news != first
                or left <= 0
                or self.stopping
            ):
                self._told[key] = news
                return reply
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), left)
            except TimeoutError:
                pass

    async def wait_while_running(self, wait: float) -> bool:
        """Wait `wait` seconds, or less if the bridge stops meanwhile; True when it stops."""
        deadline = self._clock() + min(max(wait, 0.0), MAX_WAIT_S)
        while not self.stopping and (left := deadline - self._clock()) > 0:
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass
        return self.stopping

    def delivered(self, key: PageKey, number: int | None, sent: bool) -> bool:
        """The page put message `number`'s results into its input box (or sent them). Taken only
        for results there are: a message still written, waiting for the person or running has
        none to put anywhere (issue 35: the TUI said "results are in the input box" for one)."""
        message = self.latest(key)
        if (
            message is None
            or message.number is None
            or (number is not None and number != message.number)
            or self.results_state(key)["state"] != "ready"
        ):
            return False
        owed = self._owed(key)
        first = not message.delivered
        if first:
            self._deliveries += 1
            went = self._owed_messages(key)
            for earlier in went:
                earlier.delivered_in = self._deliveries
            if message.ledger is not None:
                message.ledger.delivered(key, [m.number for m in went if m.number is not None])
        if first or sent:
            self.listener.delivered(message.number, len(owed), sent)
        self._bump()
        return True

    def asked(self, key: PageKey, number: int) -> bool:
        """The page did not put message `number`'s results into its input box, which holds text of
        the person's: it asks them where the results should go."""
        message = self.latest(key)
        if message is None or message.number != number or not message.ended:
            return False
        self.listener.asked(number, len(self._owed(key)))
        return True

    def open_message(self, number: int) -> BridgeMessage | None:
        """The bridge's message that is Operator message `number`, while the page still feeds it."""
        for serial in self.pages.open_serials():
            message = self.messages.get(serial)
            if message is not None and message.number == number:
                return message
        return None

    def end_message(self, number: int) -> bool:
        """End Operator message `number` now (the person pressed e): its open block fails, and what
        the page adds to it later is not run."""
        message = self.open_message(number)
        if message is None:
            return False
        self.feeder.put(self.pages.close(message.serial))
        if message.ledger is not None:
            message.ledger.closed(message.key)
        self._bump()
        return True

    def workspace_changed(self) -> None:
        """The messages being written belong to the workspace they began in: end them."""
        self.feeder.put(self.pages.end_all())
        self._bump()

    def stop(self) -> None:
        self.stopping = True
        self.feeder.put(self.pages.end_all())
        self.feeder.stop()
        self._cancel_timers()
        self._bump()

    async def finish(self) -> None:
        """Stop, and let the feeder end the messages being written (a moment at most: a write
        waiting for the person gives up when the app goes), so the session records their end."""
        self.stop()
        await asyncio.to_thread(self.feeder.join, FEEDER_JOIN_S)

    def pause(self) -> None:
        """The bridge goes off but the answers being written stay open (issue 26: the person
        turned it off in the middle of an answer, and the answer became two messages and a
        question). Long polls and waiting hellos answer at once ("stopping"); what was held goes
        (the page tells it again later); the messages being fed wait for the rest of their text,
        which the page sends once the bridge is back (`resume`), or end when the person ends them
        (e), the workspace changes or Operator quits."""
        self.stopping = True
        had_held, self.held = bool(self.held), {}
        self._cancel_timers()
        self._last_seen, self.tab = None, None
        self._bump()
        if had_held:
            self.listener.held([])

    def resume(self) -> None:
        """The bridge is on again: the paused messages take their page's text again."""
        self.stopping = False
        self._paired_tokens = {paired.token for paired in self.pairing.pairings}
        self._pairings_watch = self._loop.call_later(PAIRINGS_LOOKED_AT_S, self._look_at_pairings)
        self._bump()

    def writing(self) -> list[int]:
        """The Operator messages being fed now (their session numbers, once known)."""
        numbers = []
        for serial in self.pages.open_serials():
            message = self.messages.get(serial)
            if message is not None and message.number is not None:
                numbers.append(message.number)
        return numbers

    def _cancel_timers(self) -> None:
        for timer in (self._expiry, self._code_expiry, self._pairings_watch):
            if timer is not None:
                timer.cancel()

    def _bump(self) -> None:
        # Every long poll waiting on the old event wakes and looks again.
        self._changed.set()
        self._changed = asyncio.Event()

    # --- news from the feeder thread, moved onto the loop ------------------------------------

    def _opened(self, serial: int, number: int) -> None:
        message = self.messages.get(serial)
        if message is not None:
            message.number = number
            if message.ledger is not None:
                message.ledger.opened(message.key, number)
            self._bump()

    def _engine_event(self, serial: int, event: EngineEvent) -> None:
        message = self.messages.get(serial)
        if message is None:
            return
        if isinstance(event, AwaitingDecision):
            message.waiting_for = f"{event.plan.action} {event.plan.where}"
            self._bump()
        elif isinstance(event, ResultReady) and message.waiting_for is not None:
            message.waiting_for = None
            self._bump()

    def _ended(self, serial: int, results: list[CommandResult]) -> None:
        message = self.messages.get(serial)
        if message is not None:
            message.ended, message.waiting_for = True, None
            message.results = results
            self._bump()

    def _failed(self, serial: int, why: str) -> None:
        message = self.messages.get(serial)
        if message is not None:
            message.problem = why
            self.listener.failed(message.number, why)
            self._bump()


class _ThreadSafeEvents:
    """The feeder's FeederEvents: each call is run on the bridge's loop (dropped once it closed)."""

    def __init__(self, bridge: Bridge) -> None:
        self._bridge = bridge

    def _call(self, method: Callable[..., None], *args: Any) -> None:
        try:
            self._bridge._loop.call_soon_threadsafe(method, *args)
        except RuntimeError:
            pass  # the loop is closed: the app is gone, nobody is left to tell

    def opened(self, serial: int, number: int) -> None:
        self._call(self._bridge._opened, serial, number)

    def engine_event(self, serial: int, event: EngineEvent) -> None:
        self._call(self._bridge._engine_event, serial, event)

    def ended(self, serial: int, results: list[CommandResult]) -> None:
        self._call(self._bridge._ended, serial, results)

    def failed(self, serial: int, why: str) -> None:
        self._call(self._bridge._failed, serial, why)
