"""Stop running graphs early from outside: what a shutting-down server does.

A :class:`RunStop` is shared by every run it is handed to (a
:class:`~.session.RunSession` takes it as ``stop``). Calling
:meth:`RunStop.stop` ends each of those runs as a lost lease does: the graph
task is cancelled at its next ``await`` and the run fails with
:class:`RunStoppedError`, so the usual failure path applies (a resume keeps
the pause it was answering; a first run that never handed out a batch is
cleaned up). A run that already has its result is not affected.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["RunStop", "RunStoppedError"]


class RunStoppedError(RuntimeError):
    """The server stopped the run before it finished; retry the same request.

    Raised by the runner for a run whose :class:`RunStop` was triggered (the
    server is shutting down and the run outlived its grace period). Nothing
    the run did after the pause it answered is kept, so retrying the same
    request, on any server sharing the checkpointer, resumes that pause.
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message
            or "The server is shutting down and stopped this run before it "
            "finished. Retry the same request."
        )


class RunStop:
    """A one-way switch that stops every run it was handed to.

    Usage::

        stop = RunStop()
        session = RunSession(request, messages, registry, stop=stop)
        ...
        stop.stop()  # every such run still executing fails with RunStoppedError

    Runs handed a stop that is already triggered fail as soon as they start.
    It holds no event-loop object, so one switch may serve runs on several
    loops; call :meth:`stop` on the thread of the loop the runs execute on.
    """

    __slots__ = ("_callbacks", "_stopped")

    def __init__(self) -> None:
        self._stopped = False
        self._callbacks: dict[object, Callable[[], object]] = {}

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopped

    def stop(self) -> None:
        """Stop every run holding this switch (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        callbacks, self._callbacks = self._callbacks, {}
        for callback in callbacks.values():
            callback()

    def subscribe(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` once on :meth:`stop` (at once if already stopped).

        Returns:
            A function that unsubscribes ``callback`` (a no-op once called).

        """
        if self._stopped:
            callback()
            return _nothing
        key = object()
        self._callbacks[key] = callback

        def unsubscribe() -> None:
            self._callbacks.pop(key, None)

        return unsubscribe


def _nothing() -> None:
    return None
