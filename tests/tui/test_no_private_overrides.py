"""No TUI class overrides a private member of Textual (``PiApp._attach`` once shadowed
``MessagePump._attach``), nor a public one by accident (``TurnPanel.is_empty`` shadowed
``DOMNode.is_empty``, which backs CSS ``:empty``)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pi_cli.tui

# Textual members meant to be overridden or set by subclasses.
HOOKS = {
    "BINDINGS",
    "CSS_PATH",
    "DEFAULT_CSS",
    "ENABLE_COMMAND_PALETTE",
    "compose",
    "on_mount",
    "on_unmount",
    "check_action",
    "get_theme_variable_defaults",
    "feed",
    "render",
    "on_resize",
    "BLOCKS",  # Markdown's documented table of block widgets (pi's tables)
    "get_content_height",  # documented for widgets that render themselves (the transcript)
    # The line API and text selection of a widget drawing its own rows (TranscriptView).
    "render_line",
    "ALLOW_SELECT",
    "get_selection",
    "selection_updated",
    "notify_style_update",
    "get_driver_class",  # App's documented way to choose the driver (pi's PiDriver)
    # Driver API a driver implements (pi's PiDriver: a terminal that may vanish).
    "write",
    "close",
    "resume_application_mode",
    # The transcript's and its view's sizes are measured and painted by the reflow that sets
    # them: no second reflow (the view) and no second paint of the whole transcript (both).
    "virtual_size",
}


def _defined_names(cls: type) -> set[str]:
    """Names assigned or defined in the class body itself (not the metaclass's extras)."""
    tree = ast.parse(inspect.getsource(cls).lstrip())
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _textual_subclasses() -> list[type]:
    found: list[type] = []
    for info in pkgutil.walk_packages(pi_cli.tui.__path__, "pi_cli.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name and any(
                base.__module__.startswith("textual") for base in cls.__mro__[1:]
            ):
                found.append(cls)
    return found


def test_no_textual_member_is_overridden_by_accident() -> None:
    offences = []
    classes = _textual_subclasses()
    assert len(classes) > 10  # the scan sees the app, widgets, screens and messages
    for cls in classes:
        textual_bases = [b for b in cls.__mro__[1:] if b.__module__.startswith("textual")]
        for name in {n for n in _defined_names(cls) - HOOKS if not n.startswith("__")}:
            owner = next((b for b in textual_bases if name in vars(b)), None)
            if owner is not None:
                offences.append(f"{cls.__qualname__}.{name} shadows {owner.__qualname__}")
    assert offences == []


# Textual attributes pi's classes set on purpose, each documented as settable.
SETTABLE = {
    "border_title",
    "border_subtitle",
    "display",
    "can_focus",
    "tooltip",
    "title",
    "sub_title",
    "theme",
    "highlighted",
    "disabled",
    "text",  # TextArea.text (the editor's content)
}


def _assigned_attributes(cls: type) -> set[str]:
    """Names assigned as ``self.<name> = ...`` anywhere in the class body's methods."""
    tree = ast.parse(inspect.getsource(cls).lstrip())
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            leaves = target.elts if isinstance(target, ast.Tuple) else [target]
            for leaf in leaves:
                if (
                    isinstance(leaf, ast.Attribute)
                    and isinstance(leaf.value, ast.Name)
                    and leaf.value.id == "self"
                ):
                    names.add(leaf.attr)
    return names


def test_no_textual_attribute_is_set_by_accident() -> None:
    """``PickerScreen.loading = True`` meant "the list is loading" and set Textual's
    ``Widget.loading``: a loading animation over the picker for as long as it was open."""
    offences = []
    for cls in _textual_subclasses():
        textual_bases = [b for b in cls.__mro__[1:] if b.__module__.startswith("textual")]
        for name in _assigned_attributes(cls) - SETTABLE - _defined_names(cls):
            if name.startswith("_"):
                continue  # private members: the test above and Textual's own checks
            owner = next((b for b in textual_bases if name in vars(b)), None)
            if owner is not None:
                offences.append(f"{cls.__qualname__}.{name} is {owner.__qualname__}'s")
    assert offences == []
