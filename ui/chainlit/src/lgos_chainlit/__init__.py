"""Chainlit chat UI for LGOS, speaking only the OpenAI API.

The app is :mod:`lgos_chainlit.app`; :mod:`lgos_chainlit.discovery` reads the
``lgos`` model extension and maps runtime settings to widgets, and
:mod:`lgos_chainlit.conversation` streams Responses and keeps the input ledger.
"""
