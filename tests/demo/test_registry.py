from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve import GraphRegistry
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.server import ServerResources
from lgos_demo_api.graphs.chat import ChatSettings
from lgos_demo_api.registry import (
    GRAPH_BUILDERS,
    RESOURCE_GRAPH_BUILDERS,
    create_registry,
)
from lgos_demo_api.settings import DemoApiSettings
from tests.clients.matrix import DEMO_MODELS


def test_registry_serves_the_chat_graph(offline_settings: DemoApiSettings) -> None:
    coordinator = object()
    registry = create_registry(
        ServerResources(
            checkpointer=InMemorySaver(),
            store=InMemoryStore(),
            run_coordinator=coordinator,
        ),
        offline_settings,
    )
    assert isinstance(registry, GraphRegistry)
    assert list(registry.graphs) == [
        name for name, _ in (*GRAPH_BUILDERS, *RESOURCE_GRAPH_BUILDERS)
    ]
    assert "chat" in registry.graphs
    chat = registry.get_graph("chat")
    assert chat.client_settings is ChatSettings
    assert "offline demo model" in chat.description
    assert registry.run_coordinator is coordinator


def test_registry_serves_every_demo_graph(offline_settings: DemoApiSettings) -> None:
    from lgos_demo_api.graphs.citations import CitationsSettings
    from lgos_demo_api.graphs.functions import CLIENT_FUNCTIONS
    from lgos_demo_api.graphs.writer import WriterSettings

    registry = create_registry(
        ServerResources(
            checkpointer=InMemorySaver(),
            store=InMemoryStore(),
            run_coordinator=InMemoryRunCoordinator(),
        ),
        offline_settings,
    )
    assert list(registry.graphs) == DEMO_MODELS
    assert registry.get_graph("writer").client_settings is WriterSettings
    assert registry.get_graph("citations").client_settings is CitationsSettings
    functions = registry.get_graph("functions")
    assert functions.client_tools == CLIENT_FUNCTIONS
    assert functions.client_settings is None
    for name, config in registry.graphs.items():
        assert config.description.endswith(
            "Answers come from the offline demo model (deterministic, no API key "
            "needed)."
        ), name


def test_descriptions_name_the_real_model_when_a_key_is_set() -> None:
    settings = DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        openai_api_key="sk-test",  # type: ignore[arg-type]
        openai_responses_model="gpt-4.1-mini",
    )
    registry = create_registry(
        ServerResources(
            checkpointer=InMemorySaver(),
            store=InMemoryStore(),
            run_coordinator=InMemoryRunCoordinator(),
        ),
        settings,
    )
    for name, config in registry.graphs.items():
        assert config.description.endswith("Answers come from gpt-4.1-mini."), name
