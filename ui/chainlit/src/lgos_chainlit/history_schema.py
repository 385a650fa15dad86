"""The chat history's tables: Chainlit's SQLAlchemy schema, for SQLite and PostgreSQL.

Chainlit's SQLAlchemy data layer writes users, threads, steps, elements and
feedback but does not create its tables; :data:`TABLES` lists every column it
writes, with its type in both dialects, and the statements below create the
tables and add columns a newer Chainlit writes (see
:meth:`~lgos_chainlit.persistence.LgosDataLayer.create_schema`).

Nothing here touches a database.
"""

from __future__ import annotations

__all__ = ["TABLES", "Column", "add_column_statement", "schema_statements"]

# (column, PostgreSQL type, SQLite type); the first column is the key.
Column = tuple[str, str, str]
TABLES: dict[str, tuple[Column, ...]] = {
    "users": (
        ("id", "UUID PRIMARY KEY", "TEXT PRIMARY KEY"),
        ("identifier", "TEXT NOT NULL UNIQUE", "TEXT NOT NULL UNIQUE"),
        ("metadata", "JSONB NOT NULL", "TEXT NOT NULL"),
        ("createdAt", "TEXT", "TEXT"),
    ),
    "threads": (
        ("id", "UUID PRIMARY KEY", "TEXT PRIMARY KEY"),
        ("createdAt", "TEXT", "TEXT"),
        ("name", "TEXT", "TEXT"),
        ("userId", 'UUID REFERENCES users("id") ON DELETE CASCADE', "TEXT"),
        ("userIdentifier", "TEXT", "TEXT"),
        ("tags", "TEXT[]", "TEXT"),
        ("metadata", "JSONB", "TEXT"),
    ),
    "steps": (
        ("id", "UUID PRIMARY KEY", "TEXT PRIMARY KEY"),
        ("name", "TEXT NOT NULL", "TEXT NOT NULL"),
        ("type", "TEXT NOT NULL", "TEXT NOT NULL"),
        (
            "threadId",
            'UUID NOT NULL REFERENCES threads("id") ON DELETE CASCADE',
            "TEXT NOT NULL",
        ),
        ("parentId", "UUID", "TEXT"),
        ("streaming", "BOOLEAN NOT NULL", "BOOLEAN NOT NULL"),
        ("waitForAnswer", "BOOLEAN", "BOOLEAN"),
        ("isError", "BOOLEAN", "BOOLEAN"),
        ("metadata", "JSONB", "TEXT"),
        ("tags", "TEXT[]", "TEXT"),
        ("input", "TEXT", "TEXT"),
        ("output", "TEXT", "TEXT"),
        ("createdAt", "TEXT", "TEXT"),
        ("command", "TEXT", "TEXT"),
        ("modes", "JSONB", "TEXT"),
        ("start", "TEXT", "TEXT"),
        ("end", "TEXT", "TEXT"),
        ("generation", "JSONB", "TEXT"),
        ("showInput", "TEXT", "TEXT"),
        ("language", "TEXT", "TEXT"),
        ("indent", "INT", "INTEGER"),
        ("defaultOpen", "BOOLEAN", "BOOLEAN"),
        ("autoCollapse", "BOOLEAN", "BOOLEAN"),
    ),
    "elements": (
        ("id", "UUID PRIMARY KEY", "TEXT PRIMARY KEY"),
        ("threadId", 'UUID REFERENCES threads("id") ON DELETE CASCADE', "TEXT"),
        ("type", "TEXT", "TEXT"),
        ("url", "TEXT", "TEXT"),
        ("chainlitKey", "TEXT", "TEXT"),
        ("name", "TEXT NOT NULL", "TEXT NOT NULL"),
        ("display", "TEXT", "TEXT"),
        ("objectKey", "TEXT", "TEXT"),
        ("size", "TEXT", "TEXT"),
        ("page", "INT", "INTEGER"),
        ("language", "TEXT", "TEXT"),
        ("forId", "UUID", "TEXT"),
        ("mime", "TEXT", "TEXT"),
        ("props", "JSONB", "TEXT"),
        ("autoPlay", "BOOLEAN", "BOOLEAN"),
        ("playerConfig", "JSONB", "TEXT"),
    ),
    "feedbacks": (
        ("id", "UUID PRIMARY KEY", "TEXT PRIMARY KEY"),
        ("forId", "UUID NOT NULL", "TEXT NOT NULL"),
        (
            "threadId",
            'UUID NOT NULL REFERENCES threads("id") ON DELETE CASCADE',
            "TEXT NOT NULL",
        ),
        ("value", "INT NOT NULL", "INTEGER NOT NULL"),
        ("comment", "TEXT", "TEXT"),
    ),
}
"""Chainlit 2.12's SQLAlchemy data layer schema: every key a step, thread,
element or feedback dict can carry is a column (Chainlit inserts them by
name)."""


def _type_position(dialect: str) -> int:
    """Index of ``dialect``'s type in a :data:`Column`.

    Raises:
        ValueError: ``dialect`` is neither ``postgresql`` nor ``sqlite``.

    """
    if dialect not in ("postgresql", "sqlite"):
        raise ValueError(f"unsupported database dialect {dialect!r}")
    return 1 if dialect == "postgresql" else 2


def schema_statements(dialect: str) -> list[str]:
    """Return ``CREATE TABLE IF NOT EXISTS`` statements for a dialect.

    ``dialect`` is ``postgresql`` or ``sqlite``.

    Raises:
        ValueError: Another dialect.

    """
    position = _type_position(dialect)
    statements = []
    for table, columns in TABLES.items():
        body = ",\n    ".join(f'"{c[0]}" {c[position]}' for c in columns)
        statements.append(f'CREATE TABLE IF NOT EXISTS "{table}" (\n    {body}\n)')
    return statements


def add_column_statement(table: str, column: Column, dialect: str) -> str:
    """Return the ``ALTER TABLE ... ADD COLUMN`` statement adding ``column``.

    Constraints that cannot be added to existing rows (``NOT NULL``, keys,
    ``UNIQUE``, references) are dropped from the definition.

    Raises:
        ValueError: ``dialect`` is neither ``postgresql`` nor ``sqlite``.

    """
    definition = column[_type_position(dialect)]
    for marker in (" NOT NULL", " PRIMARY KEY", " UNIQUE", " REFERENCES"):
        definition = definition.split(marker)[0]
    return f'ALTER TABLE "{table}" ADD COLUMN "{column[0]}" {definition}'
