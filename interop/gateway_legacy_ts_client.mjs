// The TypeScript SDK 1.x client (@modelcontextprotocol/sdk@1.32.2: 2025-11-25
// and earlier only, the `initialize` handshake and a session), in front of
// the era gateway serving a MODERN-ONLY backend (interop/gateway-legacy.sh).
//
// usage: node gateway_legacy_ts_client.mjs PROFILE TARGET
//   PROFILE  which modern-only backend stands behind the gateway at TARGET:
//              py2          interop/gateway_py2_modern_server.py (mcp 2.3.0)
//              rsdk2        interop/rust_mcp_sdk2_server (rust-mcp-sdk 2.0.0):
//                           the same tools, prompt and checks as py2, its
//                           own resource
//              everything   our mcp-everything --modern-only (also progress,
//                           completion, resources/subscribe and its update,
//                           logging/setLevel and a call's log message)
//   TARGET   the gateway's http:// URL (Streamable HTTP), or the command line
//            that starts it on stdio (one string, split at spaces)
//
// Prints one line per check, `ok NAME DETAIL` or `fail NAME DETAIL`; exits 1
// when any failed. The backend's MRTR `input_required` rounds reach this
// client as `elicitation/create` requests in its session, answered by the
// handler set with setRequestHandler with a fresh random value that the
// tool's result must carry back. A tool list change the backend publishes on
// `subscriptions/listen` must reach the session as one
// `notifications/tools/list_changed`, and none may come before it.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const STEP_MS = 20000;
const [profile, target] = process.argv.slice(2);
const hex = (n) => randomBytes(n).toString('hex');
let failures = 0;

function report(name, ok, detail = '') {
  if (!ok) failures += 1;
  console.log(`${ok ? 'ok' : 'fail'} ${name} ${detail}`.trimEnd());
}

const within = (promise, ms = STEP_MS) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))]);

// Runs PROMISE-MAKER within the step time; CHECK(result) -> [ok, detail].
async function step(name, make, check) {
  let ok, detail;
  try {
    [ok, detail] = check(await within(make()));
  } catch (e) {
    [ok, detail] = [false, `${e?.name}: ${e?.message}`];
  }
  report(name, ok, detail);
}

const textOf = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' ');

// The handler's answer, fresh per run, and what the gateway sent.
const peer = { answer: `teal-${hex(4)}`, asked: [], toolChanges: 0, updates: [], logs: [], wire: () => {} };

const client = new Client(
  { name: 'mcp-rs-gateway-legacy-interop', version: '0.1.0' },
  { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const props = Object.keys(request.params.requestedSchema?.properties ?? {}).sort();
  peer.asked.push([request.params.message, props]);
  const field = props.includes('color') ? 'color' : 'response';
  return { action: 'accept', content: { [field]: peer.answer } };
});
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  peer.toolChanges += 1;
});
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  peer.updates.push(n.params.uri);
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  peer.logs.push(n.params.data);
});
// A read of an unknown URI: the modern backend's -32602 reaches a legacy
// session as 2025-11-25's resource-not-found, -32002.
async function unknownResource(uri) {
  try {
    const r = await within(client.readResource({ uri }));
    report('resources-read-unknown', false, `read: ${JSON.stringify(r).slice(0, 80)}`);
  } catch (e) {
    report('resources-read-unknown', e?.code === -32002, `${e?.code} ${e?.message}`);
  }
}
const askedWas = (message, props) => JSON.stringify(peer.asked.at(-1)) === JSON.stringify([message, props]);

// TRIGGER makes the backend publish a tools list change: it must reach this
// session as a notification (and none before it).
async function listChanged(trigger, args, registered) {
  const before = peer.toolChanges;
  report('no-list-changed-before-trigger', before === 0, `${before} before the trigger`);
  await step('list-changed-trigger', () => client.callTool({ name: trigger, arguments: args }),
    (r) => [!r.isError, textOf(r).slice(0, 80)]);
  const deadline = Date.now() + STEP_MS;
  while (peer.toolChanges <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  report('list-changed-notification', peer.toolChanges > before, `${peer.toolChanges - before} after the trigger`);
  await new Promise((r) => setTimeout(r, 500)); // a duplicate would come by now
  const after = peer.toolChanges - before;
  report('list-changed-once', after === 1, `${after} after the trigger, one wanted`);
  if (!registered) return;
  await step('registered-tool-listed', () => client.listTools(),
    (r) => [r.tools.some((t) => t.name === registered), `${registered} in ${r.tools.length} tools`]);
  await step('registered-tool-call', () => client.callTool({ name: registered, arguments: { text: 'hi' } }),
    (r) => [textOf(r) === `${registered}: hi`, textOf(r)]);
}

// The resource (URI, text) and an unknown URI of the backends that share
// py2's fixture: the tools add, ask_color and register_tool, the prompt review.
const fixtures = {
  py2: ['py2://notes/readme', 'gateway-py2 readme: served by MCPServer 2.x, modern only', 'py2://nothing/here'],
  rsdk2: ['rsdk2://notes/readme', 'gateway-rsdk2 readme: served by rust-mcp-sdk 2.0.0, modern only',
    'rsdk2://nothing/here'],
};

const profiles = {
  async py2(fixture = 'py2') {
    const [uri, text, unknown] = fixtures[fixture];
    await step('tools-list', () => client.listTools(), (r) => {
      const names = new Set(r.tools.map((t) => t.name));
      return [['add', 'ask_color', 'register_tool'].every((t) => names.has(t)), `${r.tools.length} tools`];
    });
    await step('tools-call', () => client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }),
      (r) => [textOf(r) === '42', textOf(r)]);
    await step('resources-read', () => client.readResource({ uri }),
      (r) => [r.contents[0].text === text, r.contents[0].text]);
    await unknownResource(unknown);
    const code = `print(${hex(3)})`;
    await step('prompts-get', () => client.getPrompt({ name: 'review', arguments: { code } }),
      (r) => [r.messages[0].content.text === `Please review this code: ${code}`, r.messages[0].content.text]);
    await step('elicitation-create', () => client.callTool({ name: 'ask_color', arguments: {} }),
      (r) => [textOf(r) === `color=${peer.answer}` && askedWas('Which colour?', ['color']),
        `${textOf(r)} (answered ${peer.answer}; asked ${JSON.stringify(peer.asked)})`]);
    const name = `echo_${hex(3)}`;
    await listChanged('register_tool', { name }, name);
  },

  async rsdk2() {
    await profiles.py2('rsdk2');
  },

  async everything() {
    await step('tools-list', () => client.listTools(), (r) => {
      const names = new Set(r.tools.map((t) => t.name));
      return [['test_simple_text', 'test_elicitation', 'test_trigger_tool_change'].every((t) => names.has(t)),
        `${r.tools.length} tools`];
    });
    await step('tools-call', () => client.callTool({ name: 'test_simple_text', arguments: {} }),
      (r) => [textOf(r) === 'This is a simple text response for testing.', textOf(r)]);
    await step('resources-read', () => client.readResource({ uri: 'test://static-text' }),
      (r) => [r.contents[0].text === 'This is the content of the static text resource.', r.contents[0].text]);
    await unknownResource('test://nothing/here');
    const arg = hex(3);
    await step('prompts-get', () => client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: arg, arg2: 'b' } }),
      (r) => [r.messages[0].content.text === `Prompt with arguments: arg1='${arg}', arg2='b'`, r.messages[0].content.text]);
    const message = `Say something ${hex(2)}`;
    await step('elicitation-create', () => client.callTool({ name: 'test_elicitation', arguments: { message } }),
      (r) => [textOf(r) === `User response: action=accept, content={"response":"${peer.answer}"}` && askedWas(message, ['response']),
        `${textOf(r)} (answered ${peer.answer}; asked ${JSON.stringify(peer.asked)})`]);
    await listChanged('test_trigger_tool_change', {});
    // The rest of a legacy session, served through the modern backend:
    // progress of a call, completion, resources/subscribe and its update.
    // The progress is read off the wire (the transport's messages, in order):
    // the SDK runs notification handlers a microtask late but a response at
    // once, so when both come in one read its onprogress never sees it.
    const progress = [];
    let handled = 0;
    let answered = false;
    peer.wire = (message) => {
      if (message.method === 'notifications/progress' && !answered) {
        const p = message.params;
        progress.push([p.progress, p.total, p.message]);
      }
      if ('result' in message || 'error' in message) answered = true;
    };
    await step('progress', () => client.callTool({ name: 'test_streaming_elicitation', arguments: {} }, undefined,
      { onprogress: () => { handled += 1; } }),
    (r) => [JSON.stringify(progress) === '[[1,1,"Streaming"]]',
      `${textOf(r)}; progress before the result ${JSON.stringify(progress)}, ${handled} seen by onprogress`]);
    peer.wire = () => {};
    await step('completion-complete', () => client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } }),
    (r) => [JSON.stringify(r.completion.values) === '["test","testValue1","testValue2"]', JSON.stringify(r.completion.values)]);
    const uri = 'test://watched-resource';
    await step('resources-subscribe', () => client.subscribeResource({ uri }), () => [true, uri]);
    await step('resource-update-trigger', () => client.callTool({ name: 'test_trigger_resource_update', arguments: {} }),
      (r) => [!r.isError, textOf(r)]);
    const deadline = Date.now() + STEP_MS;
    while (peer.updates.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    report('resources-updated', peer.updates.length > 0 && peer.updates.every((u) => u === uri),
      `${peer.updates.length} of ${JSON.stringify([...new Set(peer.updates)])}`);
    await step('logging-set-level', () => client.setLoggingLevel('info'), () => [true, 'info']);
    await step('log-tool', () => client.callTool({ name: 'test_logging_tool', arguments: {} }), (r) => [!r.isError, textOf(r)]);
    const logDeadline = Date.now() + 5000;
    while (peer.logs.length === 0 && Date.now() < logDeadline) await new Promise((r) => setTimeout(r, 50));
    report('log-message', JSON.stringify(peer.logs) === '["Diagnostic trace logging activated"]', JSON.stringify(peer.logs));
  },
};

const timer = setTimeout(() => { report('client', false, 'whole run over 120 s'); process.exit(1); }, 120000);
try {
  const [command, ...commandArgs] = target.split(' ');
  const transport = target.startsWith('http')
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command, args: commandArgs, stderr: 'ignore' });
  // The version the handshake settled on (the client hands it to its transport).
  let negotiated;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    negotiated = version;
    setProtocolVersion?.(version);
  };
  await within(client.connect(transport));
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    peer.wire(message);
    onmessage(message, extra);
  };
  report('legacy-initialize', negotiated === '2025-11-25',
    `version ${negotiated}, server ${client.getServerVersion()?.name}`);
  await profiles[profile]();
  await step('ping', () => client.ping(), () => [true, 'answered']);
} catch (e) {
  report('client', false, `${e?.name}: ${e?.message}`);
}
await within(client.close(), 5000).catch(() => {});
clearTimeout(timer);
process.exit(failures ? 1 : 0);
