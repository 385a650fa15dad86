"""Run one page's Python blocks: ``python -m tests.docs.runner PAGE``.

(:func:`js_module` builds the page's JS blocks into one ES module instead,
which the test runs with Node.)

Blocks run in page order in one namespace, in the current directory (the
test gives each page a fresh one), on one event loop so top-level ``await``
works and loop-bound objects survive from block to block. Module blocks
(first line ``# name.py``) are written to the directory instead. The
``LGOS_DOCS_URL_MAP`` variable (JSON, documented origin to real origin) maps
the demo's addresses to the servers the test started. Tracebacks name the
Markdown file and its line numbers. Exit status 1 on the first failure.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import os
import sys
import traceback
import types
from pathlib import Path

from tests.docs.markdown_blocks import Block, js_blocks, python_blocks


def _mapped(code: str, url_map: dict[str, str]) -> str:
    for documented, real in url_map.items():
        code = code.replace(documented, real)
    return code


def _source(block: Block, url_map: dict[str, str]) -> str:
    # Pad so that line numbers in tracebacks are the page's line numbers.
    return "\n" * (block.line - 1) + _mapped(block.code, url_map)


def js_module(page: Path, url_map: dict[str, str]) -> str:
    """The page's JS blocks (unskipped) as one ES module, in page order.

    Each block keeps its page line numbers, so Node's stack traces point at
    the Markdown lines.
    """
    lines: list[str] = []
    for block in js_blocks(page):
        if block.skip is None:
            lines += [""] * (block.line - 1 - len(lines))
            lines += _mapped(block.code, url_map).splitlines()
    return "\n".join(lines) + "\n"


def run_page(page: Path) -> int:
    """Run the page's blocks; return the exit status."""
    url_map = json.loads(os.environ.get("LGOS_DOCS_URL_MAP", "{}"))
    # A real __main__ module, as for a script: pydantic and dataclasses look
    # names up through sys.modules[cls.__module__].
    module = types.ModuleType("__main__")
    module.__file__ = str(page)
    sys.modules["__main__"] = module
    namespace = module.__dict__
    sys.path.insert(0, os.getcwd())
    with asyncio.Runner() as loop:
        for block in python_blocks(page):
            if block.skip is not None:
                continue
            if block.module is not None:
                Path(block.module).write_text(block.code, encoding="utf-8")
                continue
            print(f"--- {block.where}", flush=True)
            try:
                code = compile(
                    _source(block, url_map),
                    str(page),
                    "exec",
                    flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                )
                result = eval(code, namespace)
                if inspect.iscoroutine(result):
                    loop.run(result)
            except BaseException:
                print(f"FAILED: the block at {block.where}", file=sys.stderr)
                traceback.print_exc()
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_page(Path(sys.argv[1]).resolve()))
