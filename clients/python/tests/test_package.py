"""The package's shape, checked without a broker: its modules import each other in layers, each only from layers
below it, so no import circle is possible; and none imports the package inside a function to dodge one."""
from __future__ import annotations

import ast
import os

import pytest

import keyringauth

pytestmark = pytest.mark.offline

SOURCE = os.path.dirname(os.path.abspath(keyringauth.__file__))

#: The layers, lowest first: a module imports only modules of the layers before its own.
LAYERS = [
    {"_variants", "_messages", "_language", "_log", "error_codes"},  # nothing of the package
    {"errors", "glib"},
    {"_broker", "action_code", "credentials", "emulator", "options", "password_policy"},  # the transport; providers, settings, options, the policy
    {"_binding"},  # an app and group on a connection
    {"multifactor"},  # second factors
    {"user"},  # the user, its credentials and the resolver of a second factor
    {"auth", "app_check"},  # Auth and connect_auth_emulator; App Check, which the Auths' calls find in _binding
    {"phone"},  # phone numbers' verifications, on an Auth or a user
    {"__init__"},
]


def package_imports(tree: ast.Module) -> list[tuple[str, bool]]:
    """The package's modules ``tree`` imports, each with whether the import is inside a function."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found.extend((name.split(".")[0], in_function) for name in names)
        for child in ast.iter_child_nodes(node):
            visit(child, in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return found


def test_every_module_imports_only_the_layers_below_its_own() -> None:
    modules = {name[:-3] for name in os.listdir(SOURCE) if name.endswith(".py")}
    layer_of = {module: index for index, layer in enumerate(LAYERS) for module in layer}
    assert modules == set(layer_of), f"every module has its layer: {sorted(modules ^ set(layer_of))}"
    for module in sorted(modules):
        with open(os.path.join(SOURCE, module + ".py"), encoding="utf-8") as file:
            tree = ast.parse(file.read())
        for imported, in_function in package_imports(tree):
            assert not in_function, f"{module} imports {imported} inside a function"
            assert layer_of[imported] < layer_of[module], (
                f"{module} (layer {layer_of[module]}) imports {imported} (layer {layer_of[imported]})")
