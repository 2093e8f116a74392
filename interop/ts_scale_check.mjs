// Several mcp-everything instances behind a load balancer, driven by the
// TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0). Run by
// interop/scale-out.sh.
//
// usage: node ts_scale_check.mjs MODE URL
//   MODE  legacy | auto   (auto negotiates 2026-07-28 with our server)
//   URL   the load balancer's MCP endpoint (round-robin, no stickiness; it
//         names the instance that answered in X-Served-By)
//
// Through the balancer, with the SDK's own client: connect, list tools and
// call one; an MRTR round (test_input_required_result_request_state) and a
// three-round one (..._multi_round) answered by the SDK's elicitation
// handler: in the modern era each retry is a new tools/call, which must
// land on another instance (X-Served-By of each); in a legacy session the
// server asks on the call's stream and the answer is POSTed, elsewhere; a
// legacy session's requests spread over the instances; an update raised
// on one instance is heard on the stream (listen, or the legacy GET
// stream) another instance holds.
//
// Prints `ok NAME: detail` or `FAIL NAME: detail` per check; exits 1 if any
// failed.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [mode, url] = process.argv.slice(2);
if (!['legacy', 'auto'].includes(mode) || !url) {
  console.error('usage: node ts_scale_check.mjs legacy|auto URL');
  process.exit(2);
}
const GUARD = 10000;
const results = [];
const report = (name, ok, detail) => {
  results.push(ok);
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}: ${detail}`);
};
const check = async (name, work) => {
  try {
    const [ok, detail] = await work();
    report(name, ok, detail);
  } catch (e) {
    report(name, false, `${e?.name}: ${e?.message}`);
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every HTTP exchange of the transport: method, JSON-RPC method (or
// `response` for an answer to the server), X-Served-By, status. An entry
// is made when the request is sent and completed when its answer's head
// comes (an answer POST's 202 may come after the call's result).
const log = [];
const recordingFetch = async (input, init = {}) => {
  let what = init.method ?? 'GET';
  if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body);
      what = body.method ?? ('result' in body || 'error' in body ? 'response' : '?');
    } catch {
      what = '?';
    }
  }
  const entry = { http: init.method ?? 'GET', what, servedBy: undefined, status: undefined };
  log.push(entry);
  try {
    const response = await fetch(input, init);
    entry.servedBy = response.headers.get('x-served-by');
    entry.status = response.status;
    return response;
  } catch (e) {
    entry.status = `${e?.name}`;
    throw e;
  }
};
// The entries from `start` on, once each has its answer (at most GUARD).
const settled = async (start) => {
  const deadline = Date.now() + GUARD;
  while (log.slice(start).some((e) => e.status === undefined) && Date.now() < deadline) await sleep(20);
  return log.slice(start);
};

const answers = {
  'Please confirm': { ok: true },
  'Step 1: What is your name?': { name: 'Ada' },
  'Step 2: What is your favorite color?': { color: 'green' },
};
const client = new Client(
  { name: 'mcp-rs-scale-check', version: '0.1.0' },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
);
client.setRequestHandler('elicitation/create', async (request) => ({
  action: 'accept',
  content: answers[request.params.message] ?? { response: 'yes' },
}));
const updated = [];
client.setNotificationHandler('notifications/resources/updated', (n) => {
  updated.push(n.params.uri);
});

const timer = setTimeout(() => {
  console.log('FAIL ts-timeout: no end in 60 s');
  process.exit(1);
}, 60000);
const label = `sdk-ts-${mode}`;
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch }));
  const era = String(client.getProtocolEra()).toLowerCase();
  const version = client.getNegotiatedProtocolVersion();
  report(`${label}-connect`, era.includes(mode === 'legacy' ? 'legacy' : 'modern'), `era ${era}, version ${version}`);

  await check(`${label}-list-call`, async () => {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    const text = result.content?.[0]?.text;
    return [tools.includes('test_simple_text') && text === 'This is a simple text response for testing.',
      `${tools.length} tools, call -> ${JSON.stringify(text)}`];
  });

  const mrtr = (tool, want, rounds) => async () => {
    const start = log.length;
    const result = await client.callTool({ name: tool, arguments: {} });
    const text = result.content?.[0]?.text;
    const mine = await settled(start);
    const posts = mine.filter((e) => e.http === 'POST').map((e) => e.servedBy);
    const calls = mine.filter((e) => e.what === 'tools/call').map((e) => e.servedBy);
    let spread;
    let where;
    if (mode === 'legacy') {
      spread = new Set(posts).size >= 2;
      where = `tools/call and answers served by ${JSON.stringify(posts)}`;
    } else {
      spread = calls.length === rounds && new Set(calls).size === rounds;
      where = `tools/call rounds served by ${JSON.stringify(calls)}`;
    }
    return [text === want && spread, `${JSON.stringify(text)}; ${where}`];
  };
  await check(`${label}-mrtr-request-state`,
    mrtr('test_input_required_result_request_state', 'state-ok: requestState validated', 2));
  await check(`${label}-mrtr-multi-round`,
    mrtr('test_input_required_result_multi_round', 'Multi-round complete for Ada who likes green', 3));

  // Updates of these URIs raised through the balancer, one at a time,
  // until one lands on an instance other than `held`; that one must be
  // heard on the stream `held` holds.
  const uris = [1, 2, 3].map((n) => `test://scale/ts-${mode}-${n}`);
  const heardElsewhere = async (held, what) => {
    for (const uri of uris) {
      const start = log.length;
      await client.callTool({ name: 'test_trigger_resource_update', arguments: { uri } });
      const raisedOn = (await settled(start)).filter((e) => e.what === 'tools/call').at(-1)?.servedBy;
      if (raisedOn === held) continue;
      const deadline = Date.now() + GUARD;
      while (Date.now() < deadline) {
        if (updated.includes(uri)) return [true, `${what} held by ${held}, update of ${uri} raised on ${raisedOn}: heard`];
        await sleep(50);
      }
      return [false, `${what} held by ${held}, update of ${uri} raised on ${raisedOn}: not heard (heard ${JSON.stringify(updated)})`];
    }
    return [false, `every update landed on ${held}, the instance holding the ${what}: no round-robin?`];
  };

  if (mode === 'legacy') {
    await check(`${label}-session-spread`, async () => {
      const start = log.length;
      for (let i = 0; i < 3; i++) {
        await client.ping();
        await client.callTool({ name: 'test_simple_text', arguments: {} });
      }
      const posts = (await settled(start)).filter((e) => e.what === 'ping' || e.what === 'tools/call');
      const served = posts.map((e) => e.servedBy);
      return [posts.length === 6 && new Set(served).size >= 2 && posts.every((e) => e.status === 200),
        `${posts.length} requests of one session served by ${JSON.stringify(served)}, statuses ${posts.map((e) => e.status)}`];
    });
    await check(`${label}-get-stream-event`, async () => {
      for (const uri of uris) await client.subscribeResource({ uri });
      // The SDK opens the session's GET stream after initialization.
      const deadline = Date.now() + GUARD;
      let get;
      while (!(get = log.find((e) => e.http === 'GET' && e.status === 200)) && Date.now() < deadline) await sleep(50);
      if (!get) return [false, `the SDK opened no GET stream (requests: ${JSON.stringify(log)})`];
      await sleep(200);
      return heardElsewhere(get.servedBy, 'GET stream');
    });
  } else {
    await check(`${label}-listen-event`, async () => {
      const start = log.length;
      const subscription = await client.listen({ resourceSubscriptions: uris });
      try {
        const held = (await settled(start)).find((e) => e.what === 'subscriptions/listen')?.servedBy;
        return await heardElsewhere(held, 'listen');
      } finally {
        await subscription.close();
      }
    });
  }
  await client.close();
} catch (e) {
  report(`${label}-run`, false, `${e?.stack ?? e}`);
}
clearTimeout(timer);
const failed = results.filter((r) => !r).length;
console.log(`${results.length - failed} ok, ${failed} failed`);
process.exit(failed || !results.length ? 1 : 0);
