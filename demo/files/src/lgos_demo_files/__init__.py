"""The demo stack's standalone, OpenAI-compatible Files service.

`create_app(FilesSettings(...))` builds the FastAPI application serving
`/v1/files` (upload, list, retrieve, content, delete) and `/health`;
`python -m lgos_demo_files --host HOST --port PORT` runs it with Uvicorn.
"""

from lgos_demo_files.app import create_app
from lgos_demo_files.settings import FilesSettings

__all__ = ["FilesSettings", "create_app"]
