"""Chainlit UI tests; the root conftest points Chainlit at ui/chainlit first."""
