// The helpers the TS SDK OAuth checks share (ts_oauth_client.mjs, ts_cc_client.mjs, ts_dpop_token.mjs).
// No package imports: server-peers.sh copies it next to those scripts in the npm dir.

export const EXPECTED = 'This is a simple text response for testing.';

// The value after `--NAME` in argv, or `dflt`.
export const option = (argv, name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};

// A fetch that records every exchange in `trace`: method, url, request
// headers and body, the response and its status, and (but for the MCP
// endpoint, whose answers may stream) the response text.
export const recordingFetch = (mcpUrl) => {
  const trace = [];
  const recording = async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const target = String(request ? request.url : input);
    const headers = new Headers(init.headers ?? request?.headers);
    const body = init.body === undefined || init.body === null ? '' : String(init.body);
    const response = await fetch(input, init);
    const entry = { method: init.method ?? request?.method ?? 'GET', url: target, headers, body, response, status: response.status };
    if (target !== mcpUrl) entry.text = await response.clone().text();
    trace.push(entry);
    return response;
  };
  return { trace, fetch: recording };
};

// The command line of the client checks, `MODE URL --issuer ISSUER --scope
// SCOPE ...`: `negotiation` is MODE as the SDK's versionNegotiation mode
// (pin = {pin: '2026-07-28'}); `opt(name)` reads any other option.
export const clientArgs = (argv = process.argv.slice(2)) => {
  const [mode, url] = argv;
  const opt = (name) => option(argv, name);
  const negotiation = mode === 'pin' ? { pin: '2026-07-28' } : mode;
  return { mode, url, issuer: opt('issuer'), scope: opt('scope'), negotiation, opt };
};

export const short = (s, n = 160) => (s.length <= n ? s : `${s.slice(0, n)}...(${s.length} bytes)`);

// The JSON-RPC method of a recorded MCP request, tools/call with the tool's name.
export const mcpMethod = (e) => {
  try {
    const message = JSON.parse(e.body);
    if (message.method === 'tools/call') return `tools/call(${message.params?.name})`;
    return message.method ?? 'response';
  } catch {
    return '';
  }
};

// One line an exchange; of a credential only its scheme.
export const printTrace = (trace, mcpUrl) => {
  for (const e of trace) {
    const auth = e.headers.get('authorization');
    console.log(`  ${e.method} ${short(e.url, 110)} ${e.url === mcpUrl ? mcpMethod(e) : ''} auth=${auth ? `${auth.split(' ')[0]} …` : '-'} -> ${e.status}`);
  }
};

// What failed (`problems`) and what was shown (`steps`, for the OK line);
// `need(cond, what)` notes `what` unless `cond` and returns `cond`;
// `failed(e, label)` prints and notes what the client threw;
// `verdict(ok)` prints `FAIL: problems` and exits 1, or `OK: ok()` (the steps
// by default) and exits 0.
export const checks = () => {
  const problems = [];
  const steps = [];
  const need = (cond, what) => {
    if (!cond) problems.push(what);
    return cond;
  };
  const failed = (e, label = '') => {
    console.log(`${label}the client failed: ${e?.stack ?? e}`);
    problems.push(`client error ${e?.name}: ${e?.message}`);
  };
  const verdict = (ok = () => steps.join(' -> ')) => {
    if (problems.length) {
      console.log(`FAIL: ${problems.join('; ')}`);
      process.exit(1);
    }
    console.log(`OK: ${ok()}`);
    process.exit(0);
  };
  return { problems, steps, need, failed, verdict };
};

// Prints `FAIL: timeout` and exits 1 after `ms`, unless cleared.
export const failAfter = (ms) =>
  setTimeout(() => {
    console.log('FAIL: timeout');
    process.exit(1);
  }, ms);

export const b64json = (part) => JSON.parse(Buffer.from(part, 'base64url').toString());

// tools/list and tools/call(test_simple_text) on a connected client, checked
// against the era `mode` asks for; the summary for the OK line.
export const listAndCall = async (client, mode, need) => {
  const era = String(client.getProtocolEra());
  const version = client.getNegotiatedProtocolVersion();
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
  const text = result.content?.[0]?.text;
  console.log(`mode=${mode} era=${era} version=${version} tools=${tools.length} call -> ${JSON.stringify(text)}`);
  need(text === EXPECTED, `test_simple_text returned ${JSON.stringify(text)}`);
  need(era.toLowerCase().includes(mode === 'legacy' ? 'legacy' : 'modern'), `era ${era} for mode ${mode}`);
  return `${era} ${version}: tools/list + tools/call ok`;
};
