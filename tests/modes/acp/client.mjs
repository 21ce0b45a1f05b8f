// A real ACP client for pi's tests: the official TypeScript SDK's client side
// (@agentclientprotocol/sdk, pinned in .ci/run) drives `pi --mode acp` through a plan.
// argv: SDK_DIR PLAN_JSON. The plan: {command: [...], cwd, fs: bool, permission: optionId,
// steps: [{op: "new"} | {op: "load", sessionId} | {op: "prompt", text, cancelOn?} |
// {op: "mode", modeId} | {op: "list", cwd?, cursor?} | {op: "resume", sessionId?} |
// {op: "close", sessionId?} | {op: "fork", sessionId?}]} (no sessionId: the current one). Prints one JSON object: responses, updates, permission requests,
// fs calls, errors.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, planJson] = process.argv.slice(2);
const acp = await import(pathToFileURL(`${sdkDir}/dist/v1/stable/acp.js`).href);
const plan = JSON.parse(planJson);
const log = { responses: [], updates: [], permissions: [], fs: [], errors: [], timings: {} };
const started = Date.now();
const child = spawn(plan.command[0], plan.command.slice(1), {
  cwd: plan.cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
let cancelOn = null;
let sessionId = null;
let cancelled = false;
const cancelIfDue = (ctx, update) => {
  if (cancelOn && !cancelled && update.sessionUpdate === cancelOn.update && (!cancelOn.status || update.status === cancelOn.status)) {
    cancelled = true;
    setTimeout(() => ctx.notify(acp.methods.agent.session.cancel, { sessionId }), cancelOn.delayMs ?? 200);
  }
};
let context = null;
const app = acp
  .client({ name: "pi-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    log.updates.push(params.update);
    if (context) cancelIfDue(context, params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    log.permissions.push(params);
    if (plan.permission === "cancel-instead") {
      cancelled = true;
      await context.notify(acp.methods.agent.session.cancel, { sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: plan.permission ?? "allow_once" } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    log.fs.push({ op: "read", path: params.path });
    return { content: await readFile(params.path, "utf8") };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    log.fs.push({ op: "write", path: params.path, content: params.content });
    await writeFile(params.path, params.content);
    return {};
  });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await app.connectWith(stream, async (ctx) => {
    context = ctx;
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: !!plan.fs, writeTextFile: !!plan.fs }, terminal: false },
    });
    log.responses.push({ op: "initialize", result: init });
    for (const step of plan.steps) {
      const t0 = Date.now();
      let result;
      if (step.op === "new") {
        result = await ctx.request(acp.methods.agent.session.new, { cwd: plan.cwd, mcpServers: plan.mcpServers ?? [] });
        sessionId = result.sessionId;
      } else if (step.op === "load") {
        sessionId = step.sessionId;
        result = await ctx.request(acp.methods.agent.session.load, { cwd: plan.cwd, sessionId, mcpServers: [] });
      } else if (step.op === "list") {
        result = await ctx.request("session/list", step.cwd === undefined ? {} : { cwd: step.cwd, cursor: step.cursor });
      } else if (step.op === "resume") {
        sessionId = step.sessionId ?? sessionId;
        result = await ctx.request("session/resume", { cwd: plan.cwd, sessionId, mcpServers: [] });
      } else if (step.op === "close") {
        result = await ctx.request("session/close", { sessionId: step.sessionId ?? sessionId });
      } else if (step.op === "fork") {
        result = await ctx.request("session/fork", { cwd: plan.cwd, sessionId: step.sessionId ?? sessionId, mcpServers: [] });
        sessionId = result.sessionId;
      } else if (step.op === "sleep") {
        await new Promise((resolve) => setTimeout(resolve, step.ms));
      } else if (step.op === "mode") {
        result = await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: step.modeId });
      } else if (step.op === "prompt") {
        cancelOn = step.cancelOn ?? null;
        cancelled = false;
        const prompt = [{ type: "text", text: step.text }, ...(step.extra ?? [])];
        result = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt });
      }
      log.responses.push({ op: step.op, result: result ?? null, ms: Date.now() - t0 });
    }
  });
} catch (error) {
  log.errors.push(String(error?.message ?? error));
}
log.timings.totalMs = Date.now() - started;
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify(log) + "\n");
