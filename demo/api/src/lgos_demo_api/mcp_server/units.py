"""The `convert_units` tool's arithmetic: length, mass, temperature and volume.

Units are written as symbols (`Unit`). Length, mass and volume convert
through a factor to their base unit (metre, kilogram, litre); temperature
through kelvin. Converting between two dimensions is an error.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

from pydantic import BaseModel, Field

__all__ = [
    "DIMENSIONS",
    "Conversion",
    "ConversionError",
    "Unit",
    "convert",
    "format_number",
]

Unit = Literal[
    "mm", "cm", "m", "km", "in", "ft", "yd", "mi",
    "mg", "g", "kg", "oz", "lb",
    "C", "F", "K",
    "ml", "l", "gal",
]  # fmt: skip
"""A unit symbol; `gal` is the US gallon, `C`/`F`/`K` are degrees Celsius,
degrees Fahrenheit and kelvin."""

_FACTORS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "yd": ("length", 0.9144),
    "mi": ("length", 1609.344),
    "mg": ("mass", 1e-6),
    "g": ("mass", 0.001),
    "kg": ("mass", 1.0),
    "oz": ("mass", 0.028349523125),
    "lb": ("mass", 0.45359237),
    "ml": ("volume", 0.001),
    "l": ("volume", 1.0),
    "gal": ("volume", 3.785411784),
}
_TEMPERATURES = ("C", "F", "K")
_LABELS = {"C": "°C", "F": "°F", "K": "K"}

DIMENSIONS: dict[str, str] = {
    unit: ("temperature" if unit in _TEMPERATURES else _FACTORS[unit][0])
    for unit in get_args(Unit)
}
"""Each unit's dimension: `length`, `mass`, `temperature` or `volume`."""


class ConversionError(ValueError):
    """A conversion that cannot be done (other dimension, below absolute zero)."""


class Conversion(BaseModel):
    """The result of `convert_units`."""

    value: float = Field(description="The value that was converted.")
    from_unit: Unit = Field(description="The unit of `value`.")
    to_unit: Unit = Field(description="The unit of `result`.")
    result: float = Field(
        description="`value` in `to_unit`, rounded to 10 decimal places."
    )
    text: str = Field(description='A one-line summary, e.g. "5 mi = 8.047 km".')


def format_number(number: float) -> str:
    """Write a number for people: 3 decimals from 1 up, else 4 significant digits.

    `format_number(8.04672)` is `"8.047"`, `format_number(212.0)` is
    `"212"`, `format_number(0.0283495)` is `"0.02835"`.
    """
    if number == 0:
        return "0"
    if abs(number) >= 1:
        text = f"{number:.3f}".rstrip("0").rstrip(".")
    else:
        text = f"{number:.4g}"
    return "0" if text in ("-0", "") else text


def _label(unit: str) -> str:
    return _LABELS.get(unit, unit)


def _to_kelvin(value: float, unit: str) -> float:
    if unit == "C":
        return value + 273.15
    if unit == "F":
        return (value - 32.0) * 5.0 / 9.0 + 273.15
    return value


def _from_kelvin(kelvin: float, unit: str) -> float:
    if unit == "C":
        return kelvin - 273.15
    if unit == "F":
        return (kelvin - 273.15) * 9.0 / 5.0 + 32.0
    return kelvin


def convert(value: float, from_unit: Unit, to_unit: Unit) -> Conversion:
    """Convert `value` from one unit to another of the same dimension.

    Args:
        value: A finite number in `from_unit`.
        from_unit: Its unit.
        to_unit: The unit wanted.

    Returns:
        The conversion, e.g. `convert(5, "mi", "km").result == 8.04672` with
        text `"5 mi = 8.047 km"`.

    Raises:
        ConversionError: If the units measure different dimensions, the
            value is not finite, or a temperature is below absolute zero.

    """
    if not math.isfinite(value):
        raise ConversionError(f"{value} is not a finite number.")
    source, target = DIMENSIONS[from_unit], DIMENSIONS[to_unit]
    if source != target:
        raise ConversionError(
            f"Cannot convert {from_unit} ({source}) to {to_unit} ({target}): "
            "both units must measure the same thing."
        )
    if source == "temperature":
        kelvin = _to_kelvin(value, from_unit)
        if kelvin < 0:
            raise ConversionError(
                f"{format_number(value)} {_label(from_unit)} is below absolute zero."
            )
        result = _from_kelvin(kelvin, to_unit)
    else:
        result = value * _FACTORS[from_unit][1] / _FACTORS[to_unit][1]
    result = round(result, 10) + 0.0  # + 0.0 turns -0.0 into 0.0
    text = (
        f"{format_number(value)} {_label(from_unit)} = "
        f"{format_number(result)} {_label(to_unit)}"
    )
    return Conversion(
        value=value, from_unit=from_unit, to_unit=to_unit, result=result, text=text
    )
