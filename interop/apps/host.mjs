// The host page of the MCP Apps browser test, bundled for the browser by
// esbuild: what Claude or VS Code do for an App, with the official
// @modelcontextprotocol/ext-apps AppBridge and the TypeScript client SDK.
//
// Query string: mode=legacy|pin (the client's era), tool=NAME (the tool
// whose UI is shown), args=JSON (its arguments). Progress and failures are
// written to #log and to window.hostState, which the driver (run.mjs) reads.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, buildAllowAttribute,
  getToolUiResourceUri, isToolVisibilityAppOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const params = new URLSearchParams(location.search);
const mode = params.get('mode') === 'legacy' ? 'legacy' : { pin: '2026-07-28' };
const toolName = params.get('tool');
const toolArgs = JSON.parse(params.get('args') ?? '{}');
const state = (window.hostState = { steps: [], error: null, appCalls: [], ready: false, wire: [] });
const log = (line) => {
  state.steps.push(line);
  document.getElementById('log').textContent += line + '\n';
};

function connect(capabilities) {
  const client = new Client({ name: 'mcp-era-apps-host', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode } });
  return client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href))).then(() => client);
}

// The CSP a host applies to the App's document: nothing from the network
// unless _meta.ui.csp names it (the spec's restrictive default).
function contentSecurityPolicy(csp = {}) {
  const list = (domains, fallback) => (domains?.length ? domains.join(' ') : fallback);
  const resources = list(csp.resourceDomains, '');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `media-src data: ${resources}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
  ].join('; ');
}

function withPolicy(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html;
}

async function main() {
  // A host without Apps must not be offered app-only tools.
  const plain = await connect({});
  const plainTools = (await plain.listTools()).tools;
  await plain.close();

  const client = await connect({ extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } });
  log(`connected era=${client.getProtocolEra()} version=${client.getNegotiatedProtocolVersion()}`);
  const tools = (await client.listTools()).tools;
  const appOnly = tools.filter(isToolVisibilityAppOnly).map((t) => t.name);
  const leaked = plainTools.filter((t) => appOnly.includes(t.name)).map((t) => t.name);
  log(`tools=${tools.length} app-only=${appOnly.join(',') || '-'} without-extension=${plainTools.length}`);
  if (appOnly.length === 0) throw new Error('the server lists no app-only tool');
  if (leaked.length) throw new Error(`app-only tools listed to a host without Apps: ${leaked}`);

  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`no tool ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri?.startsWith('ui://')) throw new Error(`tool ${toolName} has no ui:// resource: ${JSON.stringify(tool._meta)}`);
  const read = await client.readResource({ uri });
  const content = read.contents?.[0];
  if (content?.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`${uri} has MIME type ${content?.mimeType}`);
  const ui = content._meta?.ui ?? {};
  log(`read ${uri} (${content.text.length} chars, csp ${JSON.stringify(ui.csp ?? {})})`);

  const iframe = document.createElement('iframe');
  iframe.id = 'app';
  iframe.setAttribute('sandbox', 'allow-scripts');
  const allow = buildAllowAttribute(ui.permissions);
  if (allow) iframe.setAttribute('allow', allow);
  iframe.style.border = ui.prefersBorder === false ? 'none' : '1px solid #888';

  const bridge = new AppBridge(client, { name: 'mcp-era-apps-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {}, logging: {} });
  // What the App asks the server goes through the bridge: record the tool calls.
  bridge.addEventListener?.('loggingmessage', (p) => log(`app log: ${JSON.stringify(p.data)}`));
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  // Listen before the App's document runs: its ui/initialize comes at once.
  document.getElementById('frame').appendChild(iframe);
  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  await bridge.connect(transport);
  // Every message between host and App, for the driver to check against
  // the Rust types generated from the Apps schema.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    state.wire.push({ from: 'host', message });
    return send(message, options);
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    state.wire.push({ from: 'app', message });
    return receive(message, extra);
  };
  iframe.srcdoc = withPolicy(content.text, contentSecurityPolicy(ui.csp));
  await initialized;
  log(`app initialized: ${JSON.stringify(bridge.getAppVersion())}`);

  // As a host does after the model called the tool: input, call, result.
  await bridge.sendToolInput({ arguments: toolArgs });
  const result = await client.callTool({ name: toolName, arguments: toolArgs });
  log(`called ${toolName}: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  await bridge.sendToolResult(result);
  state.ready = true;
  log('tool result sent to the app');
}

main().catch((e) => {
  state.error = String(e?.stack ?? e);
  log(`FAIL: ${state.error}`);
});
