"""Public runtime settings a graph chooses to expose to clients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from langgraph_openai_serve.errors import InvalidRequestError

if TYPE_CHECKING:
    from langgraph_openai_serve.graph.graph_request import GraphRequest

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "SETTINGS_METADATA_KEY",
    "ClientSettings",
    "check_no_settings",
]

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SETTINGS_METADATA_KEY = "lgos_settings"


class ClientSettings(BaseModel):
    """Base class for a graph's allowlisted public runtime settings.

    Subclass it with fields that all have deterministic defaults::

        class ChatSettings(ClientSettings):
            use_history: bool = Field(False, title="Use conversation history")

    Register the subclass as ``GraphConfig.client_settings``. Model retrieval
    publishes :meth:`json_schema` and :meth:`default_values`; each request
    sends non-default values as compact JSON in ``metadata.lgos_settings``,
    which :meth:`validate_request` reads with strict JSON validation. Omitted
    fields keep their defaults (a shallow, top-level merge). Unknown fields are
    rejected. Instances are immutable.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", frozen=True, strict=True
    )

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """Return the JSON Schema (2020-12 dialect) that discovery advertises."""
        return {"$schema": JSON_SCHEMA_DIALECT, **cls.model_json_schema()}

    @classmethod
    def default_values(cls) -> dict[str, Any]:
        """Return the validated JSON defaults that discovery advertises.

        Raises:
            pydantic.ValidationError: A field has no default.

        """
        return cls().model_dump(mode="json", by_alias=True)

    @classmethod
    def validate_request(cls, request: GraphRequest) -> Self:
        """Validate ``metadata.lgos_settings`` of one request.

        Args:
            request: The normalized request; its metadata may lack the key,
                in which case every default applies.

        Returns:
            A validated, immutable settings instance.

        Raises:
            InvalidRequestError: 400 with ``param="metadata.lgos_settings"``
                when the value is not a JSON object of valid settings.

        """
        raw = request.metadata.get(SETTINGS_METADATA_KEY)
        if raw is None:
            return cls()
        try:
            return cls.model_validate_json(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"])
            where = f"runtime setting '{field}'" if field else "runtime settings"
            raise InvalidRequestError(
                f"Invalid {where}: {error['msg']}",
                param=f"metadata.{SETTINGS_METADATA_KEY}",
            ) from exc


def check_no_settings(request: GraphRequest) -> None:
    """Refuse runtime settings sent to a model that publishes none.

    A client may omit ``metadata.lgos_settings`` or send ``"{}"`` (no values
    away from the defaults, of which there are none); anything else would be
    silently ignored, so it is refused.

    Raises:
        InvalidRequestError: 400 with ``param="metadata.lgos_settings"``.

    """
    raw = request.metadata.get(SETTINGS_METADATA_KEY)
    if raw is None:
        return
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        value = None
    if value == {}:
        return
    what = (
        f"got {', '.join(repr(key) for key in value)}"
        if isinstance(value, dict)
        else "and the value is not a JSON object"
    )
    raise InvalidRequestError(
        "This model publishes no runtime settings; omit "
        f"metadata.{SETTINGS_METADATA_KEY} or send '{{}}' ({what}).",
        param=f"metadata.{SETTINGS_METADATA_KEY}",
    )
