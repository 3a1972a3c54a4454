"""Listeners in a GLib (GTK) app: ``Auth(options, dispatch=keyringauth.glib_dispatch)`` calls them on the main loop."""
from __future__ import annotations

from typing import Callable


def glib_dispatch(function: Callable[[], None]) -> None:
    """Runs ``function`` on GLib's default main context (a GTK app's main loop), once."""
    from gi.repository import GLib  # type: ignore[import-not-found]  # PyGObject, which a GTK app has loaded already

    def once() -> bool:
        function()
        return False

    GLib.idle_add(once)
