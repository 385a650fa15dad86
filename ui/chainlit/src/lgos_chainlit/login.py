"""Sign-in to the chat UI: the demo password login, its hint, the auth secret.

Importing this module registers the password callback with Chainlit, adds
the login-hint route ahead of Chainlit's catch-all page, and makes sure
``CHAINLIT_AUTH_SECRET`` is set (Chainlit checks it after loading the app,
which imports this module).
"""

from __future__ import annotations

import hmac

import chainlit as cl
from chainlit.server import app as chainlit_server
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from lgos_chainlit.auth_secret import ensure_auth_secret
from lgos_chainlit.settings import DEFAULT_DEMO_PASSWORD, get_settings

__all__ = ["DEFAULT_DEMO_PASSWORD", "LOGIN_HINT_PATH", "login", "login_hint"]

LOGIN_HINT_PATH = "/lgos/login-hint"

ensure_auth_secret(get_settings().data_dir)


@cl.password_auth_callback
async def login(username: str, password: str) -> cl.User | None:
    """Accept the demo login (``DEMO_CHAINLIT_DEMO_USER``/``_PASSWORD``)."""
    settings = get_settings()
    user_ok = hmac.compare_digest(username.encode(), settings.demo_user.encode())
    password_ok = hmac.compare_digest(
        password.encode(), settings.demo_password.get_secret_value().encode()
    )
    if user_ok and password_ok:
        return cl.User(identifier=settings.demo_user, metadata={"provider": "demo"})
    return None


async def login_hint(request: Request) -> JSONResponse:
    """Tell the login page the demo login (read by ``public/login-hint.js``).

    The password is shown only while it is the documented default.
    """
    settings = get_settings()
    password = settings.demo_password.get_secret_value()
    return JSONResponse(
        {
            "user": settings.demo_user,
            "password": password if password == DEFAULT_DEMO_PASSWORD else None,
        }
    )


# Chainlit serves its page for every unknown GET path: this route goes first.
chainlit_server.router.routes.insert(
    0, Route(LOGIN_HINT_PATH, login_hint, methods=["GET"])
)
