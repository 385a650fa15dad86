"""One prompt, two wire formats: Responses stream events beside Chat chunks.

Open it with `just demo/marimo` (read-only) or `just demo/marimo --editable`,
or run it as a script (UI elements keep their defaults; flags override them):

    uv run python demo/api/notebooks/wire_events.py --model writer \
        --summary wire.json
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="LGOS: commentary and citations on the wire")

with app.setup:
    import html
    import json
    from collections import Counter
    from dataclasses import dataclass, field
    from pathlib import Path
    from typing import Any

    import httpx
    import marimo as mo
    import openai
    from fastapi import FastAPI
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from langgraph_openai_serve import LanggraphOpenaiServe
    from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
    from langgraph_openai_serve.server import ServerResources
    from langgraph_openai_serve.settings import LgosSettings
    from lgos_demo_api.models import answered_by
    from lgos_demo_api.presets import PRESETS, Preset
    from lgos_demo_api.registry import create_registry
    from lgos_demo_api.settings import DemoApiSettings


@app.cell(hide_code=True)
def _():
    mo.md(r"""
    # Commentary and citations on the wire

    The same prompt goes to the same demo graph twice through the OpenAI
    Python SDK: once as a streaming **Responses** request
    (`client.responses.create(stream=True)`), once as a streaming **Chat
    Completions** request (`client.chat.completions.create(stream=True)`).
    The tables below list what each stream delivered, in order.

    What to look for:

    * **Commentary.** A graph's `status_event()` progress becomes its own
      assistant message with `phase="commentary"` on Responses, before the
      `phase="final_answer"` message. Chat Completions has nowhere to put it,
      so it never appears there.
    * **Citations.** Responses sends one `response.output_text.annotation.added`
      event per `url_citation` once the answer text is complete, and repeats
      them on the finished `output_text`. Chat Completions carries the same
      annotations on the last content delta (`delta.annotations`, an
      extension of OpenAI's chunk), with the same character offsets.
    * **Server tools and interrupts** (`deep-research`) exist only on
      Responses: its `web_search_call` items are listed there, while Chat
      Completions refuses a model that may pause for review.

    The app is served in this process through `httpx.ASGITransport` (no port,
    no network); it returns each stream only once it has finished, which is
    fine here because only the order of events matters.
    """)
    return


@app.class_definition
@dataclass
class Capture:
    """What one streaming request delivered.

    Attributes:
        events: Each event or chunk as the JSON the SDK parsed (fields the
            SDK filled in itself left out).
        error: The error that ended the request, if any, as text.

    """

    events: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


@app.function
def wire(obj: Any) -> dict[str, Any]:
    """An SDK object as the JSON it was parsed from."""
    return obj.model_dump(mode="json", exclude_unset=True)


@app.function
async def capture_both(
    settings: DemoApiSettings, model: str, prompt: str, preset: Preset
) -> tuple[Capture, Capture]:
    """Stream `prompt` through Responses and then Chat Completions.

    The demo registry is built with `settings` and in-memory resources and
    served in-process. An OpenAI API error (for example Chat Completions
    refusing an interrupt-enabled model) is kept in `Capture.error` instead
    of raised.

    Returns:
        `(responses, chat)` captures.

    """
    resources = ServerResources(
        InMemorySaver(), InMemoryStore(), InMemoryRunCoordinator()
    )
    api = FastAPI()
    LanggraphOpenaiServe(
        create_registry(resources, settings=settings),
        api,
        settings=LgosSettings(openai_api_prefix="/v1"),
    ).bind_openai_api()
    responses, chat = Capture(), Capture()
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport) as http:
        client = openai.AsyncOpenAI(
            base_url="http://lgos.test/v1",
            api_key="notebook",
            http_client=http,
            max_retries=0,
        )
        metadata = preset.metadata or openai.omit
        # Server tools are selected by type, as OpenAI's built-in tools are.
        tools: Any = [{"type": name} for name in preset.server_tools] or openai.omit
        try:
            async with await client.responses.create(
                model=model, input=prompt, metadata=metadata, tools=tools, stream=True
            ) as stream:
                async for event in stream:
                    responses.events.append(wire(event))
        except openai.APIError as error:
            responses.error = str(error)
        try:
            chunks = await client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": prompt}],
                metadata=metadata,
                stream=True,
            )
            async for chunk in chunks:
                chat.events.append(wire(chunk))
        except openai.APIError as error:
            chat.error = str(error)
    return responses, chat


@app.function
def shorten(text: str, limit: int = 90) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@app.function
def describe_item(item: dict[str, Any]) -> str:
    """`message · commentary`, `web_search_call`, ... for one output item."""
    kind = item.get("type", "?")
    return f"{kind} · {item['phase']}" if item.get("phase") else kind


@app.function
def describe_event(event: dict[str, Any]) -> str:
    """The interesting part of one Responses stream event, as short text."""
    kind = event["type"]
    if "delta" in event:
        return str(event["delta"])
    if kind == "response.output_text.done":
        return str(event["text"])
    if kind == "response.output_text.annotation.added":
        note = event["annotation"]
        return (
            f"{note.get('title')} → {note.get('url')} "
            f"[{note.get('start_index')}..{note.get('end_index')}]"
        )
    if "response" in event:
        return f"status={event['response'].get('status')}"
    if kind.startswith("response.output_item."):
        item = event["item"]
        if item.get("type") == "web_search_call":
            return f"query: {item.get('action', {}).get('query', '')}"
        texts = [part.get("text", "") for part in item.get("content", [])]
        return " ".join(texts)
    return ""


@app.function
def response_rows(events: list[dict[str, Any]], merge: bool) -> list[dict[str, Any]]:
    """Table rows for Responses stream events.

    With `merge`, a run of `response.output_text.delta` events of one item
    becomes one row (`×N`) with the text they add up to.
    """
    items: dict[int, str] = {}
    rows: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        kind = event["type"]
        if kind == "response.output_item.added":
            items[event["output_index"]] = describe_item(event["item"])
        item = items.get(event.get("output_index", -1), "")
        previous = rows[-1] if rows else None
        if (
            merge
            and kind == "response.output_text.delta"
            and previous is not None
            and previous["_kind"] == kind
            and previous["item"] == item
        ):
            previous["_count"] += 1
            previous["_text"] += event["delta"]
            previous["#"] = f"{previous['#'].split('–')[0]}–{index}"
            previous["event"] = f"{kind} ×{previous['_count']}"
            previous["content"] = shorten(previous["_text"])
            continue
        text = describe_event(event)
        rows.append(
            {
                "#": str(index),
                "event": kind,
                "item": item,
                "content": shorten(text),
                "_kind": kind,
                "_count": 1,
                "_text": text,
            }
        )
    return [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]


@app.function
def chat_rows(chunks: list[dict[str, Any]], merge: bool) -> list[dict[str, Any]]:
    """Table rows for Chat Completions chunks (merged content runs with `merge`)."""
    rows: list[dict[str, Any]] = []
    for index, chunk in enumerate(chunks):
        choice = chunk["choices"][0] if chunk.get("choices") else {}
        delta = choice.get("delta", {})
        content = delta.get("content") or ""
        extras = {
            key: value
            for key, value in delta.items()
            if key not in ("content", "role") and value
        }
        if chunk.get("usage"):
            extras["usage"] = chunk["usage"]
        notes = "; ".join(
            f"{n['url_citation']['title']} → {n['url_citation']['url']} "
            f"[{n['url_citation']['start_index']}..{n['url_citation']['end_index']}]"
            for n in extras.pop("annotations", [])
        )
        other = json.dumps(extras) if extras else ""
        previous = rows[-1] if rows else None
        plain = content and not delta.get("role") and not notes and not other
        if merge and plain and previous is not None and previous["_plain"]:
            previous["_count"] += 1
            previous["_text"] += content
            previous["#"] = f"{previous['#'].split('–')[0]}–{index}"
            previous["delta"] = f"content ×{previous['_count']}"
            previous["content"] = shorten(previous["_text"])
            continue
        rows.append(
            {
                "#": str(index),
                "delta": ", ".join(key for key in delta if delta[key] is not None)
                or "(empty)",
                "content": shorten(content),
                "finish_reason": choice.get("finish_reason") or "",
                "annotations": notes,
                "other": other,
                "_plain": bool(plain),
                "_count": 1,
                "_text": content,
            }
        )
    return [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]


@app.function
def responses_facts(capture: Capture) -> dict[str, Any]:
    """What a Responses stream carried: commentary, tool calls, citations."""
    final = next(
        (e["response"] for e in reversed(capture.events) if "response" in e), {}
    )
    messages = [i for i in final.get("output", []) if i.get("type") == "message"]

    def text(item: dict[str, Any]) -> str:
        return "".join(p.get("text", "") for p in item.get("content", []))

    return {
        "events": len(capture.events),
        "event_types": dict(Counter(e["type"] for e in capture.events)),
        "commentary": [text(i) for i in messages if i.get("phase") == "commentary"],
        "server_tool_calls": sum(
            1 for i in final.get("output", []) if i.get("type") == "web_search_call"
        ),
        "answer": "".join(text(i) for i in messages if i.get("phase") != "commentary"),
        "citations": [
            {
                "title": e["annotation"].get("title"),
                "url": e["annotation"].get("url"),
                "start_index": e["annotation"].get("start_index"),
                "end_index": e["annotation"].get("end_index"),
            }
            for e in capture.events
            if e["type"] == "response.output_text.annotation.added"
        ],
        "terminal": capture.events[-1]["type"] if capture.events else None,
        "error": capture.error,
    }


@app.function
def chat_facts(capture: Capture) -> dict[str, Any]:
    """What a Chat Completions stream carried: the answer and its citations."""
    deltas = [
        c["choices"][0] for c in capture.events if c.get("choices") and c["choices"]
    ]
    return {
        "chunks": len(capture.events),
        "answer": "".join(d.get("delta", {}).get("content") or "" for d in deltas),
        "citations": [
            {
                "title": n["url_citation"].get("title"),
                "url": n["url_citation"].get("url"),
                "start_index": n["url_citation"].get("start_index"),
                "end_index": n["url_citation"].get("end_index"),
            }
            for d in deltas
            for n in d.get("delta", {}).get("annotations") or []
        ],
        "finish_reason": next(
            (d["finish_reason"] for d in deltas if d.get("finish_reason")), None
        ),
        "error": capture.error,
    }


@app.function
def comparison(responses: dict[str, Any], chat: dict[str, Any]) -> list[dict[str, str]]:
    """Rows `aspect | Responses | Chat Completions` for the two streams."""

    def cited(citations: list[dict[str, Any]]) -> str:
        return "; ".join(f"{c['title']} [{c['start_index']}..]" for c in citations)

    same = responses["answer"] == chat["answer"] and not chat["error"]
    return [
        {
            "aspect": "stream",
            "Responses": f"{responses['events']} events",
            "Chat Completions": f"{chat['chunks']} chunks",
        },
        {
            "aspect": "commentary",
            "Responses": shorten("; ".join(responses["commentary"]), 160) or "none",
            "Chat Completions": "not sent",
        },
        {
            "aspect": "server tool calls",
            "Responses": str(responses["server_tool_calls"]),
            "Chat Completions": "not available",
        },
        {
            "aspect": "citations",
            "Responses": cited(responses["citations"]) or "none",
            "Chat Completions": cited(chat["citations"]) or "none",
        },
        {
            "aspect": "answer text",
            "Responses": f"{len(responses['answer'])} characters",
            "Chat Completions": (
                f"{len(chat['answer'])} characters"
                + (", identical" if same else ", different")
            ),
        },
        {
            "aspect": "ended with",
            "Responses": responses["error"] or str(responses["terminal"]),
            "Chat Completions": chat["error"]
            or f"finish_reason={chat['finish_reason']}",
        },
    ]


@app.function
def html_table(rows: list[dict[str, str]]) -> str:
    """`rows` (one dict per row, same keys) as an HTML table, text escaped."""
    keys = list(rows[0])
    cell = "padding: 0.3em 0.8em; border-bottom: 1px solid #e5e7eb; text-align: left"
    head = "".join(f'<th style="{cell}">{html.escape(key)}</th>' for key in keys)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="{cell}">{html.escape(row[key])}</td>' for key in keys)
        + "</tr>"
        for row in rows
    )
    return (
        '<table style="width: 100%; border-collapse: collapse">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


@app.cell
def _():
    args = mo.cli_args()
    return (args,)


@app.cell(hide_code=True)
def _(args):
    model = mo.ui.dropdown(
        options=list(PRESETS),
        value=str(args.get("model", "citations")),
        label="Graph (model)",
    )
    merge = mo.ui.switch(value=True, label="Merge runs of text deltas into one row")
    upstream = mo.ui.switch(
        value=args.get("upstream") in ("", True),
        label="Use the upstream model configured in .env (DEMO_API_OPENAI_API_KEY)",
    )
    mo.hstack([model, merge, upstream], justify="start", gap=2)
    return merge, model, upstream


@app.cell(hide_code=True)
def _(model):
    prompt = mo.ui.text(
        value=PRESETS[model.value].prompt, label="Prompt", full_width=True
    )
    prompt
    return (prompt,)


@app.cell(hide_code=True)
def _(upstream):
    if upstream.value:
        settings = DemoApiSettings()
    else:
        # Offline whatever .env says: the explicit values win over it.
        settings = DemoApiSettings(
            _env_file=None,  # type: ignore[call-arg]
            openai_api_key=None,
            web_search_backend="offline",
            offline_chunk_delay=0.0,
        )
    mo.md(answered_by(settings))
    return (settings,)


@app.cell
async def _(model, prompt, settings):
    with mo.status.spinner(title="Streaming both requests…"):
        responses, chat = await capture_both(
            settings, model.value, prompt.value, PRESETS[model.value]
        )
    facts = {"responses": responses_facts(responses), "chat": chat_facts(chat)}
    # A plain table: its columns share the width and long cells wrap, where a
    # mo.ui.table cuts them and leaves an empty column to the right.
    mo.vstack(
        [
            mo.md("**Side by side**"),
            mo.Html(html_table(comparison(facts["responses"], facts["chat"]))),
        ]
    )
    return chat, facts, responses


@app.cell
def _(chat, merge, responses):
    responses_table = mo.ui.table(
        response_rows(responses.events, merge.value),
        selection="single",
        page_size=25,
        label="Responses: stream events",
    )
    chat_table = mo.ui.table(
        chat_rows(chat.events, merge.value),
        selection="single",
        page_size=25,
        label="Chat Completions: chunks",
    )
    # One above the other: side by side, the chunk table ran off the page.
    mo.vstack([responses_table, chat_table], gap=1.5)
    return chat_table, responses_table


@app.cell(hide_code=True)
def _(chat, chat_table, responses, responses_table):
    def _raw(capture: Capture, selected: list[dict[str, Any]]) -> list[Any]:
        if not selected:
            return []
        first, _, last = selected[0]["#"].partition("–")
        return capture.events[int(first) : int(last or first) + 1]

    _picked = {
        "Responses": _raw(responses, responses_table.value),
        "Chat Completions": _raw(chat, chat_table.value),
    }
    mo.vstack(
        [
            mo.md("### Raw JSON of the selected rows"),
            mo.hstack(
                [mo.json(events, label=name) for name, events in _picked.items()],
                widths=[1, 1],
                align="start",
            )
            if any(_picked.values())
            else mo.md("_Select a row in either table to see its events' JSON._"),
        ]
    )
    return


@app.cell
def _(args, facts, model):
    # Script mode: `--summary PATH` writes what both streams carried as JSON.
    if summary_path := args.get("summary"):
        Path(str(summary_path)).write_text(
            json.dumps({"model": model.value, **facts}, indent=2)
        )
    if mo.app_meta().mode == "script":
        for _row in comparison(facts["responses"], facts["chat"]):
            print(
                f"{_row['aspect']:<18} | {shorten(_row['Responses'], 50):<50} "
                f"| {shorten(_row['Chat Completions'], 50)}"
            )
    return


if __name__ == "__main__":
    app.run()
