"""The ``lgos`` command.

``lgos serve module:attribute [UVICORN OPTIONS]`` serves a registry factory;
it accepts every Uvicorn option and ``UVICORN_*`` variable.
"""

from __future__ import annotations

import os
from typing import Any

try:
    import click
    from uvicorn.main import main as uvicorn_command
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "The lgos command needs the server extra: langgraph-openai-serve[server]"
    raise SystemExit(msg) from exc

__all__ = ["cli", "main"]

_APP = "langgraph_openai_serve.server.app:create_app_from_env"


def _serve(factory: str, **options: Any) -> None:
    # Uvicorn imports the app by path (also in --workers/--reload children),
    # so the factory path travels in the environment.
    os.environ["LGOS_REGISTRY_FACTORY"] = factory
    uvicorn_command.callback(app=_APP, factory=True, **options)  # type: ignore[misc]


_uvicorn_options = [
    param for param in uvicorn_command.params if param.name not in {"app", "factory"}
]

serve = click.Command(
    name="serve",
    callback=_serve,
    params=[click.Argument(["factory"]), *_uvicorn_options],
    context_settings={"auto_envvar_prefix": "UVICORN"},
    help=(
        "Serve the GraphRegistry built by FACTORY (module:attribute) through "
        "OpenAI-compatible routes. Accepts every Uvicorn option."
    ),
)


@click.group()
@click.version_option(package_name="langgraph-openai-serve")
def cli() -> None:
    """LangGraph OpenAI Serve: LangGraph graphs behind an OpenAI-compatible API."""


cli.add_command(serve)


def main() -> None:
    """Console-script entry point."""
    cli()
