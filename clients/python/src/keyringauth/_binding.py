"""An Auth's app and group on its broker connection: what every call of its users carries."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._broker import Broker, Variant
from .errors import SecondFactorRequiredError

if TYPE_CHECKING:  # pragma: no cover
    from .user import User


class Binding:
    def __init__(self, broker: Broker, app: Dict[str, Variant], group: str) -> None:
        self.broker = broker
        self.app = app
        self.group = group
        #: Whether a call was made: the app (its emulator) is fixed from then on.
        self.used = False

    def call(self, method: str, signature: str = "", *arguments: Any, timeout: Optional[float] = None) -> List[Any]:
        self.used = True
        try:
            return self.broker.call(method, self.app, self.group, signature, *arguments, timeout=timeout)
        except SecondFactorRequiredError as error:
            # The handle is good on this connection, for this app and group: the resolver calls through them.
            error.resolver._binding = self
            raise

    def user(self, method: str, signature: str = "", *arguments: Any, timeout: Optional[float] = None) -> Optional["User"]:
        """Calls a method that answers the user, and answers it (``None`` when nobody is signed in)."""
        from .user import User

        values = self.call(method, signature, *arguments, timeout=timeout)[0]
        return User(self, values) if values else None
