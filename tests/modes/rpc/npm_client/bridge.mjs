// Drives pi's own RpcClient (from the npm package) for a Python test, one call at a time:
// stdin lines {"id", "call", "args"} -> stdout {"id", "ok", "value" | "error"}; every event
// the client receives -> {"event": ...}. Calls run concurrently (bash + abortBash).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [packageDir] = process.argv.slice(2);
const { RpcClient } = await import(
  pathToFileURL(`${packageDir}/dist/modes/rpc/rpc-client.js`).href
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
