"""The process's language as a BCP 47 tag, read from the POSIX locale variables as the Swift package's
``useAppLanguage()`` reads them: ``Auth.use_device_language``'s. It imports nothing of the package."""
from __future__ import annotations

import os
from collections.abc import Mapping


def device_language(environment: Mapping[str, str] | None = None) -> str | None:
    """The language of the locale ``environment`` (the process's by default) names: the first non-empty of ``LC_ALL``,
    ``LC_MESSAGES`` and ``LANG``, as ``setlocale`` reads them, ``language[_territory][.codeset][@modifier]`` becoming
    ``language-TERRITORY`` (``pt_BR.UTF-8`` is ``pt-BR``); ``None`` for ``C``, ``POSIX``, none set, or a name that is
    no language."""
    variables = os.environ if environment is None else environment
    locale = next((variables[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if variables.get(name)), None)
    if locale is None:
        return None
    name = locale.split(".", 1)[0].split("@", 1)[0]
    if name in ("", "C", "POSIX"):
        return None
    language, _, territory = name.partition("_")
    if not (2 <= len(language) <= 8 and language.isascii() and language.isalpha()):
        return None
    if not territory:
        return language.lower()
    if not (2 <= len(territory) <= 3 and territory.isascii() and territory.isalnum()):
        return language.lower()
    return f"{language.lower()}-{territory.upper()}"
