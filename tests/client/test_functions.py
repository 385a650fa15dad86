"""The client core's functions: pure, local, validated, and offered only when listed.

Both chat UIs run them (the Chainlit UI's offer is tested in
``tests/ui/test_chainlit_session.py``).
"""

import json
import random
from datetime import UTC, datetime

import pytest

from lgos_client.extension import describe_model
from lgos_client.functions import (
    LOCAL_FUNCTIONS,
    FunctionCall,
    execute_call,
    get_current_time,
    offered_functions,
    roll_dice,
)

NOON_UTC = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def test_get_current_time_in_a_zone() -> None:
    assert get_current_time("Asia/Tokyo", clock=lambda: NOON_UTC) == {
        "timezone": "Asia/Tokyo",
        "date": "2025-06-01",
        "time": "21:00",
        "weekday": "Sunday",
        "utc_offset": "+09:00",
    }
    assert get_current_time("UTC", clock=lambda: NOON_UTC)["utc_offset"] == "+00:00"


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "../etc/passwd"])
def test_get_current_time_rejects_unknown_zones(zone: str) -> None:
    with pytest.raises(ValueError):
        get_current_time(zone)


def test_roll_dice_is_bounded() -> None:
    result = roll_dice(6, 3, rng=random.Random(7))
    assert len(result["rolls"]) == 3
    assert all(1 <= r <= 6 for r in result["rolls"])
    assert result["total"] == sum(result["rolls"])
    assert roll_dice(sides=20.0, count=1, rng=random.Random(1))["rolls"][0] <= 20  # type: ignore[arg-type]
    for bad in (
        {"sides": 1},
        {"sides": 101},
        {"count": 0},
        {"count": 11},
        {"count": True},
    ):
        with pytest.raises(ValueError):
            roll_dice(**bad)  # type: ignore[arg-type]


def test_tools_are_flat_function_declarations() -> None:
    tool = LOCAL_FUNCTIONS["roll_dice"].tool()
    assert tool["type"] == "function"
    assert tool["name"] == "roll_dice"
    assert tool["parameters"]["properties"]["sides"]["maximum"] == 100
    assert set(LOCAL_FUNCTIONS) == {"get_current_time", "roll_dice"}


def test_execute_call_runs_and_encodes_the_result() -> None:
    call = FunctionCall("c1", "get_current_time", '{"timezone": "Europe/Paris"}')
    output, ok = execute_call(call, LOCAL_FUNCTIONS)
    assert ok
    assert json.loads(output)["timezone"] == "Europe/Paris"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (FunctionCall("c", "rm_rf", "{}"), "unknown function 'rm_rf'"),
        (FunctionCall("c", "roll_dice", "[1]"), "not a JSON object"),
        (FunctionCall("c", "roll_dice", "{bad"), "roll_dice failed"),
        (FunctionCall("c", "roll_dice", '{"sides": 1}'), "sides must be between"),
        (FunctionCall("c", "roll_dice", '{"rng": "x"}'), "unexpected argument(s): rng"),
        (
            FunctionCall("c", "get_current_time", '{"timezone": "Nowhere"}'),
            "unknown time zone",
        ),
    ],
)
def test_execute_call_turns_bad_calls_into_error_outputs(
    call: FunctionCall, message: str
) -> None:
    output, ok = execute_call(call, LOCAL_FUNCTIONS)
    assert not ok
    assert message in json.loads(output)["error"]


def test_function_call_from_item() -> None:
    item = {
        "type": "function_call",
        "call_id": "c9",
        "name": "roll_dice",
        "arguments": '{"sides": 6',
        "status": "incomplete",
    }
    assert FunctionCall.from_item(item) == FunctionCall(
        "c9", "roll_dice", '{"sides": 6', complete=False
    )
    assert FunctionCall.from_item({**item, "status": "completed"}).complete


def test_only_listed_functions_are_offered() -> None:
    assert [f.name for f in offered_functions(["roll_dice", "nope", "roll_dice"])] == [
        "roll_dice"
    ]
    assert offered_functions([]) == ()


def model(client_tools: object) -> dict:
    return {
        "id": "functions",
        "object": "model",
        "lgos": {
            "schema_version": 1,
            "description": "Calls functions.",
            "features": [],
            "client_settings": None,
            "server_tools": [],
            "client_tools": client_tools,
        },
    }


def test_discovery_reads_client_tools() -> None:
    assert describe_model(model(["roll_dice", 3, ""])).client_tools == ("roll_dice",)
    assert describe_model(model("roll_dice")).client_tools == ()
    assert describe_model({"id": "plain"}).client_tools == ()
