// The TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0), pinned
// to the modern era ({pin: '2026-07-28'}), in front of the era gateway
// (interop/gateway.sh).
//
// usage: node gateway_ts_client.mjs PROFILE TARGET [ARGS...]
//   PROFILE  which backend stands behind the gateway at TARGET:
//              everything             @modelcontextprotocol/server-everything
//              py1 [no-listen]        interop/gateway_py1_server.py (mcp 1.x);
//                                     no-listen: no subscriptions/listen check
//              filesystem DIR FILE    @modelcontextprotocol/server-filesystem,
//                                     DIR allowed, FILE inside it
//   TARGET   the gateway's http:// URL, or the command line that starts it on
//            stdio (one string, split at spaces)
//
// Prints one line per check, `ok NAME DETAIL` or `fail NAME DETAIL`; exits 1
// when any failed. The backend's elicitation and sampling reach this client
// as input_required rounds, which the SDK fulfils through the handlers set
// with setRequestHandler: they answer with a fresh random value, and the
// check passes only when the backend's result carries that value back.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const STEP_MS = 20000;
const [profile, target, ...args] = process.argv.slice(2);
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

// The handlers' answers, fresh per run, and what they were asked.
const answers = { color: `teal-${hex(4)}`, sampled: `sampled-${hex(4)}`, asked: [] };

const client = new Client(
  { name: 'mcp-rs-gateway-interop', version: '0.1.0' },
  {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: { elicitation: { form: {} }, sampling: {} },
  },
);
// Gives the colour when asked for one; declines anything else.
client.setRequestHandler('elicitation/create', async (request) => {
  answers.asked.push(['elicitation/create', request.params.message]);
  if (!request.params.message.includes('colour')) return { action: 'decline' };
  return { action: 'accept', content: { color: answers.color } };
});
client.setRequestHandler('sampling/createMessage', async (request) => {
  answers.asked.push(['sampling/createMessage', request.params.messages[0]?.content?.text]);
  return {
    role: 'assistant',
    content: { type: 'text', text: answers.sampled },
    model: 'gateway-test-model',
    stopReason: 'endTurn',
  };
});
const toolChanges = [];
client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
  toolChanges.push(notification);
});

async function common(toolsWanted) {
  report('modern-era', client.getNegotiatedProtocolVersion() === '2026-07-28',
    `era ${client.getProtocolEra()} version ${client.getNegotiatedProtocolVersion()}`);
  await step('tools-list', () => client.listTools(), (r) => {
    const names = new Set(r.tools.map((t) => t.name));
    return [toolsWanted.every((t) => names.has(t)), `${r.tools.length} tools, wanted ${toolsWanted.join(',')}`];
  });
}

const profiles = {
  async everything() {
    // No roots round here: the backend asks for roots once per session, and
    // the Python client, run first through the same gateway, answered it.
    await common(['echo', 'get-sum', 'trigger-sampling-request']);
    await step('tools-call', () => client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
      (r) => [textOf(r).includes('5'), textOf(r).slice(0, 80)]);
    const uri = (await within(client.listResources())).resources[0].uri;
    await step('resources-read', () => client.readResource({ uri }), (r) => [r.contents[0].uri === uri, uri]);
    await step('prompts-get', () => client.getPrompt({ name: 'simple-prompt' }),
      (r) => [r.messages.length > 0 && r.messages[0].role === 'user', `${r.messages.length} message(s)`]);
    await step('sampling-round', () => client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi' } }),
      (r) => [textOf(r).includes(answers.sampled) && answers.asked.at(-1)?.[0] === 'sampling/createMessage',
        `${answers.sampled} in the result: ${textOf(r).includes(answers.sampled)}`]);
    // A resource followed on listen: the gateway subscribes the backend to
    // it, whose simulated updates (toggle-subscriber-updates: one at once,
    // then one every 5 s) reach this stream.
    const updates = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => updates.push(n.params.uri));
    let followed;
    const toggle = () => within(client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }));
    try {
      followed = await within(client.listen({ resourceSubscriptions: [uri] }));
      await toggle();
      const deadline = Date.now() + STEP_MS;
      while (!updates.includes(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await toggle();
      report('listen-resource-updated', updates.length > 0 && updates.every((u) => u === uri),
        `${updates.length} update(s) of ${JSON.stringify([...new Set(updates)])}; honored ${JSON.stringify(followed.honoredFilter)}`);
    } catch (e) {
      report('listen-resource-updated', false, `${e?.name}: ${e?.message}`);
    } finally {
      await followed?.close().catch(() => {});
    }
  },

  async py1() {
    await common(['add', 'ask_color', 'ask_twice', 'summarize', 'register_tool']);
    await step('tools-call', () => client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }),
      (r) => [textOf(r) === '42', textOf(r)]);
    await step('resources-read', () => client.readResource({ uri: 'py1://notes/readme' }),
      (r) => [r.contents[0].text === 'gateway-py1 readme: served by FastMCP 1.x', r.contents[0].text]);
    const code = `print(${hex(3)})`;
    await step('prompts-get', () => client.getPrompt({ name: 'review', arguments: { code } }),
      (r) => [r.messages[0].content.text.includes(code), r.messages[0].content.text]);
    await step('elicitation-round', () => client.callTool({ name: 'ask_color', arguments: {} }),
      (r) => [textOf(r) === `color=${answers.color}`, `${textOf(r)} (answered ${answers.color})`]);
    // Rounds on the two other methods that may ask: a read that elicits, a
    // prompt that samples.
    const who = `ada-${hex(2)}`;
    await step('resources-read-elicitation-round', () => client.readResource({ uri: `py1://colors/${who}` }),
      (r) => [r.contents[0].text === `${who} likes ${answers.color}`, r.contents[0].text]);
    await step('prompts-get-sampling-round', () => client.getPrompt({ name: 'haiku', arguments: { topic: 'gateways' } }),
      (r) => [r.messages[0].content.text === `Improve this haiku: ${answers.sampled}`
        && answers.asked.at(-1)?.[1] === 'A haiku about gateways', r.messages[0].content.text]);
    // Two requests in one call: two rounds, the second declined.
    const asked = answers.asked.length;
    await step('elicitation-two-rounds-decline', () => client.callTool({ name: 'ask_twice', arguments: {} }),
      (r) => [textOf(r) === `color=${answers.color}; go on: decline` && answers.asked.length === asked + 2,
        `${textOf(r)} (${answers.asked.length - asked} requests answered)`]);
    await step('sampling-round', () => client.callTool({ name: 'summarize', arguments: { text: 'MCP eras' } }),
      (r) => [textOf(r) === `model gateway-test-model said: ${answers.sampled}`
        && String(answers.asked.at(-1)?.[1]).includes('Summarize: MCP eras'), textOf(r)]);
    if (args.includes('no-listen')) return;
    // A list change announced by the backend during a call reaches a
    // listening client through the gateway, and the new tool is served.
    const name = `echo_${hex(3)}`;
    let subscription;
    try {
      subscription = await within(client.listen({ toolsListChanged: true }));
      const called = await within(client.callTool({ name: 'register_tool', arguments: { name } }));
      const deadline = Date.now() + STEP_MS;
      while (toolChanges.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      report('listen-tools-list-changed', toolChanges.length > 0,
        `${toolChanges.length} notification(s) after ${JSON.stringify(textOf(called))}; honored ${JSON.stringify(subscription.honoredFilter)}`);
    } catch (e) {
      report('listen-tools-list-changed', false, `${e?.name}: ${e?.message}`);
    } finally {
      await subscription?.close().catch(() => {});
    }
    await step('registered-tool-call', () => client.callTool({ name, arguments: { text: 'hi' } }),
      (r) => [textOf(r) === `${name}: hi`, textOf(r)]);
  },

  async filesystem() {
    const [directory, file] = [resolve(args[0]), resolve(args[1])];
    await common(['read_text_file', 'list_directory', 'list_allowed_directories']);
    await step('tools-call-read-file', () => client.callTool({ name: 'read_text_file', arguments: { path: file } }),
      (r) => [textOf(r) === readFileSync(file, 'utf8'), textOf(r).slice(0, 80)]);
    await step('tools-call-list-directory', () => client.callTool({ name: 'list_directory', arguments: { path: directory } }),
      (r) => [textOf(r).includes(`[FILE] ${basename(file)}`), textOf(r).slice(0, 80)]);
    await step('tools-call-outside-refused', () => client.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } }),
      (r) => [r.isError === true && textOf(r).toLowerCase().includes('denied'), textOf(r).slice(0, 80)]);
  },
};

const timer = setTimeout(() => { report('client', false, 'whole run over 120 s'); process.exit(1); }, 120000);
try {
  const [command, ...commandArgs] = target.split(' ');
  const transport = target.startsWith('http')
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command, args: commandArgs, stderr: 'ignore' });
  await within(client.connect(transport));
  await profiles[profile]();
} catch (e) {
  report('client', false, `${e?.name}: ${e?.message}`);
}
await within(client.close(), 5000).catch(() => {});
clearTimeout(timer);
process.exit(failures ? 1 : 0);
