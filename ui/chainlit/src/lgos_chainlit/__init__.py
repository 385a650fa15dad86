"""Chainlit chat UI for LGOS, speaking only the OpenAI API.

The app is :mod:`lgos_chainlit.app`; :mod:`lgos_client.extension` (the client
core) reads the ``lgos`` model extension and
:mod:`lgos_chainlit.runtime_settings` maps its runtime settings to widgets;
:mod:`lgos_chainlit.ledger` keeps the input ledger and sends each request
through :mod:`lgos_chainlit.turn` (streamed by :mod:`lgos_chainlit.turn_stream`,
or polled by :mod:`lgos_chainlit.background_poll`).
"""
