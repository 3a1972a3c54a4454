"""The package's logger, ``keyringauth``, and the app's own functions the package calls (listeners, functions handed to
a dispatch, ``on_abort``) run so that one that raises is logged there, naming the function, with its traceback,
instead of ending the thread that called it. The lowest layer: it imports nothing of the package."""
from __future__ import annotations

import logging
from typing import Callable

#: Where the package reports what it cannot raise to the app: a listener that raised, a broker signal it could not take.
logger = logging.getLogger("keyringauth")


def name_of(function: object) -> str:
    """``function`` as a person finds it in the app's code: its module and qualified name
    (``notes.window.Window.on_user``), or its ``repr`` for a callable without one (a ``functools.partial``, an object)."""
    qualname = getattr(function, "__qualname__", None)
    if not isinstance(qualname, str):
        return repr(function)
    module = getattr(function, "__module__", None)
    return f"{module}.{qualname}" if isinstance(module, str) else qualname


def run_logged(function: Callable[..., object], *arguments: object, what: str, then: str) -> None:
    """Calls ``function(*arguments)``; an ``Exception`` it raises is logged (``what`` raised …; ``then``) with its
    traceback, and not raised. ``what`` names the function for the app's developer, and never holds a user's data."""
    try:
        function(*arguments)
    except Exception as error:
        logger.exception("%s raised %s; %s", what, type(error).__name__, then)
