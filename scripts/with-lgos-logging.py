"""Run ``python -m MODULE ARGS`` with LGOS's log format: the local demo's processes.

    python scripts/with-lgos-logging.py -m MODULE [ARGS...]

``lgos serve`` logs through LGOS's logging setup (``LGOS_LOG_FORMAT``: ``text``
in ``just demo --local``, ``json`` by default). The demo's other local
processes would each log their own way: Uvicorn's ``INFO:     ...`` (the Files
service, the corpus server), Chainlit's ``... - INFO - chainlit - ...``. This
applies the same setup (:mod:`langgraph_openai_serve.server.logging_config`)
to the process, makes it the default of every Uvicorn server the module starts,
then runs the module as ``python -m`` would, so every line of ``just demo`` has
one shape. Chainlit's own ``logging.basicConfig`` does nothing once the root
logger has handlers.
"""

from __future__ import annotations

import logging.config
import runpy
import sys
from collections.abc import Sequence

USAGE = "usage: python scripts/with-lgos-logging.py -m MODULE [ARGS...]"


def configure(level: str = "info") -> None:
    """Apply LGOS's logging setup here and as Uvicorn's default setup."""
    import uvicorn.config

    from langgraph_openai_serve.server.logging_config import logging_config
    from langgraph_openai_serve.server.server_settings import ServerSettings

    config = logging_config(ServerSettings().log_format, level)
    logging.config.dictConfig(config)
    # uvicorn.run() and uvicorn.Config() take this dict as their default
    # log_config and apply it again when a server starts: replace its content.
    uvicorn.config.LOGGING_CONFIG.clear()
    uvicorn.config.LOGGING_CONFIG.update(config)


def main(argv: Sequence[str] | None = None) -> None:
    """Configure logging, then run the module with the remaining arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "-m":
        sys.exit(USAGE)
    module, rest = args[1], args[2:]
    configure()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
