import json

from chainlit.input_widget import Select, Switch
from openai.types import Model

from lgos_chainlit.session import (
    ChatSession,
    chat_profiles_for,
    limited_notice,
    profile_description,
)

SETTINGS = {
    "schema_version": 1,
    "json_schema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "use_history": {
                "type": "boolean",
                "default": False,
                "title": "Use conversation history",
            },
            "audience": {
                "type": "string",
                "enum": ["general", "beginner", "expert"],
                "default": "general",
                "title": "Audience",
            },
        },
        "additionalProperties": False,
    },
    "defaults": {"use_history": False, "audience": "general"},
}


def model(lgos: dict | None) -> Model:
    data: dict = {"id": "chat", "object": "model", "created": 0, "owned_by": "lgos"}
    if lgos is not None:
        data["lgos"] = lgos
    return Model.model_validate(data)


def chat_model(**overrides) -> Model:
    return model(
        {
            "schema_version": 1,
            "description": "Chat for an audience.",
            "features": [],
            "client_settings": SETTINGS,
            **overrides,
        }
    )


def test_session_renders_settings_and_starts_from_defaults() -> None:
    session = ChatSession.from_model(chat_model(), conversation_id="thread-1")

    assert session.model_id == "chat"
    assert session.conversation.model == "chat"
    assert session.conversation.items == []
    assert [type(w) for w in session.widgets] == [Switch, Select]
    assert session.values == {"use_history": False, "audience": "general"}
    assert session.notice is None
    assert session.request_metadata() == {"conversation_id": "thread-1"}


def test_settings_update_is_sent_on_every_request() -> None:
    session = ChatSession.from_model(chat_model())

    current = session.update_settings(
        {"use_history": False, "audience": "expert", "unknown": 1}
    )

    assert current == {"use_history": False, "audience": "expert"}
    for _ in range(2):
        metadata = session.request_metadata()
        assert json.loads(metadata["lgos_settings"]) == {"audience": "expert"}

    session.update_settings({"audience": "general"})
    assert "lgos_settings" not in session.request_metadata()


def test_model_without_extension_is_plain_chat_with_a_notice() -> None:
    session = ChatSession.from_model(model(None), conversation_id="thread-1")

    assert session.capabilities.limited
    assert session.widgets == []
    assert session.request_metadata() == {}
    assert session.notice is not None
    assert "Limited functionality" in session.notice
    assert "`chat`" in session.notice


def test_unsupported_outer_version_is_limited() -> None:
    session = ChatSession.from_model(chat_model(schema_version=2))

    assert session.notice is not None
    assert "schema_version 2" in session.notice
    assert session.widgets == []


def test_unsupported_settings_version_only_hides_settings() -> None:
    session = ChatSession.from_model(
        chat_model(client_settings={**SETTINGS, "schema_version": 2}),
        conversation_id="t",
    )

    assert session.notice is None
    assert session.widgets == []
    assert session.request_metadata() == {"conversation_id": "t"}


def test_profile_description() -> None:
    assert (
        profile_description(ChatSession.from_model(chat_model()).capabilities)
        == "Chat for an audience."
    )
    limited = ChatSession.from_model(model(None)).capabilities
    assert profile_description(limited) == limited_notice(limited)
    no_text = ChatSession.from_model(chat_model(description="")).capabilities
    assert profile_description(no_text) == "LGOS graph `chat`."


def test_chat_profiles_for_listed_models() -> None:
    listed = [
        model({"schema_version": 1, "description": "Audience chat.", "features": []}),
        Model.model_validate(
            {"id": "plain", "object": "model", "created": 0, "owned_by": "x"}
        ),
    ]

    profiles = chat_profiles_for(listed, default_model="plain")

    assert [(p.name, p.default) for p in profiles] == [
        ("chat", False),
        ("plain", True),
    ]
    assert profiles[0].markdown_description == "Audience chat."
    assert "Limited functionality" in profiles[1].markdown_description


def test_profiles_offer_attachments_only_with_file_inputs() -> None:
    from chainlit.config import config

    listed = [
        model({"schema_version": 1, "features": ["interrupts"]}),
        Model.model_validate(
            {
                "id": "files",
                "object": "model",
                "created": 0,
                "owned_by": "lgos",
                "lgos": {"schema_version": 1, "features": ["file_inputs"]},
            }
        ),
        Model.model_validate(
            {"id": "plain", "object": "model", "created": 0, "owned_by": "x"}
        ),
    ]

    profiles = chat_profiles_for(listed)

    def uploads_on(profile_config) -> bool:
        uploads = config.with_overrides(profile_config).features.spontaneous_file_upload
        assert uploads is not None
        return bool(uploads.enabled)

    assert [(p.name, uploads_on(p.config_overrides)) for p in profiles] == [
        ("chat", False),
        ("files", True),
        ("plain", False),  # no usable extension: plain chat, no files
    ]
    assert profiles[1].config_overrides is None
    # The override is what the page sees: only the switch, nothing else.
    assert profiles[0].config_overrides.model_dump(exclude_unset=True) == {
        "features": {"spontaneous_file_upload": {"enabled": False}}
    }


def test_session_offers_the_functions_the_model_lists() -> None:
    listed = {
        "id": "functions",
        "object": "model",
        "lgos": {
            "schema_version": 1,
            "description": "Calls functions.",
            "features": [],
            "client_settings": None,
            "server_tools": [],
            "client_tools": ["get_current_time", "send_email"],
        },
    }
    session = ChatSession.from_model(listed)
    assert [f.name for f in session.functions] == ["get_current_time"]
    assert ChatSession.from_model({"id": "plain", "object": "model"}).functions == ()
