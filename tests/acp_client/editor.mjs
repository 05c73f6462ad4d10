// Drives `tooloop acp` as an editor that serves its own files (fs/read_text_file and
// fs/write_text_file over unsaved buffers) with the official ACP TypeScript client:
// edits through the buffers, a command file that appears between prompts, and
// "always reject". Run by tests/suite/acp/editor.rs (same environment as drive.mjs);
// prints one JSON object with everything it saw. The script decides nothing.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const bin = process.env.TOOLOOP_BIN;
const args = JSON.parse(process.env.ACP_ARGS ?? "[]");
const cwd = process.env.ACP_WORKSPACE;

const agent = spawn(bin, ["acp", ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
agent.stderr.on("data", (d) => (stderr += d));
const exited = new Promise((resolve) => agent.on("exit", (code) => resolve(code)));

// The editor's open buffer of notes.txt differs from the disk (unsaved changes).
const buffers = { [join(cwd, "notes.txt")]: "the buffer says 43\n" };
const seen = { phases: {}, permissions: [], fs: [], stops: {} };
let phase = "setup";

const app = client({ name: "tooloop-acp-editor" })
  .onNotification(methods.client.session.update, ({ params }) => {
    (seen.phases[phase] ??= []).push(params);
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    seen.fs.push({ phase, method: "read", path: params.path });
    return { content: buffers[params.path] ?? readFileSync(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    // Into the buffer only, as an editor does before the user saves.
    seen.fs.push({ phase, method: "write", path: params.path, content: params.content });
    buffers[params.path] = params.content;
    return {};
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push({ phase, toolCall: params.toolCall, options: params.options });
    const kind = phase.startsWith("touch") ? "reject_always" : "allow_once";
    const option = params.options.find((o) => o.kind === kind);
    return option
      ? { outcome: { outcome: "selected", optionId: option.optionId } }
      : { outcome: { outcome: "cancelled" } };
  });

const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

await app.connectWith(stream, async (ctx) => {
  const prompt = async (name, sessionId, text) => {
    phase = name;
    const res = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    seen.stops[name] = res.stopReason;
  };
  phase = "initialize";
  await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    clientInfo: { name: "tooloop-acp-editor", version: "1" },
  });
  phase = "new";
  const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  await new Promise((r) => setTimeout(r, 100));

  await prompt("edit", sessionId, "fix the notes");
  // A command file appears while the session is open.
  mkdirSync(join(cwd, ".tooloop/commands"), { recursive: true });
  writeFileSync(
    join(cwd, ".tooloop/commands/deploy.md"),
    "---\ndescription: Deploy somewhere\n---\nDeploy to $ARGUMENTS now\n",
  );
  await prompt("deploy", sessionId, "/deploy prod");
  await prompt("touch", sessionId, "touch the log");
  await prompt("again", sessionId, "touch the log again");
  seen.buffers = buffers;
});

agent.stdin.end();
seen.exitCode = await exited;
seen.stderr = stderr;
process.stdout.write(JSON.stringify(seen) + "\n");
