// Drives `tooloop acp` with the official ACP TypeScript client (@agentclientprotocol/sdk)
// through every flow of issue 37, then prints one JSON object with everything it saw.
// Run by tests/acp_e2e.rs: TOOLOOP_BIN is the binary, ACP_ARGS its arguments (JSON),
// ACP_WORKSPACE the editor's folder. The script decides nothing about pass or fail.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const bin = process.env.TOOLOOP_BIN;
const args = JSON.parse(process.env.ACP_ARGS ?? "[]");
const cwd = process.env.ACP_WORKSPACE;

const agent = spawn(bin, ["acp", ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
agent.stderr.on("data", (d) => (stderr += d));
const exited = new Promise((resolve) => agent.on("exit", (code) => resolve(code)));

const seen = { phases: {}, permissions: [], errors: {}, stops: {}, timings: {} };
let phase = "setup";
const bucket = () => (seen.phases[phase] ??= []);
// Called when an update arrives (the cancel flow waits for its tool to start).
let onUpdate = () => {};

const app = client({ name: "tooloop-acp-e2e" })
  .onNotification(methods.client.session.update, ({ params }) => {
    bucket().push(params);
    onUpdate(params);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push({ phase, toolCall: params.toolCall, options: params.options });
    // Writes are rejected; anything else gets the first allow option offered (allow once;
    // for a plan, approve it and go on auto-accepting edits).
    const reject = params.toolCall.title?.startsWith("write_file");
    const option = reject
      ? params.options.find((o) => o.kind === "reject_once")
      : params.options.find((o) => o.kind.startsWith("allow"));
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  });

const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

async function expectError(name, run) {
  try {
    await run();
    seen.errors[name] = null;
  } catch (e) {
    seen.errors[name] = { code: e.code, message: e.message };
  }
}

await app.connectWith(stream, async (ctx) => {
  const prompt = async (name, sessionId, text) => {
    phase = name;
    const started = performance.now();
    const res = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    seen.stops[name] = res.stopReason;
    seen.timings[name] = performance.now() - started;
    return res;
  };

  await expectError("before_initialize", () =>
    ctx.request(methods.agent.session.new, { cwd, mcpServers: [] }),
  );
  phase = "initialize";
  seen.initialize = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
    clientInfo: { name: "tooloop-acp-e2e", version: "1" },
  });

  phase = "new";
  const created = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  seen.new = created;
  const sid = created.sessionId;
  await new Promise((r) => setTimeout(r, 50));

  await prompt("read_and_bash", sid, "read notes.txt, then run echo");
  await prompt("denied_write", sid, "write out.txt");

  // Cancel as soon as the long command is running.
  phase = "cancel";
  const running = new Promise((resolve) => {
    onUpdate = (p) => {
      if (p.update.sessionUpdate === "tool_call_update" && p.update.status === "in_progress") {
        resolve();
      }
    };
  });
  const pending = ctx.request(methods.agent.session.prompt, {
    sessionId: sid,
    prompt: [{ type: "text", text: "run the long command" }],
  });
  await running;
  onUpdate = () => {};
  const cancelAt = performance.now();
  await ctx.notify(methods.agent.session.cancel, { sessionId: sid });
  seen.stops.cancel = (await pending).stopReason;
  seen.timings.cancel_ms = performance.now() - cancelAt;

  phase = "set_mode";
  seen.setMode = await ctx.request(methods.agent.session.setMode, { sessionId: sid, modeId: "plan" });
  await new Promise((r) => setTimeout(r, 100));

  await prompt("status_command", sid, "/status");
  await prompt("plan_approval", sid, "plan the change");
  await prompt("file_command", sid, "/review notes.txt");

  await expectError("unknown_session", () =>
    ctx.request(methods.agent.session.prompt, { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] }),
  );
  await expectError("unknown_method", () => ctx.request("session/frobnicate", { sessionId: sid }));
  await expectError("wrong_params", () => ctx.request(methods.agent.session.new, { cwd: 42 }));
  await expectError("load_missing", () =>
    ctx.request(methods.agent.session.load, { sessionId: "feedbeef", cwd, mcpServers: [] }),
  );

  phase = "load";
  // The commands are announced right after the answer: wait for them (2 s at most).
  const announced = new Promise((resolve) => {
    onUpdate = (p) => p.update.sessionUpdate === "available_commands_update" && resolve();
    setTimeout(resolve, 2000).unref();
  });
  seen.load = await ctx.request(methods.agent.session.load, { sessionId: sid, cwd, mcpServers: [] });
  await announced;
  seen.sessionId = sid;
});

agent.stdin.end();
seen.exitCode = await exited;
seen.stderr = stderr;
process.stdout.write(JSON.stringify(seen) + "\n");
