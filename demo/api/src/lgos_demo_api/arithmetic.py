"""Evaluating the arithmetic in a question, safely: `What is 3 x 4?` gives 12.

The offline model's scripts answer arithmetic directly. The expression is
parsed with `ast` and only numbers, `+ - * / % **` and parentheses are
evaluated (exponents up to 100), never arbitrary code.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["arithmetic"]

_ARITHMETIC = re.compile(r"^[\d\s.+\-*/()%^x×÷=?]*\d[\d\s.+\-*/()%^x×÷=?]*$")
_ASKS_TO_CALCULATE = re.compile(
    r"^(what is|what's|calculate|compute|how much is)\s+", re.IGNORECASE
)

_OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        if isinstance(node.op, ast.Pow) and abs(_evaluate(node.right)) > 100:
            raise ValueError("exponent too large")
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.operand))
    raise ValueError("not arithmetic")


def arithmetic(question: str) -> str | None:
    """Evaluate `2 + 2`, `What is 3 x 4?` and the like.

    Args:
        question: What the user typed.

    Returns:
        The worked sum, e.g. `3 * 4 = 12`, or None when the question is not
        arithmetic (or cannot be evaluated).

    """
    candidate = _ASKS_TO_CALCULATE.sub("", question.strip())
    if not _ARITHMETIC.match(candidate):
        return None
    expression = candidate.rstrip("?= ").replace("×", "*").replace("÷", "/")
    expression = expression.replace("^", "**").replace("x", "*")
    try:
        value = _evaluate(ast.parse(expression, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None
    shown = int(value) if float(value).is_integer() else round(value, 6)
    return f"{expression.replace('**', '^')} = {shown}"
