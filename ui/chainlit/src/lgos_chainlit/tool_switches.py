"""The chat settings' switches for a graph's server tools, and what they select.

A retrieved model's ``lgos.server_tools`` names the tools its graph runs itself
(:attr:`~lgos_client.extension.ModelCapabilities.server_tools`). The UI offers
one switch per tool in the chat settings panel:

- ``web_search``: a "Web search" switch, **on** by default (the research
  graphs need it); while on, requests select ``{"type": "web_search"}``;
- each custom tool: a switch labelled with the tool's name, as the model's
  description names it, **off** by default; while on, requests select
  ``{"type": "custom", "name": <name>}``. LGOS publishes only the names (the
  graph owns each tool's definition), so the switch's description says what
  turning it on does, and the model's description what the tool does.

Everything here is pure: no I/O and no Chainlit context (only its widget
class), so it is unit-tested directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from chainlit.input_widget import Switch

__all__ = [
    "CUSTOM_TOOL_SETTING_PREFIX",
    "WEB_SEARCH_LABEL",
    "WEB_SEARCH_SETTING",
    "WEB_SEARCH_TOOL",
    "custom_tool_names",
    "custom_tool_setting",
    "read_custom_tools",
    "server_tool_selectors",
    "server_tool_switches",
    "switch_value",
]

WEB_SEARCH_TOOL = "web_search"
"""The built-in server tool's name in ``lgos.server_tools``."""

WEB_SEARCH_SETTING = "lgos_web_search"
"""ID of the UI's own "Web search" switch in the chat settings panel."""

WEB_SEARCH_LABEL = "Web search"
"""The label of the "Web search" switch."""

CUSTOM_TOOL_SETTING_PREFIX = "lgos_tool_"
"""Prefix of the ID of a custom tool's switch (the tool's name follows)."""

_TRUE_STRINGS = frozenset({"true", "1", "yes", "on"})


def switch_value(value: Any) -> bool:
    """Read a switch's value as the settings panel sends it (bool or string)."""
    if isinstance(value, str):
        return value.strip().lower() in _TRUE_STRINGS
    return bool(value)


def custom_tool_names(server_tools: Iterable[str]) -> tuple[str, ...]:
    """Return the custom tools among a model's server tools (not ``web_search``)."""
    return tuple(name for name in server_tools if name != WEB_SEARCH_TOOL)


def custom_tool_setting(name: str) -> str:
    """Return the ID of the switch of the custom tool ``name``."""
    return f"{CUSTOM_TOOL_SETTING_PREFIX}{name}"


def server_tool_switches(
    server_tools: Iterable[str], *, web_search: bool, custom: Mapping[str, bool]
) -> list[Switch]:
    """One switch per server tool, showing the current choices.

    "Web search" comes first when ``web_search`` is offered, then one switch
    per custom tool, in the model's order; ``custom`` holds the switches
    turned on or off (a tool it does not name is off).
    """
    names = tuple(server_tools)
    switches: list[Switch] = []
    if WEB_SEARCH_TOOL in names:
        switches.append(
            Switch(
                id=WEB_SEARCH_SETTING,
                label=WEB_SEARCH_LABEL,
                description=(
                    "Let the graph search the web: requests select its "
                    "web_search tool, and each search shows as a step."
                ),
                initial=web_search,
            )
        )
    for name in custom_tool_names(names):
        switches.append(
            Switch(
                id=custom_tool_setting(name),
                label=name,
                description=(
                    f"Let the graph run its custom tool {name} (the model's "
                    "description says what it does): each call shows as a "
                    "step with its input and output."
                ),
                initial=custom.get(name, False),
            )
        )
    return switches


def server_tool_selectors(
    server_tools: Iterable[str], *, web_search: bool, custom: Mapping[str, bool]
) -> list[dict[str, Any]]:
    """Return the ``tools`` selectors of the switches that are on, in order.

    ``{"type": "web_search"}`` while the model offers it and ``web_search`` is
    on, then ``{"type": "custom", "name": ...}`` for each offered custom tool
    switched on in ``custom``.
    """
    names = tuple(server_tools)
    selectors: list[dict[str, Any]] = []
    if web_search and WEB_SEARCH_TOOL in names:
        selectors.append({"type": WEB_SEARCH_TOOL})
    selectors.extend(
        {"type": "custom", "name": name}
        for name in custom_tool_names(names)
        if custom.get(name, False)
    )
    return selectors


def read_custom_tools(
    values: Mapping[str, Any], server_tools: Iterable[str]
) -> dict[str, bool]:
    """Read the custom tools' switches from what the settings panel sent.

    Only the offered custom tools whose switch ID is in ``values`` are
    returned, each as a bool.
    """
    found: dict[str, bool] = {}
    for name in custom_tool_names(server_tools):
        setting = custom_tool_setting(name)
        if setting in values:
            found[name] = switch_value(values[setting])
    return found
