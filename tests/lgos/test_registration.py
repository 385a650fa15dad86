"""GraphConfig, GraphRegistry and ClientSettings rules, checked at construction."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from pydantic import BaseModel, Field, ValidationError

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    GraphRequest,
    InvalidRequestError,
)
from tests.lgos.graphs import Greeting, greeting_graph


def _noop(state: MessagesState) -> dict[str, Any]:
    return {}


def _graph(**compile_kwargs: Any) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("noop", _noop)
    builder.add_edge(START, "noop")
    return builder.compile(**compile_kwargs)


def test_config_is_frozen_and_snapshots_features() -> None:
    features = {GraphFeature.FILE_INPUTS}
    config = GraphConfig(graph=_graph(), description="d", features=features)
    features.add(GraphFeature.MCP_TOOLS)
    assert config.features == frozenset({GraphFeature.FILE_INPUTS})
    with pytest.raises(ValidationError):
        config.description = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"description": ""}, "at least 1 character"),
        ({"graph": 42}, "compiled state graph or a graph factory"),
        ({"server_tools": {"x"}, "client_tools": {"x"}}, "both server and client"),
        ({"graph": _graph(interrupt_before=["noop"])}, "Static breakpoints"),
        ({"graph": _graph(checkpointer=InMemorySaver())}, "checkpointer"),
        ({"client_settings": Greeting}, "context_schema must be Greeting"),
    ],
)
def test_config_rejects(kwargs: dict[str, Any], message: str) -> None:
    values = {"graph": _graph(), "description": "d", **kwargs}
    with pytest.raises(ValidationError, match=message):
        GraphConfig(**values)


def test_breakpoints_without_the_feature_name_what_to_declare() -> None:
    with pytest.raises(ValidationError) as raised:
        GraphConfig(graph=_graph(interrupt_after=["noop"]), description="d")
    message = str(raised.value)
    assert "Static breakpoints (interrupt_before/interrupt_after)" in message
    assert "interrupt() in a node" in message
    assert "declare GraphFeature.INTERRUPTS with a checkpointer" in message


def test_subgraph_breakpoints_are_rejected() -> None:
    inner = _graph(interrupt_after=["noop"])
    builder = StateGraph(MessagesState)
    builder.add_node("inner", inner)
    builder.add_edge(START, "inner")
    with pytest.raises(ValidationError, match="subgraph 'inner'"):
        GraphConfig(graph=builder.compile(), description="d")


def test_settings_without_defaults_fail_registration() -> None:
    class NoDefault(ClientSettings):
        level: int

    with pytest.raises(ValidationError):
        GraphConfig(
            graph=greeting_graph(),
            description="d",
            client_settings=NoDefault,
            context_factory=lambda request, settings: None,
        )


def test_settings_must_subclass_client_settings() -> None:
    class Plain(BaseModel):
        level: int = 1

    with pytest.raises(ValidationError, match="subclass of ClientSettings"):
        GraphConfig(graph=_graph(), description="d", client_settings=Plain)  # type: ignore[arg-type]


@pytest.mark.parametrize("model_id", ["", "a/b", ".", ".."])
def test_registry_rejects_unaddressable_ids(model_id: str) -> None:
    with pytest.raises(ValueError, match="not addressable"):
        GraphRegistry(graphs={model_id: GraphConfig(graph=_graph(), description="d")})


def test_registry_rules() -> None:
    with pytest.raises(ValueError, match="at least one graph"):
        GraphRegistry(graphs={})
    saver = InMemorySaver()
    interrupting = GraphConfig(
        graph=_graph(checkpointer=saver),
        description="d",
        features={GraphFeature.INTERRUPTS},
    )
    with pytest.raises(ValueError, match="run_coordinator"):
        GraphRegistry(graphs={"i": interrupting})
    registry = GraphRegistry(
        graphs={"ok": GraphConfig(graph=_graph(), description="d")}
    )
    with pytest.raises(InvalidRequestError) as raised:
        registry.get_graph("nope")
    assert (raised.value.status_code, raised.value.code, raised.value.param) == (
        404,
        "model_not_found",
        "model",
    )


def test_interrupt_graph_needs_async_checkpointer() -> None:
    with pytest.raises(ValidationError, match="async checkpointer"):
        GraphConfig(graph=_graph(), description="d", features={GraphFeature.INTERRUPTS})


def test_client_settings_schema_and_validation() -> None:
    class Knobs(ClientSettings):
        rounds: int = Field(2, ge=1, le=5)
        mode: str = "fast"

    schema = Knobs.json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["rounds"] == {
        "default": 2,
        "maximum": 5,
        "minimum": 1,
        "title": "Rounds",
        "type": "integer",
    }
    assert Knobs.default_values() == {"rounds": 2, "mode": "fast"}
    request = GraphRequest(model="m", metadata={"lgos_settings": '{"rounds":4}'})
    assert Knobs.validate_request(request) == Knobs(rounds=4)
    assert Knobs.validate_request(GraphRequest(model="m")) == Knobs()
    for bad in ('{"rounds":"4"}', '{"rounds":9}', '{"rounds":4.5}', "{", '{"extra":1}'):
        with pytest.raises(InvalidRequestError) as raised:
            Knobs.validate_request(
                GraphRequest(model="m", metadata={"lgos_settings": bad})
            )
        assert raised.value.param == "metadata.lgos_settings"
