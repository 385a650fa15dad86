// The OpenAI JS SDK through the recorded Bifrost intermediary:
// `node bifrost.mjs <cell>` with LGOS_BASE_URL set to the intermediary's
// origin (tests/bifrost/recorded_bifrost.py, rules recorded from Bifrost
// v1.4.19). tests/bifrost/test_js_sdk.py asserts on what the cells return.
import OpenAI from "openai";

import { PROMPTS, TIME_RESULT, baseURL, caught, main, recordingFetch } from "./harness.mjs";

const options = { apiKey: "unused", fetch: recordingFetch, maxRetries: 0 };
// Bifrost's /v1 route (models openai/<graph>) and its passthrough route.
const v1 = new OpenAI({ ...options, baseURL: `${baseURL}/v1` });
const passthrough = new OpenAI({ ...options, baseURL: `${baseURL}/openai_passthrough/v1` });

const TIME_TOOL = {
  type: "function",
  function: {
    name: "get_current_time",
    description: "The current time in an IANA time zone.",
    parameters: {
      type: "object",
      properties: { timezone: { type: "string" } },
      required: ["timezone"],
      additionalProperties: false,
    },
  },
};

const cells = {
  // The Chat Completions client-function round trip on /v1: the SDK replays
  // the assistant message as it got it (Bifrost adds `index` to its calls).
  async v1_chat_round_trip() {
    const messages = [{ role: "user", content: PROMPTS.time }];
    const first = await v1.chat.completions.create({ model: "openai/functions", messages, tools: [TIME_TOOL] });
    const message = first.choices[0].message;
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(TIME_RESULT) });
    }
    const second = await v1.chat.completions.create({ model: "openai/functions", messages, tools: [TIME_TOOL] });
    return { calls: message.tool_calls, answer: second.choices[0].message.content };
  },

  // /v1 answers JSON: a non-streamed Response parses.
  async v1_responses_text() {
    const response = await v1.responses.create({ model: "openai/chat", input: PROMPTS.chat });
    return { type: typeof response, output_text: response.output_text };
  },

  // The passthrough route streams as LGOS does: phases and all.
  async passthrough_stream() {
    const stream = await passthrough.responses.create({ model: "writer", input: PROMPTS.writer, stream: true });
    const done = [];
    for await (const event of stream) {
      if (event.type === "response.output_item.done") done.push(event.item.phase);
    }
    return { phases: done };
  },

  // ... but sends a non-streamed answer as text/plain: the SDK hands back
  // the body as a string, not an object (and the Responses helpers, which
  // expect an object, throw).
  async passthrough_plain() {
    const model = await passthrough.models.retrieve("chat");
    const failed = await caught(passthrough.responses.create({ model: "chat", input: PROMPTS.chat }));
    return { model_type: typeof model, model_body: String(model), responses_error: failed };
  },
};

await main(cells);
