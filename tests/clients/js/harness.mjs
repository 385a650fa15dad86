// Shared by the client-matrix scripts: run one cell, record the wire, print JSON.
//
// A script is `node <client>.mjs <cell>`: it looks the cell up in its table,
// runs it against LGOS_BASE_URL (the demo API's OpenAI base URL) with the
// inputs in LGOS_CELL_INPUTS (JSON, from tests/clients/matrix.py), and prints
// one JSON object on stdout: {"ok": true, "result": ...} or {"ok": false,
// "error": ...}, plus "requests", every HTTP exchange the client made (method,
// path, the JSON body it sent, the status it got, and the body of any error
// answer), so a failing test shows exactly what went over the wire.

import net from "node:net";

// Nothing may leave the machine: a connection to anything but loopback throws.
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  let options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options !== "object") options = { port: options, host: args[1] };
  const host = options.host ?? "localhost";
  if (options.path === undefined && !LOOPBACK.has(host)) {
    throw new Error(`the client-matrix scripts stay offline: refused a connection to ${host}`);
  }
  return connect.apply(this, args);
};

export const baseURL = process.env.LGOS_BASE_URL;
if (!baseURL) {
  console.error("LGOS_BASE_URL is not set");
  process.exit(2);
}

// What the cells send that the tests build their expectations from, written
// once in tests/clients/matrix.py (JS_INPUTS): the prompts, by name, and what
// the cells' own get_current_time returns.
if (!process.env.LGOS_CELL_INPUTS) {
  console.error("LGOS_CELL_INPUTS is not set (tests/clients/node_cells.py sets it)");
  process.exit(2);
}
const inputs = JSON.parse(process.env.LGOS_CELL_INPUTS);
export const PROMPTS = inputs.prompts;
export const TIME_RESULT = inputs.time_result;

export const requests = [];

/** A fetch that records each exchange; responses are passed through untouched. */
export async function recordingFetch(input, init = {}) {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const entry = { method: init.method ?? "GET", path: url.pathname + url.search };
  if (typeof init.body === "string") {
    try {
      entry.body = JSON.parse(init.body);
    } catch {
      entry.body = init.body;
    }
  }
  requests.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  if (!response.ok) {
    entry.error = await response.clone().text();
  }
  return response;
}

/** The plain-data view of an error a client raised. */
export function describeError(error) {
  const seen = { name: error?.constructor?.name ?? typeof error, message: String(error?.message ?? error) };
  for (const key of [
    "status",
    "code",
    "param",
    "type",
    "statusCode",
    "responseBody",
    "data",
    "url",
    "isRetryable",
    "toolName",
  ]) {
    if (error?.[key] !== undefined) seen[key] = error[key];
  }
  if (error?.error !== undefined) seen.error = error.error;
  if (error?.cause !== undefined) seen.cause = describeError(error.cause);
  if (Array.isArray(error?.errors)) seen.errors = error.errors.map(describeError);
  return seen;
}

/** The error a call raised, described; throws if the call succeeded. */
export async function caught(promise) {
  try {
    await promise;
  } catch (error) {
    return describeError(error);
  }
  throw new Error("expected the call to fail");
}

/** Run the cell named on the command line and print the outcome as JSON. */
export async function main(scriptCells) {
  const cells = { ...scriptCells, offline_guard: offlineGuard };
  const name = process.argv[2];
  const cell = cells[name];
  if (!cell) {
    console.error(`unknown cell ${name}; known: ${Object.keys(cells).join(", ")}`);
    process.exit(2);
  }
  let outcome;
  try {
    outcome = { ok: true, result: await cell() };
  } catch (error) {
    outcome = { ok: false, error: describeError(error), stack: String(error?.stack ?? "") };
  }
  outcome.requests = requests;
  process.stdout.write(JSON.stringify(outcome) + "\n");
}

// The guard's own check: a request to a public address fails before any packet leaves.
async function offlineGuard() {
  const errors = [];
  for (const url of ["https://api.openai.com/v1/models", "http://192.0.2.1/v1/models"]) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(5000) });
      errors.push({ url, reached: true });
    } catch (error) {
      errors.push({ url, error: describeError(error) });
    }
  }
  return errors;
}
