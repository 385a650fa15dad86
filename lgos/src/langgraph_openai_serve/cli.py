"""The ``lgos`` command.

``lgos serve module:attribute [UVICORN OPTIONS]`` serves a registry factory;
it accepts every Uvicorn option and ``UVICORN_*`` variable.
``lgos worker module:attribute`` runs the Hatchet worker for background
Responses of the same registry. ``lgos new NAME`` creates a uv project with a
graph, its registry factory, an offline test and a Dockerfile (see
:mod:`langgraph_openai_serve.scaffold`).

``lgos serve`` also serves Prometheus metrics (``GET /metrics``, and on
``LGOS_METRICS_PORT`` when set), merged across ``--workers`` processes; see
:mod:`langgraph_openai_serve.server.metrics_export`.

Both write structured logs (``LGOS_LOG_FORMAT``: ``json`` lines by default,
or ``text``) enriched with the request's LGOS fields; see
:mod:`langgraph_openai_serve.server.logging_config`.
"""

from __future__ import annotations

import logging
import logging.config
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

try:
    import click
    from uvicorn.main import main as uvicorn_command
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "The lgos command needs the server extra: langgraph-openai-serve[server]"
    raise SystemExit(msg) from exc

from langgraph_openai_serve.scaffold import TEMPLATES

__all__ = ["cli", "main"]

_APP = "langgraph_openai_serve.server.app:create_app_from_env"


def _settings() -> Any:
    from langgraph_openai_serve.server.server_settings import ServerSettings

    return ServerSettings()


def _check_factory(factory: str, app_dir: str | None = ".") -> None:
    """Import FACTORY now: a wrong one is one line on stderr and exit status 2.

    ``app_dir`` goes first on ``sys.path``, as Uvicorn puts its ``--app-dir``
    (default: the current directory), so ``my_app:create_registry`` is found
    in the directory the command runs in, here and in the server.

    Raises:
        SystemExit: 2, when ``factory`` is not a registry factory.

    """
    from langgraph_openai_serve.server.app import load_factory

    if app_dir is not None and app_dir not in sys.path:
        sys.path.insert(0, app_dir)
    try:
        load_factory(factory)
    except ValueError as exc:
        hint = _module_hint(factory, exc, app_dir or ".")
        click.echo(f"Error: {exc}{hint}", err=True)
        raise SystemExit(2) from None


def _module_hint(factory: str, exc: ValueError, app_dir: str) -> str:
    """Say where to run from when FACTORY's own module was not found.

    The likeliest cause is running ``lgos serve my_app:...`` from another
    folder than the one holding ``my_app``: name the folder below ``app_dir``
    (two levels deep) that holds it, else the two ways to fix it.
    """
    missing = exc.__cause__
    top = factory.partition(":")[0].split(".")[0]
    if not isinstance(missing, ModuleNotFoundError) or missing.name != top:
        return ""  # the module exists; something it imports does not
    base = Path(app_dir)
    for pattern in (f"*/{top}.py", f"*/{top}/__init__.py", f"*/*/{top}.py"):
        found = sorted(base.glob(pattern))
        if found:
            folder = found[0].parent
            if folder.name == top:
                folder = folder.parent
            return (
                f" It is in {folder}/: run lgos from there, or pass --app-dir {folder}."
            )
    return (
        f" Run lgos from the folder that holds {top} (or its package), or pass "
        "--app-dir with that folder."
    )


def _check_security(settings: Any) -> None:
    """Check the keys and the scope resolver before the server starts.

    A key file that cannot be read, a malformed key entry or a resolver
    that cannot be imported is one line on stderr and exit status 2.

    Raises:
        SystemExit: 2, when the keys or the resolver cannot be used.

    """
    from langgraph_openai_serve.api.api_keys import ApiKeyError
    from langgraph_openai_serve.server.api_keys import api_keys_from_settings
    from langgraph_openai_serve.server.app import load_scope_resolver

    try:
        api_keys_from_settings(settings)
        if settings.checkpoint_scope_resolver:
            load_scope_resolver(settings.checkpoint_scope_resolver)
    except (ApiKeyError, ValueError) as exc:
        click.echo(f"Error: {exc}", err=True)
        raise SystemExit(2) from None


def _warn_if_open(settings: Any, options: dict[str, Any]) -> None:
    """Log one warning when the API is open on a non-loopback address."""
    from langgraph_openai_serve.server.api_keys import open_api_warning

    if options.get("uds") or options.get("fd") is not None:
        return  # a Unix socket or an inherited descriptor: not an address
    warning = open_api_warning(settings, options.get("host") or "127.0.0.1")
    if warning is None:
        return
    if isinstance(options.get("log_config"), dict):
        # The records' own format; Uvicorn applies the same config again.
        logging.config.dictConfig(options["log_config"])
    logging.getLogger("langgraph_openai_serve.server").warning(warning)


def _exit_cleanly(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)


def _serve(factory: str, **options: Any) -> None:
    from langgraph_openai_serve.server.metrics_export import prepare_multiprocess_dir

    # Before anything records a metric (the factory's import may): the
    # workers, spawned later, inherit the directory.
    workers = options.get("workers") or int(os.environ.get("WEB_CONCURRENCY", 1))
    clean_up = prepare_multiprocess_dir(
        workers=workers, reload=bool(options.get("reload"))
    )
    try:
        _run_server(factory, options)
    finally:
        clean_up()


def _run_server(factory: str, options: dict[str, Any]) -> None:
    from langgraph_openai_serve.server.logging_config import logging_config

    # Uvicorn shuts down gracefully on SIGTERM, then raises the signal again
    # with the handler it found: this one, so that a requested stop exits 0
    # (with the default handler the process would die of the signal).
    signal.signal(signal.SIGTERM, _exit_cleanly)
    _check_factory(factory, options.get("app_dir", "."))
    settings = _settings()
    _check_security(settings)

    # Uvicorn imports the app by path (also in --workers/--reload children),
    # so the factory path travels in the environment.
    os.environ["LGOS_REGISTRY_FACTORY"] = factory
    settings = _settings()
    if options.get("log_config") is None:
        # Structured records with the request's LGOS fields, unless the
        # operator passed --log-config; Uvicorn applies it in every process.
        options["log_config"] = logging_config(
            settings.log_format, options.get("log_level") or "info"
        )
    _warn_if_open(settings, options)
    if settings.metrics_port is not None:
        _serve_metrics(settings.metrics_port, settings.metrics_host, options)
    try:
        uvicorn_command.callback(app=_APP, factory=True, **options)  # type: ignore[misc]
    except SystemExit as exc:
        _exit_2_for_a_wrong_registry(exc)
        raise


def _exit_2_for_a_wrong_registry(exc: SystemExit) -> None:
    """Exit with status 2 when the startup failed on the factory's return value.

    Uvicorn exits with 3 on any failed startup; a factory that returns no
    ``GraphRegistry`` is a wrong target, like those :func:`_check_factory`
    finds, and its line is already logged. (With ``--workers`` or ``--reload``
    the startup runs in a child process, and Uvicorn's own status stands.)

    Raises:
        SystemExit: 2, when this process's app failed on the registry factory.

    """
    from langgraph_openai_serve.server.factory import registry_factory_failed

    if exc.code == 3 and registry_factory_failed():
        raise SystemExit(2) from None


def _serve_metrics(port: int, host: str | None, options: dict[str, Any]) -> None:
    """Start the metrics listener on ``host`` (else ``--host``, else loopback).

    A port that cannot be bound is exit status 1.

    Raises:
        SystemExit: 1, with one line on stderr.

    """
    from langgraph_openai_serve.server.metrics_export import start_metrics_server

    address: str = host or options.get("host") or "127.0.0.1"
    try:
        start_metrics_server(port, address)
    except OSError as exc:
        click.echo(f"Error: cannot serve metrics on {address}:{port}: {exc}", err=True)
        raise SystemExit(1) from None


WORKER_HEALTHCHECK_SECONDS = 60
"""``lgos serve``'s default ``--timeout-worker-healthcheck`` (Uvicorn's is 5 s).

With ``--workers N`` Uvicorn replaces a worker that does not answer its
health check in time; a worker importing LangGraph and a registry factory can
take longer than 5 s on a busy machine, and would be replaced in a loop.
"""


def _with_lgos_default(param: click.Parameter) -> click.Parameter:
    if param.name != "timeout_worker_healthcheck":
        return param
    return click.Option(
        param.opts,
        type=int,
        default=WORKER_HEALTHCHECK_SECONDS,
        show_default=True,
        help="Maximum number of seconds to wait for a worker to respond to a "
        "healthcheck (lgos serve's default; Uvicorn's own is 5).",
    )


_uvicorn_options = [
    _with_lgos_default(param)
    for param in uvicorn_command.params
    if param.name not in {"app", "factory"}
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


@cli.command()
@click.argument("factory")
@click.option("--name", default="lgos", show_default=True, help="Worker name.")
@click.option(
    "--slots", type=int, default=None, help="Concurrent runs (Hatchet slots)."
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="Log level.",
)
def worker(factory: str, name: str, slots: int | None, log_level: str) -> None:
    """Run the Hatchet worker for background Responses of FACTORY's registry.

    Needs the hatchet extra and Hatchet's HATCHET_CLIENT_* settings; the
    server settings (LGOS_POSTGRES_URI, LGOS_LOG_FORMAT, ...) are shared with
    lgos serve. With LGOS_METRICS_PORT the worker serves its Prometheus metrics
    (the background runs it executes) on that port, bound to LGOS_METRICS_HOST
    (default 127.0.0.1).
    """
    from langgraph_openai_serve.server.logging_config import configure_logging
    from langgraph_openai_serve.server.worker import run_worker

    _check_factory(factory)
    settings = _settings()
    configure_logging(settings.log_format, log_level)
    if settings.metrics_port is not None:
        _serve_metrics(settings.metrics_port, settings.metrics_host, {})
    run_worker(factory, name=name, slots=slots)


@cli.command()
@click.argument("name")
@click.option(
    "--template",
    "-t",
    default="chat",
    show_default=True,
    metavar="|".join(TEMPLATES),
    help="The graph: "
    + "; ".join(f"{key}, {text}" for key, text in TEMPLATES.items())
    + ".",
)
def new(name: str, template: str) -> None:
    """Create the uv project NAME: a graph served as the model NAME.

    The folder NAME (in the current one; it must not exist, or be empty) gets
    the graph, its registry factory, a test that runs offline with LGOS's
    scripted model, .env.example, a README and a Dockerfile. The project
    depends on this LGOS: the same version from the package index, or the
    same source checkout. A bad name, template or folder is one line on
    stderr and exit status 2.
    """
    from langgraph_openai_serve.scaffold import (
        ScaffoldError,
        create_project,
        lgos_source,
        module_name,
    )

    try:
        source = lgos_source()
        target = create_project(name, template, source=source)
    except ScaffoldError as exc:
        click.echo(f"Error: {exc}", err=True)
        raise SystemExit(2) from None
    factory = f"{module_name(name)}.registry:create_registry"
    click.echo(
        f"Created {target} from the {template} template: the model {name!r}.\n"
        f"It gets LGOS from {source.origin}.\n\n"
        "Next steps:\n"
        f"  cd {name}\n"
        "  uv run pytest\n"
        f"  uv run lgos serve {factory} --port 8010"
    )


def main() -> None:
    """Console-script entry point."""
    cli()
