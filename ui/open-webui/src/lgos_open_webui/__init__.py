"""The parts of the Open WebUI pipe, on the client core (``lgos_client``).

Open WebUI loads a pipe from one source text, so ``ui/open-webui/generate.py``
inlines these modules (with the ``lgos_client`` modules they use) into
``ui/open-webui/lgos_pipe.py``, behind ``pipe_source.py``'s frontmatter and
before its thin ``Pipe`` class. The rules are the core's: every module imports
only the standard library, ``openai``, ``pydantic``, ``lgos_client`` and other
``lgos_open_webui`` modules (by ``from <package>.<module> import <name>`` at
the top level, without aliases), and defines no top-level name another
inlined module defines differently. The core never imports this package.
"""
