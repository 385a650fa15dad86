// The OpenAI JS SDK against the demo API: `node openai_js.mjs <cell>`.
// Each cell returns what the SDK handed back; tests/clients/test_openai_js.py
// asserts on it (see harness.mjs for the output format).
import OpenAI from "openai";

import { PROMPTS, TIME_RESULT, baseURL, caught, main, recordingFetch } from "./harness.mjs";

const client = new OpenAI({ baseURL, apiKey: "unused", fetch: recordingFetch, maxRetries: 0 });

const TIME_TOOL = {
  name: "get_current_time",
  description: "The current time in an IANA time zone.",
  parameters: {
    type: "object",
    properties: { timezone: { type: "string", description: "An IANA time zone" } },
    required: ["timezone"],
    additionalProperties: false,
  },
};

function textOf(response) {
  return response.output
    .filter((item) => item.type === "message")
    .map((item) => ({ id: item.id, phase: item.phase, text: item.content.map((c) => c.text).join("") }));
}

const cells = {
  async models() {
    const listed = [];
    for await (const model of client.models.list()) {
      listed.push({ id: model.id, object: model.object, owned_by: model.owned_by, lgos: model.lgos });
    }
    const detail = await client.models.retrieve("deep-research");
    return { listed, detail };
  },

  async responses_text() {
    const response = await client.responses.create({ model: "chat", input: PROMPTS.chat });
    return {
      id: response.id,
      status: response.status,
      output_text: response.output_text,
      messages: textOf(response),
    };
  },

  async responses_stream() {
    const stream = await client.responses.create({
      model: "chat",
      input: PROMPTS.chat,
      stream: true,
    });
    const types = [];
    const sequence = [];
    let text = "";
    let completed;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    return {
      types,
      sequence,
      text,
      completed: {
        id: completed.id,
        status: completed.status,
        output_text: completed.output_text ?? null,
        messages: textOf(completed),
      },
    };
  },

  async responses_stream_helper() {
    const deltas = [];
    const stream = client.responses
      .stream({ model: "chat", input: PROMPTS.chat })
      .on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    return {
      deltas,
      id: final.id,
      status: final.status,
      output_text: final.output_text,
      messages: textOf(final),
    };
  },

  // A second turn: the first turn's output items (commentary included, as the
  // stream helper returns them) appended unchanged, then the next question.
  async responses_conversation() {
    const metadata = { lgos_settings: '{"use_history":true}' };
    const first = await client.responses
      .stream({ model: "writer", input: PROMPTS.writer })
      .finalResponse();
    const second = await client.responses.create({
      model: "chat",
      metadata,
      input: [
        { role: "user", content: PROMPTS.writer },
        ...first.output,
        { role: "user", content: PROMPTS.shorter },
      ],
    });
    return { replayed: first.output.map((item) => item.phase), output_text: second.output_text };
  },

  async chat_text() {
    const completion = await client.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: PROMPTS.chat }],
    });
    return completion;
  },

  async chat_stream_helper() {
    const deltas = [];
    const stream = client.chat.completions
      .stream({ model: "chat", messages: [{ role: "user", content: PROMPTS.chat }] })
      .on("content.delta", ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    return { deltas, final };
  },

  async chat_stream_raw() {
    const stream = await client.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: PROMPTS.chat }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks };
  },

  async responses_function_round_trip() {
    const question = PROMPTS.time;
    const tools = [{ type: "function", ...TIME_TOOL, strict: true }];
    const first = await client.responses.create({ model: "functions", input: question, tools });
    const calls = first.output.filter((item) => item.type === "function_call");
    const input = [
      { role: "user", content: question },
      ...first.output,
      ...calls.map((call) => ({
        type: "function_call_output",
        call_id: call.call_id,
        output: JSON.stringify(TIME_RESULT),
      })),
    ];
    const second = await client.responses.create({ model: "functions", input, tools });
    return { calls, output_text: second.output_text, second_output_types: second.output.map((i) => i.type) };
  },

  async chat_function_round_trip() {
    const messages = [{ role: "user", content: PROMPTS.time }];
    const tools = [{ type: "function", function: TIME_TOOL }];
    const first = await client.chat.completions.create({ model: "functions", messages, tools });
    const message = first.choices[0].message;
    messages.push(message); // replayed exactly as the SDK returned it
    for (const call of message.tool_calls ?? []) {
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(TIME_RESULT) });
    }
    const second = await client.chat.completions.create({ model: "functions", messages, tools });
    return { first: first.choices[0], second: second.choices[0] };
  },

  async chat_run_tools() {
    const runner = client.chat.completions.runTools({
      model: "functions",
      messages: [{ role: "user", content: PROMPTS.dice }],
      tools: [
        {
          type: "function",
          function: {
            name: "roll_dice",
            description: "Roll some six-sided dice.",
            parameters: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
            parse: JSON.parse,
            function: ({ count }) => ({ rolls: Array.from({ length: count }, (_, i) => i + 3) }),
          },
        },
      ],
    });
    const content = await runner.finalContent();
    return { content, messages: runner.messages };
  },

  async interrupt_resume() {
    const paused = await client.responses.create({ model: "approval", input: PROMPTS.refund });
    const calls = paused.output.filter(
      (item) => item.type === "function_call" && item.name === "lgos_interrupt",
    );
    const done = await client.responses.create({
      model: "approval",
      previous_response_id: paused.id,
      input: calls.map((call) => ({
        type: "function_call_output",
        call_id: call.call_id,
        output: "approve",
      })),
    });
    return {
      paused: { id: paused.id, status: paused.status, output: paused.output },
      payloads: calls.map((call) => JSON.parse(call.arguments)),
      done: { id: done.id, status: done.status, output_text: done.output_text },
    };
  },

  async interrupt_stream_resume() {
    const paused = await client.responses
      .stream({ model: "approval", input: PROMPTS.refund_rejected })
      .finalResponse();
    const calls = paused.output.filter(
      (item) => item.type === "function_call" && item.name === "lgos_interrupt",
    );
    const done = await client.responses
      .stream({
        model: "approval",
        previous_response_id: paused.id,
        input: calls.map((call) => ({
          type: "function_call_output",
          call_id: call.call_id,
          output: "reject",
        })),
      })
      .finalResponse();
    return {
      paused: { id: paused.id, output: paused.output },
      done: { id: done.id, status: done.status, output_text: done.output_text },
    };
  },

  async chat_interrupt_model() {
    return caught(
      client.chat.completions.create({
        model: "approval",
        messages: [{ role: "user", content: PROMPTS.refund }],
      }),
    );
  },

  async writer_commentary() {
    const done = [];
    const stream = client.responses
      .stream({ model: "writer", input: PROMPTS.writer })
      .on("response.output_item.done", (event) =>
        done.push({
          type: event.item.type,
          phase: event.item.phase,
          output_index: event.output_index,
          text: event.item.content?.map((c) => c.text).join(""),
        }),
      );
    const final = await stream.finalResponse();
    return { done, final: textOf(final), output_text: final.output_text };
  },

  async citations() {
    const question = PROMPTS.citations;
    const response = await client.responses.create({ model: "citations", input: question });
    const added = [];
    const stream = client.responses
      .stream({ model: "citations", input: question })
      .on("response.output_text.annotation.added", (event) => added.push(event));
    const streamed = await stream.finalResponse();
    const chat = await client.chat.completions.create({
      model: "citations",
      messages: [{ role: "user", content: question }],
    });
    const chatStream = client.chat.completions.stream({
      model: "citations",
      messages: [{ role: "user", content: question }],
    });
    const chunks = [];
    chatStream.on("chunk", (chunk) => chunks.push(chunk));
    const chatStreamed = await chatStream.finalChatCompletion();
    const answer = (r) =>
      r.output.find((item) => item.type === "message" && item.phase === "final_answer").content[0];
    return {
      response: answer(response),
      added,
      streamed: answer(streamed),
      streamed_phases: streamed.output.map((item) => item.phase),
      chat: chat.choices[0].message,
      chat_last_chunk: chunks.at(-1),
      chat_streamed: chatStreamed.choices[0].message,
    };
  },

  async background() {
    const queued = await client.responses.create({
      model: "deep-research",
      input: PROMPTS.research,
      tools: [{ type: "web_search" }],
      metadata: { lgos_settings: '{"review_plan":false}' },
      background: true,
    });
    const statuses = [queued.status];
    let response = queued;
    const deadline = Date.now() + 30_000;
    while (["queued", "in_progress"].includes(response.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      response = await client.responses.retrieve(queued.id);
      statuses.push(response.status);
    }
    const cancelled = await client.responses.cancel(queued.id);
    const after = await client.responses.retrieve(queued.id);
    return {
      queued: { id: queued.id, status: queued.status, background: queued.background },
      statuses,
      final: {
        id: response.id,
        status: response.status,
        output_text: response.output_text,
        output_types: response.output.map((i) => i.type),
      },
      cancelled: { id: cancelled.id, status: cancelled.status },
      after: { id: after.id, status: after.status, output_text: after.output_text },
    };
  },

  async unknown_model() {
    return {
      responses: await caught(client.responses.create({ model: "missing", input: "Hi" })),
      chat: await caught(
        client.chat.completions.create({ model: "missing", messages: [{ role: "user", content: "Hi" }] }),
      ),
      retrieve: await caught(client.models.retrieve("missing")),
    };
  },
};

await main(cells);
