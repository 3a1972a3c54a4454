"""Listeners in a GLib (GTK) app: ``Auth(options, dispatch=keyringauth.glib_dispatch)`` calls them on the main loop."""
from __future__ import annotations

from typing import Callable

from ._log import name_of, run_logged


def glib_dispatch(function: Callable[[], None]) -> None:
    """Runs ``function`` on GLib's default main context (a GTK app's main loop), once. One that raises is logged (the
    ``keyringauth`` logger, with its traceback) and the main loop goes on, as do the functions dispatched after it."""
    from gi.repository import GLib  # type: ignore[import-not-found]  # PyGObject, which a GTK app has loaded already

    def once() -> bool:
        run_logged(function, what=f"{name_of(function)}, called on GLib's main loop by keyringauth.glib_dispatch,",
                   then="the main loop goes on.")
        return False

    GLib.idle_add(once)
