// The Vercel AI SDK (ai + @ai-sdk/openai) against the demo API:
// `node vercel_ai.mjs <cell>`. Each cell returns what the SDK handed back;
// tests/clients/test_vercel_ai.py asserts on it (see harness.mjs).
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";

import { PROMPTS, TIME_RESULT, baseURL, caught, describeError, main, recordingFetch } from "./harness.mjs";

// The SDK prints its warnings to the console; stdout carries the JSON outcome.
globalThis.AI_SDK_LOG_WARNINGS = false;

const openai = createOpenAI({ baseURL, apiKey: "unused", fetch: recordingFetch });
const API = { responses: openai.responses, chat: openai.chat };
// One attempt per call, so the exchange log shows exactly what was sent.
const generate = (options) => generateText({ maxRetries: 0, ...options });
const stream = (options) => streamText({ maxRetries: 0, ...options });

// The chat graph's setting to answer from the whole conversation.
const HISTORY = { lgos_settings: '{"use_history":true}' };

const getCurrentTime = tool({
  description: "The current time in an IANA time zone.",
  inputSchema: jsonSchema({
    type: "object",
    properties: { timezone: { type: "string", description: "An IANA time zone" } },
    required: ["timezone"],
    additionalProperties: false,
  }),
  execute: async ({ timezone }) => ({ ...TIME_RESULT, asked: timezone }),
});

const sourceView = ({ sourceType, url, title }) => ({ sourceType, url, title });

function stepView(step) {
  return {
    text: step.text,
    finishReason: step.finishReason,
    toolCalls: step.toolCalls.map(({ toolCallId, toolName, input, invalid }) => ({
      toolCallId,
      toolName,
      input,
      invalid,
    })),
    toolResults: step.toolResults.map(({ toolCallId, toolName, output }) => ({
      toolCallId,
      toolName,
      output,
    })),
    responseId: step.response.id,
  };
}

function generated(result) {
  return {
    text: result.text,
    finishReason: result.finishReason,
    responseId: result.response.id,
    modelId: result.response.modelId,
    providerMetadata: result.providerMetadata ?? null,
    content: result.content.map((part) => ({
      type: part.type,
      text: part.text,
      toolName: part.toolName,
      providerMetadata: part.providerMetadata,
      error: part.error && describeError(part.error),
    })),
    sources: result.sources.map(sourceView),
    steps: result.steps.map(stepView),
    warnings: result.warnings ?? [],
  };
}

async function streamed(result) {
  const parts = [];
  for await (const part of result.fullStream) {
    const { type, id, text, providerMetadata, url, title, sourceType, toolName, error } = part;
    parts.push({
      type,
      id,
      text,
      providerMetadata,
      url,
      title,
      sourceType,
      toolName,
      error: error && describeError(error),
    });
  }
  return {
    parts,
    text: await result.text,
    finishReason: await result.finishReason,
    responseId: (await result.response).id,
    sources: (await result.sources).map(sourceView),
  };
}

// A second turn, with the first turn's messages exactly as the SDK returned
// them; `use_history` makes the answer count the messages the graph saw.
async function conversation(model, options) {
  const providerOptions = { openai: { ...options, metadata: HISTORY } };
  const first = await generate({ model: model("chat"), prompt: PROMPTS.chat, providerOptions });
  const messages = [
    { role: "user", content: PROMPTS.chat },
    ...first.response.messages,
    { role: "user", content: PROMPTS.and_lgos },
  ];
  try {
    return { answer: generated(await generate({ model: model("chat"), messages, providerOptions })) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

function cellsFor(api) {
  const model = (id) => API[api](id);
  const timeQuestion = {
    model: model("functions"),
    prompt: PROMPTS.time,
    tools: { get_current_time: getCurrentTime },
    stopWhen: stepCountIs(3), // the SDK runs the function, then asks again
  };
  return {
    [`${api}_generate`]: async () =>
      generated(await generate({ model: model("chat"), prompt: PROMPTS.chat })),
    [`${api}_stream`]: async () => streamed(stream({ model: model("chat"), prompt: PROMPTS.chat })),
    [`${api}_tool`]: async () => generated(await generate(timeQuestion)),
    [`${api}_tool_stream`]: async () => streamed(stream(timeQuestion)),
    [`${api}_citations`]: async () => ({
      generated: generated(await generate({ model: model("citations"), prompt: PROMPTS.citations })),
      streamed: await streamed(stream({ model: model("citations"), prompt: PROMPTS.citations })),
    }),
    [`${api}_conversation`]: async () => conversation(model, {}),
    [`${api}_unknown_model`]: async () => ({
      generate: await caught(generate({ model: model("missing"), prompt: "Hi" })),
      stream: await caught(
        (async () => {
          const result = stream({ model: model("missing"), prompt: "Hi", onError: () => {} });
          for await (const part of result.fullStream) {
            if (part.type === "error") throw part.error;
          }
        })(),
      ),
    }),
  };
}

const cells = {
  ...cellsFor("responses"),
  ...cellsFor("chat"),

  // As responses_conversation, with the provider told that nothing is stored.
  async responses_conversation_unstored() {
    return conversation(openai.responses, { store: false });
  },

  // Commentary: the writer streams progress messages with phase "commentary";
  // the next turn replays them (nothing stored, so inline, phase included).
  async responses_commentary() {
    const first = stream({
      model: openai.responses("writer"),
      prompt: PROMPTS.writer,
      providerOptions: { openai: { store: false } },
    });
    const view = await streamed(first);
    const messages = [
      { role: "user", content: PROMPTS.writer },
      ...(await first.response).messages,
      { role: "user", content: PROMPTS.shorter },
    ];
    const next = await generate({
      model: openai.responses("chat"),
      messages,
      providerOptions: { openai: { store: false, metadata: HISTORY } },
    });
    return { first: view, next: generated(next) };
  },

  // Chat Completions carries no commentary: only the answer streams.
  async chat_commentary() {
    return streamed(stream({ model: openai.chat("writer"), prompt: PROMPTS.writer }));
  },

  // The interrupt surfaces as a call of `lgos_interrupt`, declared as a tool
  // without `execute` (the application answers it); the answer goes back as
  // its tool result, with the paused Response as previousResponseId.
  async responses_interrupt() {
    const lgosInterrupt = tool({
      description: "LGOS: the graph asks a person a question.",
      inputSchema: jsonSchema({ type: "object", additionalProperties: true }),
    });
    const paused = await generate({
      model: openai.responses("approval"),
      prompt: PROMPTS.refund,
      tools: { lgos_interrupt: lgosInterrupt },
    });
    const calls = paused.toolCalls.filter((call) => call.toolName === "lgos_interrupt");
    const done = await generate({
      model: openai.responses("approval"),
      messages: [
        {
          role: "tool",
          content: calls.map(({ toolCallId, toolName }) => ({
            type: "tool-result",
            toolCallId,
            toolName,
            output: { type: "text", value: "approve" },
          })),
        },
      ],
      providerOptions: { openai: { previousResponseId: paused.response.id } },
    });
    return {
      paused: generated(paused),
      calls: calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
      done: generated(done),
    };
  },

  // Without a declared tool: what the SDK makes of a call it was not offered.
  async responses_interrupt_undeclared() {
    return generated(await generate({ model: openai.responses("approval"), prompt: PROMPTS.refund }));
  },

  async chat_interrupt_model() {
    return caught(generate({ model: openai.chat("approval"), prompt: PROMPTS.refund }));
  },
};

await main(cells);
