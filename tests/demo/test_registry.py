from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve import GraphRegistry
from langgraph_openai_serve.server import ServerResources
from lgos_demo_api.graphs.chat import ChatSettings
from lgos_demo_api.registry import GRAPH_BUILDERS, create_registry
from lgos_demo_api.settings import DemoApiSettings


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
    assert list(registry.graphs) == [name for name, _ in GRAPH_BUILDERS]
    assert "chat" in registry.graphs
    chat = registry.get_graph("chat")
    assert chat.client_settings is ChatSettings
    assert "offline demo model" in chat.description
    assert registry.run_coordinator is coordinator
