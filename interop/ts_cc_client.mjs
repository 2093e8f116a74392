// Drive mcp-everything (started with --oauth-issuer/--oauth-resource) with the
// TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0) and its
// client-credentials providers.
//
// usage: node ts_cc_client.mjs MODE URL --issuer ISSUER --scope SCOPE
//          (--secret ID:SECRET | --jwt ID:PRIVATE_KEY_PEM)
//   MODE  legacy | auto | pin   (pin = {pin: '2026-07-28'})
//
// --secret uses ClientCredentialsProvider, --jwt PrivateKeyJwtProvider (the
// SDK signs the assertion, RS256), both with expectedIssuer, as a user would.
// Every fetch is recorded and the trace checked:
//   1. the first MCP request got 401; PRM and RFC 8414 metadata fetched; no
//      registration, no /authorize;
//   2. one token request: grant_type=client_credentials, resource = URL,
//      scope = SCOPE, authenticated as asked (Basic header, or a
//      client_assertion of the jwt-bearer type whose iss = sub = ID and aud =
//      ISSUER, with exp and jti, verifying with the key's public half);
//   3. the token's sub and client_id are ID (no user), aud is URL;
//   4. listTools and callTool(test_simple_text) succeed in the era asked for.
// Credentials are never printed. Prints the key exchanges, then OK or FAIL:
// reasons; exit 0 on OK.
import { createPublicKey, createVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Client,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { b64json, checks, clientArgs, failAfter, listAndCall, printTrace, recordingFetch, short } from './oauth_trace.mjs';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const { mode, url, issuer, scope, negotiation, opt } = clientArgs();
const secretArg = opt('secret');
const jwtArg = opt('jwt');
const split = (value) => {
  const i = value.indexOf(':');
  return [value.slice(0, i), value.slice(i + 1)];
};

const { trace, fetch: traced } = recordingFetch(url);

// ---- the provider, as a user builds it -----------------------------------------
let clientId;
let method;
let privatePem;
let provider;
if (secretArg) {
  const [id, clientSecret] = split(secretArg);
  clientId = id;
  method = 'client_secret_basic';
  provider = new ClientCredentialsProvider({ clientId, clientSecret, scope, expectedIssuer: issuer });
} else {
  const [id, keyPath] = split(jwtArg);
  clientId = id;
  method = 'private_key_jwt';
  privatePem = readFileSync(keyPath, 'utf8');
  provider = new PrivateKeyJwtProvider({ clientId, privateKey: privatePem, algorithm: 'RS256', scope, expectedIssuer: issuer });
}

const { steps, need, failed, verdict } = checks();
const timer = failAfter(30000);

let callSummary = 'no call';
try {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: traced });
  const client = new Client({ name: 'mcp-rs-interop', version: '0.1.0' }, { versionNegotiation: { mode: negotiation } });
  await client.connect(transport);
  callSummary = await listAndCall(client, mode, need);
  await client.close();
} catch (e) {
  failed(e, `mode=${mode}: `);
}

printTrace(trace, url);
const at = (method_, path) => trace.filter((e) => e.method === method_ && e.url.startsWith(issuer) && new URL(e.url).pathname === path);

// 1. challenge and discovery; no registration, no user
const first = trace[0];
if (need(first?.url === url && first.status === 401 && !first.headers.get('authorization'), 'the first MCP request did not get 401')) {
  console.log(`401 WWW-Authenticate: ${first.response.headers.get('www-authenticate')}`);
  steps.push('401');
}
need(trace.some((e) => e.status === 200 && e.url.includes('/.well-known/oauth-protected-resource')), 'no PRM fetched');
if (need(at('GET', '/.well-known/oauth-authorization-server').some((e) => e.status === 200), 'no RFC 8414 metadata fetched')) {
  steps.push('PRM + AS metadata');
}
need(at('POST', '/register').length === 0, 'the client registered dynamically');
need(at('GET', '/authorize').length === 0, 'the client went to /authorize');

// 2. the token request
const tokens = at('POST', '/token');
let token;
if (need(tokens.length === 1, `${tokens.length} token requests, expected 1`)) {
  const t = tokens[0];
  const form = new URLSearchParams(t.body);
  const shown = [...form].map(([k, v]) => `${k}=${['client_secret', 'client_assertion'].includes(k) ? '<redacted>' : v}`).join('&');
  const authorization = t.headers.get('authorization') ?? '';
  console.log(`token request: POST ${t.url} Authorization: ${authorization.split(' ')[0] || '-'}`);
  console.log(`  body: ${short(shown, 400)}`);
  console.log(`  -> ${t.status}`);
  need(t.status === 200, `token endpoint ${t.status}: ${t.text}`);
  need(form.get('grant_type') === 'client_credentials', `grant_type ${form.get('grant_type')}`);
  need(form.get('resource') === url, `token resource ${form.get('resource')}`);
  need(form.get('scope') === scope, `token scope ${form.get('scope')}`);
  const basic = authorization.startsWith('Basic ');
  if (method === 'client_secret_basic') {
    need(basic && !form.has('client_secret'), 'client_secret_basic authentication');
  } else {
    need(!basic && !form.has('client_secret'), 'only the assertion authenticates');
    need(form.get('client_assertion_type') === ASSERTION_TYPE, 'client_assertion_type');
    const parts = (form.get('client_assertion') ?? '').split('.');
    try {
      const header = b64json(parts[0]);
      const claims = b64json(parts[1]);
      const verifier = createVerify('RSA-SHA256');
      verifier.update(`${parts[0]}.${parts[1]}`);
      const signed = verifier.verify(createPublicKey(privatePem), Buffer.from(parts[2], 'base64url'));
      const now = Date.now() / 1000;
      const lifetime = claims.exp - (claims.iat ?? claims.exp);
      console.log(
        `  assertion: alg=${header.alg} iss=${claims.iss} sub=${claims.sub} aud=${claims.aud} ` +
          `lifetime=${lifetime}s signature=${signed ? 'valid' : 'INVALID'}`,
      );
      need(header.alg === 'RS256' && signed, 'the assertion signature does not verify');
      need(claims.iss === clientId && claims.sub === clientId, `assertion iss/sub ${claims.iss}/${claims.sub}`);
      need(claims.aud === issuer, `assertion aud ${JSON.stringify(claims.aud)}`);
      need(typeof claims.exp === 'number' && claims.exp > now, 'assertion exp');
      need(typeof claims.jti === 'string' && claims.jti.length > 0, 'assertion jti');
    } catch (e) {
      need(false, `the assertion is not a JWT: ${e.message}`);
    }
  }
  if (t.status === 200) {
    token = JSON.parse(t.text).access_token;
    const claims = b64json(token.split('.')[1]);
    console.log(`  access token: sub=${claims.sub} client_id=${claims.client_id} aud=${claims.aud} scope='${claims.scope}'`);
    need(claims.sub === clientId && claims.client_id === clientId, 'token sub/client_id');
    need(claims.aud === url && claims.iss === issuer, 'token aud/iss');
    steps.push(`token(client_credentials, ${method})`);
  }
}

// 3. the MCP requests with the token
if (token) {
  const bearer = trace.filter((e) => e.url === url && e.headers.get('authorization') === `Bearer ${token}`);
  if (need(bearer.length > 0 && bearer.every((e) => [200, 202].includes(e.status)), 'the MCP requests with the token failed')) {
    steps.push(callSummary);
  }
}

clearTimeout(timer);
verdict();
