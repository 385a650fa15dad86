"""One switch per server tool in the chat settings, and the selectors they send."""

from __future__ import annotations

from lgos_chainlit.tool_switches import (
    WEB_SEARCH_SETTING,
    custom_tool_setting,
    read_custom_tools,
    server_tool_selectors,
    server_tool_switches,
    switch_value,
)

OFFERED = ("lgos_graph_topology", "lgos_package_version", "web_search")


def test_one_switch_per_server_tool_labelled_with_its_name() -> None:
    switches = server_tool_switches(
        OFFERED, web_search=True, custom={"lgos_package_version": True}
    )
    assert [(s.id, s.label, s.initial) for s in switches] == [
        (WEB_SEARCH_SETTING, "Web search", True),
        ("lgos_tool_lgos_graph_topology", "lgos_graph_topology", False),
        ("lgos_tool_lgos_package_version", "lgos_package_version", True),
    ]
    described = switches[2].description or ""
    assert "custom tool lgos_package_version" in described
    # A model without server tools gets no switch; one without web search, no
    # "Web search" switch.
    assert server_tool_switches((), web_search=True, custom={}) == []
    only_custom = server_tool_switches(
        ("lgos_package_version",), web_search=True, custom={}
    )
    assert [s.id for s in only_custom] == [custom_tool_setting("lgos_package_version")]


def test_selectors_of_the_switches_that_are_on() -> None:
    assert server_tool_selectors(OFFERED, web_search=True, custom={}) == [
        {"type": "web_search"}
    ]
    assert server_tool_selectors(
        OFFERED,
        web_search=False,
        custom={"lgos_package_version": True, "lgos_graph_topology": True},
    ) == [
        {"type": "custom", "name": "lgos_graph_topology"},
        {"type": "custom", "name": "lgos_package_version"},
    ]
    # Never a tool the model does not offer, whatever the saved choices say.
    assert (
        server_tool_selectors(
            ("lgos_package_version",), web_search=True, custom={"other": True}
        )
        == []
    )


def test_panel_values_are_read_per_offered_tool() -> None:
    values = {
        "lgos_tool_lgos_package_version": "true",
        "lgos_tool_lgos_graph_topology": False,
        "lgos_tool_unknown": True,
        WEB_SEARCH_SETTING: False,
    }
    assert read_custom_tools(values, OFFERED) == {
        "lgos_package_version": True,
        "lgos_graph_topology": False,
    }
    assert read_custom_tools({}, OFFERED) == {}
    assert [switch_value(v) for v in ("on", "0", 1, None)] == [True, False, True, False]
