"""Structured logs for ``lgos serve`` and ``lgos worker``.

Both commands log one JSON object per line (``LGOS_LOG_FORMAT=json``, the
default) or ``key=value`` text (``LGOS_LOG_FORMAT=text``), through handlers
carrying :class:`~langgraph_openai_serve.RequestContextFilter`, so every
record logged during a request or background run has its ``request_id``,
``model`` and ``response_id``. Uvicorn's access log goes to stdout, all other
records to stderr. The handlers drop records below the chosen level, so a
library that sets its own logger to ``DEBUG`` (``bm25s`` does, on import)
prints no debug lines at ``info``. ``lgos serve --log-config FILE`` replaces
this setup.

A JSON line::

    {"time": "2026-01-02T03:04:05.678Z", "level": "INFO",
     "logger": "uvicorn.access", "message": "127.0.0.1:5000 - ...",
     "request_id": "req_…", "model": "chat", "status_code": 200, ...}
"""

from __future__ import annotations

import logging
import logging.config
from datetime import UTC, datetime
from typing import Any, Literal

import orjson

__all__ = [
    "JsonFormatter",
    "LogFormat",
    "TextFormatter",
    "configure_logging",
    "logging_config",
]

LogFormat = Literal["json", "text"]

_RECORD_FIELDS = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
) | {"message", "asctime", "taskName", "color_message"}
_ACCESS_FIELDS = ("client_addr", "method", "path", "http_version", "status_code")


def _extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """Return the record's non-standard fields: LGOS context and ``extra=``."""
    fields = {
        key: value
        for key, value in record.__dict__.items()
        if key not in _RECORD_FIELDS and not key.startswith("_")
    }
    # Uvicorn's access records carry their values only as format arguments.
    if (
        record.name == "uvicorn.access"
        and isinstance(record.args, tuple)
        and len(record.args) == len(_ACCESS_FIELDS)
    ):
        fields.update(zip(_ACCESS_FIELDS, record.args, strict=True))
    return fields


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object.

    Keys: ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``,
    ``message``, every non-standard record attribute (the LGOS request fields
    and ``extra=`` values; non-JSON values as ``str()``), and ``exception``
    (the formatted traceback) when the record has one.
    """

    def format(self, record: logging.LogRecord) -> str:
        """Return the JSON line for ``record`` (no trailing newline)."""
        payload: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_extra_fields(record),
        }
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            payload["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(payload, default=str).decode()


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message key=value…``, then any traceback.

    For a terminal: an access line's method, path and status, already in its
    message, are not repeated as fields.
    """

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        """Append the non-standard fields as ``key=value`` pairs."""
        line = super().formatMessage(record)
        fields = {
            key: value
            for key, value in _extra_fields(record).items()
            if key not in _ACCESS_FIELDS
        }
        if not fields:
            return line
        return line + " " + " ".join(f"{key}={value}" for key, value in fields.items())


def logging_config(
    fmt: LogFormat = "json", level: str | int = "INFO"
) -> dict[str, Any]:
    """Return the ``logging.config.dictConfig`` dict of the LGOS commands.

    Configures the root logger and Uvicorn's and Hatchet's loggers (which do
    not propagate) with the same handlers, which drop records below ``level``
    whatever level a library gave its own logger.

    Args:
        fmt: ``json`` or ``text``.
        level: The level name or number, for example ``"info"``.

    """
    level = logging.getLevelName(level) if isinstance(level, int) else level.upper()
    formatter = {
        "()": f"{__name__}.{'JsonFormatter' if fmt == 'json' else 'TextFormatter'}"
    }
    handler = {
        "level": level,
        "formatter": "lgos",
        "filters": ["lgos"],
        "class": "logging.StreamHandler",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "lgos": {
                "()": "langgraph_openai_serve.request_context.RequestContextFilter"
            }
        },
        "formatters": {"lgos": formatter},
        "handlers": {
            "default": {**handler, "stream": "ext://sys.stderr"},
            "access": {**handler, "stream": "ext://sys.stdout"},
        },
        "root": {"handlers": ["default"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {
                "handlers": ["access"],
                "level": level,
                "propagate": False,
            },
            "hatchet": {"handlers": ["default"], "level": level, "propagate": False},
        },
    }


def configure_logging(fmt: LogFormat = "json", level: str | int = "INFO") -> None:
    """Apply :func:`logging_config` to this process."""
    logging.config.dictConfig(logging_config(fmt, level))
