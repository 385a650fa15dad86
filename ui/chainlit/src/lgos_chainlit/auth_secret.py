"""The secret Chainlit signs its login tokens with: ``CHAINLIT_AUTH_SECRET``.

Chainlit refuses to start with a login and no secret. :func:`ensure_auth_secret`
generates one into the data directory on first use and keeps it, so users stay
signed in across restarts.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

__all__ = ["AUTH_SECRET_ENV", "AUTH_SECRET_FILE", "ensure_auth_secret"]

logger = logging.getLogger(__name__)

AUTH_SECRET_ENV = "CHAINLIT_AUTH_SECRET"
"""The variable Chainlit reads its secret from."""

AUTH_SECRET_FILE = "chainlit-auth-secret"
"""The file in the data directory that keeps a generated secret."""


def ensure_auth_secret(data_dir: Path) -> str:
    """Make sure ``CHAINLIT_AUTH_SECRET`` is set, and return it.

    An existing environment value wins. Otherwise the secret is read from
    ``<data_dir>/chainlit-auth-secret``, created (mode 0600) with a random
    value on first use, and exported for Chainlit; keeping it across restarts
    keeps users signed in.
    """
    current = os.environ.get(AUTH_SECRET_ENV)
    if current:
        return current
    path = data_dir / AUTH_SECRET_FILE
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        secret = ""
    if not secret:
        data_dir.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_urlsafe(48)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secret + "\n")
        logger.info("Generated a Chainlit auth secret in %s", path)
    os.environ[AUTH_SECRET_ENV] = secret
    return secret
