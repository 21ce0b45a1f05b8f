// Drives pi's own RpcClient (from the npm package) for a Python test, one call at a time:
// stdin lines {"id", "call", "args"} -> stdout {"id", "ok", "value" | "error"}; every event
// the client receives -> {"event": ...}. Calls run concurrently (bash + abortBash).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [packageDir] = process.argv.slice(2);
const { RpcClient } = await import(
  pathToFileURL(`${packageDir}/dist/modes/rpc/rpc-client.js`).href
);
const { serializeJsonLine } = await import(
  pathToFileURL(`${packageDir}/dist/modes/rpc/jsonl.js`).href
);
let client = null;
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function run(call, args) {
  if (call === "start") {
    client = new RpcClient(args[0]);
    client.onEvent((event) => out({ event }));
    await client.start();
    return null;
  }
  if (call === "respondUi") {
    // An extension_ui_response, written to the agent's stdin as pi's own example client does
    // (examples/rpc-extension-ui.ts): RpcClient has no method for it, and its send() would
    // replace the request's id with one of its own.
    client.process.stdin.write(serializeJsonLine({ type: "extension_ui_response", ...args[0] }));
    return null;
  }
  const value = await client[call](...args);
  return value === undefined ? null : value;
}

// The bridge's own stdin comes from Python (plain JSON, no U+2028): readline is fine here.
createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, call, args } = JSON.parse(line);
  run(call, args ?? []).then(
    (value) => out({ id, ok: true, value }),
    (error) => out({ id, ok: false, error: String(error?.message ?? error) }),
  );
});
