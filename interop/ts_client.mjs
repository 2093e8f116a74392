// Drive mcp-everything with the TypeScript SDK v2 client
// (@modelcontextprotocol/client@2.4.0).
//
// usage: node ts_client.mjs MODE TARGET...
//   MODE    legacy | auto | pin   (pin = {pin: '2026-07-28'})
//   TARGET  an http(s):// URL, or a command line to start over stdio
//
// Connects, prints era and version, lists tools, calls test_simple_text,
// then an unknown tool, which must come back as a JSON-RPC error (-32602),
// not as a transport error (an HTTP status the client cannot read).
// Exit 0 when the text is right, the error is, and the era matches the mode.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const EXPECTED = 'This is a simple text response for testing.';
const [mode, ...target] = process.argv.slice(2);
const negotiation = mode === 'pin' ? { pin: '2026-07-28' } : mode;

const transport = target[0].startsWith('http')
  ? new StreamableHTTPClientTransport(new URL(target[0]))
  : new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'ignore' });
const client = new Client({ name: 'mcp-rs-interop', version: '0.1.0' }, { versionNegotiation: { mode: negotiation } });

const timer = setTimeout(() => { console.log('FAIL: timeout'); process.exit(1); }, 20000);
try {
  await client.connect(transport);
  const era = client.getProtocolEra();
  const version = client.getNegotiatedProtocolVersion();
  console.log(`mode=${mode} era=${era} version=${version} server=${client.getServerVersion()?.name}`);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  console.log(`tools=${tools.length} first=${tools[0]}`);
  const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
  const text = result.content?.[0]?.text;
  console.log(`call test_simple_text -> ${JSON.stringify(text)}`);
  let unknown;
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    unknown = 'no error';
  } catch (e) {
    unknown = e?.code === -32602 ? 'jsonrpc -32602' : `other: ${e?.name} code=${e?.code} ${e?.message}`;
  }
  console.log(`call no_such_tool -> ${unknown}`);
  const wantEra = mode === 'legacy' ? 'legacy' : 'modern';
  const ok = text === EXPECTED && String(era).toLowerCase().includes(wantEra) && tools.includes('test_simple_text')
    && unknown === 'jsonrpc -32602';
  console.log(ok ? 'OK' : 'FAIL');
  await client.close();
  clearTimeout(timer);
  process.exit(ok ? 0 : 1);
} catch (e) {
  console.log(`FAIL: ${e?.stack ?? e}`);
  process.exit(1);
}
