// Drive the MCP Apps host page (host.mjs) in headless Chromium.
//
// usage: node run.mjs --server URL --tool NAME --args JSON --mode legacy|pin
//                     --initial REGEX --after REGEX --screenshot FILE [--wire FILE]
//                     [--page-dir DIR (host.html and the bundled host.js)] [--chromium PATH]
//
// Serves host.html and its bundle on a loopback port and forwards /mcp to
// the server under test (same origin, as a host's own backend would), opens
// the page, waits until the App shows the tool's result (matching
// --initial), clicks the App's #call button, waits for the App to show what
// the server answered that call (matching --after) and saves a screenshot;
// --wire writes every host↔App message (JSON lines: {from, message}).
// Exit 0 when every step happened.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    server: { type: 'string' }, tool: { type: 'string' }, args: { type: 'string', default: '{}' },
    mode: { type: 'string', default: 'pin' }, initial: { type: 'string' }, after: { type: 'string' },
    screenshot: { type: 'string' }, wire: { type: 'string' }, 'page-dir': { type: 'string', default: here },
    chromium: { type: 'string', default: '/usr/bin/chromium' }, timeout: { type: 'string', default: '30000' },
  },
});
const backend = new URL(opt.server);
const timeout = Number(opt.timeout);
const pageFile = (name) => path.join(opt['page-dir'], name);
const files = { '/host.html': ['text/html', pageFile('host.html')], '/host.js': ['text/javascript', pageFile('host.js')] };

const proxy = http.createServer((req, res) => {
  if (req.url.startsWith('/mcp')) {
    const upstream = http.request({
      host: backend.hostname, port: backend.port, path: backend.pathname, method: req.method,
      headers: { ...req.headers, host: backend.host },
    }, (answer) => { res.writeHead(answer.statusCode, answer.headers); answer.pipe(res); });
    upstream.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(upstream);
    return;
  }
  const file = files[new URL(req.url, 'http://x').pathname];
  if (!file) { res.writeHead(req.url === '/favicon.ico' ? 204 : 404); res.end(); return; }
  res.writeHead(200, { 'content-type': file[0] });
  fs.createReadStream(file[1]).pipe(res);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${proxy.address().port}`;

const browser = await chromium.launch({
  executablePath: opt.chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let ok = false;
const page = await browser.newPage({ viewport: { width: 760, height: 720 } });
page.on('console', (m) => { if (m.type() !== 'debug') console.log(`  [page ${m.type()}] ${m.text()}`); });
page.on('pageerror', (e) => console.log(`  [page error] ${e}`));
try {
  const query = new URLSearchParams({ mode: opt.mode, tool: opt.tool, args: opt.args });
  await page.goto(`${origin}/host.html?${query}`);
  await page.waitForFunction(() => window.hostState?.ready || window.hostState?.error, null, { timeout });
  const state = await page.evaluate(() => window.hostState);
  for (const step of state.steps) console.log(`  host: ${step}`);
  if (state.error) throw new Error(`host failed: ${state.error}`);

  const app = page.frameLocator('#app');
  const result = app.locator('#result');
  await result.filter({ hasText: new RegExp(opt.initial) }).waitFor({ timeout });
  const initial = (await result.innerText()).trim();
  console.log(`  app shows the tool result: ${JSON.stringify(initial)}`);
  await app.locator('#call').click({ timeout });
  await result.filter({ hasText: new RegExp(opt.after) }).waitFor({ timeout });
  const after = (await result.innerText()).trim();
  console.log(`  app shows its own tool call's answer: ${JSON.stringify(after)}`);
  if (after === initial) throw new Error('the App did not change after its tool call');
  if (opt.wire) {
    const wire = await page.evaluate(() => window.hostState.wire);
    fs.writeFileSync(opt.wire, wire.map((m) => JSON.stringify(m)).join('\n') + '\n');
    console.log(`  host↔App messages: ${wire.length}, written to ${opt.wire}`);
  }
  ok = true;
} catch (e) {
  console.log(`FAIL: ${e?.message ?? e}`);
  const state = await page.evaluate(() => window.hostState).catch(() => null);
  for (const step of state?.steps ?? []) console.log(`  host: ${step}`);
} finally {
  if (opt.screenshot) {
    await page.screenshot({ path: opt.screenshot, fullPage: true }).catch((e) => console.log(`screenshot: ${e}`));
    console.log(`  screenshot: ${opt.screenshot}`);
  }
  await browser.close();
  proxy.close();
}
console.log(ok ? 'OK' : 'FAIL');
process.exit(ok ? 0 : 1);
