// Drive mcp-everything (started with --oauth-issuer/--oauth-resource) with the
// TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0) and its OAuth
// support, headless.
//
// usage: node ts_oauth_client.mjs MODE URL --issuer ISSUER --scope SCOPE
//          [--auth-method none|client_secret_basic|client_secret_post]
//          [--step-up TOOL_SCOPE]
//   MODE  legacy | auto | pin   (pin = {pin: '2026-07-28'})
//
// An OAuthClientProvider whose redirectToAuthorization is the "browser": it
// GETs the authorization URL (the stand-in interop/oauth_as.py approves at
// once) without following the 302 and keeps code and iss from its Location;
// the SDK then throws UnauthorizedError as designed, the script calls
// transport.finishAuth(code, iss) and connects again with the tokens. Every
// fetch is recorded and the trace checked:
//   1. the first MCP request got 401 with exactly
//      `Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource<path>", scope="SCOPE"`,
//      and the SDK's exported parsers (extractWWWAuthenticateParams,
//      extractResourceMetadataUrl) read resource_metadata and scope from it;
//   2. the PRM was fetched from that URL, then RFC 8414 metadata, RFC 7591
//      registration, /authorize (resource, scope, S256, state) -> 302;
//   3. the token request: authorization_code, resource = URL, code_verifier,
//      the registered client authentication; a JWT with aud = URL;
//   4. listTools and callTool(test_simple_text) succeed in the era asked for.
//   --step-up TOOL_SCOPE: then callTool(test_scoped_write), which needs
//      TOOL_SCOPE besides SCOPE: the call with the SCOPE token gets 403
//      insufficient_scope naming `SCOPE TOOL_SCOPE`; the transport parses it
//      and starts authorization for the union (no new registration, no
//      refresh: a refresh cannot widen). As for the first 401, the redirect
//      ends the SDK's part: callTool throws UnauthorizedError, the script
//      calls transport.finishAuth(code, iss) and calls the tool again on the
//      same client and transport, which now succeeds.
// Prints the key exchanges, then OK or FAIL: reasons; exit 0 on OK.
import { randomBytes } from 'node:crypto';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  extractResourceMetadataUrl,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/client';
import { b64json, checks, clientArgs, failAfter, listAndCall, mcpMethod, printTrace, recordingFetch, short } from './oauth_trace.mjs';

const SCOPED_TOOL = 'test_scoped_write'; // mcp-everything's tool with #[tool(scopes = ["mcp:write"])]
const SCOPED_TEXT = 'Scoped write done';
const REDIRECT_URI = 'http://127.0.0.1:33419/callback'; // never listened on: the 302 is read directly

const { mode, url, issuer, scope, negotiation, opt } = clientArgs();
const authMethod = opt('auth-method');
const stepUp = opt('step-up');
const parsed = new URL(url);
const prmUrl = `${parsed.origin}/.well-known/oauth-protected-resource${parsed.pathname.replace(/\/$/, '')}`;

const { trace, fetch: traced } = recordingFetch(url);

// ---- the provider -------------------------------------------------------------
const store = {}; // what the SDK saves, for this one run
const pending = {};

const provider = {
  get redirectUrl() {
    return REDIRECT_URI;
  },
  get clientMetadata() {
    const meta = {
      client_name: 'mcp-rs-interop (ts @modelcontextprotocol/client 2.4.0)',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    if (authMethod) meta.token_endpoint_auth_method = authMethod;
    return meta;
  },
  state() {
    pending.state = randomBytes(16).toString('hex');
    return pending.state;
  },
  clientInformation: () => store.clientInformation,
  saveClientInformation(info) {
    store.clientInformation = info;
  },
  tokens: () => store.tokens,
  saveTokens(tokens) {
    store.tokens = tokens;
  },
  discoveryState: () => store.discoveryState,
  saveDiscoveryState(state) {
    store.discoveryState = state;
  },
  saveCodeVerifier(verifier) {
    pending.verifier = verifier;
  },
  codeVerifier: () => pending.verifier,
  async redirectToAuthorization(authorizationUrl) {
    // The "browser": one GET; the 302 is the answer.
    const answer = await traced(authorizationUrl, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location?.startsWith(`${REDIRECT_URI}?`)) {
      throw new Error(`/authorize answered ${answer.status} ${location ?? (await answer.text())}`);
    }
    const query = new URL(location).searchParams;
    if (query.get('error')) throw new Error(`authorization refused: ${query}`);
    if (query.get('state') !== pending.state) throw new Error(`state mismatch: ${query.get('state')}`);
    pending.code = query.get('code');
    pending.iss = query.get('iss') ?? undefined;
  },
};

// ---- run -------------------------------------------------------------------------
const { steps, need, failed, verdict } = checks();
const newTransport = () => new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: traced });
const newClient = () => new Client({ name: 'mcp-rs-interop', version: '0.1.0' }, { versionNegotiation: { mode: negotiation } });

const timer = failAfter(30000);

let redirected = false;
let callSummary = 'no call';
let firstFlowEnd = 0;
let stepUpStart; // trace index before callTool(SCOPED_TOOL)
let stepUpError; // what that first callTool threw
let scopedText;
try {
  let transport = newTransport();
  let client = newClient();
  try {
    await client.connect(transport);
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !pending.code) throw e;
    redirected = true;
    await transport.finishAuth(pending.code, pending.iss);
    pending.code = undefined; // spent; a step-up brings its own
    firstFlowEnd = trace.length;
    transport = newTransport();
    client = newClient();
    await client.connect(transport);
  }
  callSummary = await listAndCall(client, mode, need);
  if (stepUp) {
    stepUpStart = trace.length;
    let scoped;
    try {
      scoped = await client.callTool({ name: SCOPED_TOOL, arguments: {} });
    } catch (e) {
      // The transport met the 403 and redirected; the code is ours to redeem.
      if (!(e instanceof UnauthorizedError) || !pending.code) throw e;
      stepUpError = e;
      await transport.finishAuth(pending.code, pending.iss);
      scoped = await client.callTool({ name: SCOPED_TOOL, arguments: {} });
    }
    scopedText = scoped.content?.[0]?.text;
    console.log(`${SCOPED_TOOL} -> ${JSON.stringify(scopedText)}`);
    need(scopedText === SCOPED_TEXT, `${SCOPED_TOOL} returned ${JSON.stringify(scopedText)}`);
  }
  await client.close();
} catch (e) {
  failed(e, `mode=${mode}: `);
}
need(redirected, 'the client never went through the authorization redirect');

printTrace(trace, url);
const phase1 = trace.slice(0, stepUpStart ?? trace.length);
const stepUpTrace = stepUpStart === undefined ? [] : trace.slice(stepUpStart);
const at = (list, method, path) =>
  list.filter((e) => e.method === method && e.url.startsWith(issuer) && new URL(e.url).pathname === path);
const claimsOf = (token) => b64json(token.split('.')[1]);

// 1. the challenge, and the SDK's parsers on it
const first = trace[0];
const www = first?.response.headers.get('www-authenticate') ?? '';
const want = `Bearer resource_metadata="${prmUrl}", scope="${scope}"`;
need(first?.url === url && first.status === 401, `first request ${first?.url} -> ${first?.status}`);
need(!first?.headers.get('authorization'), 'the first request already carried a token');
need(www === want, `401 WWW-Authenticate ${JSON.stringify(www)}, expected ${JSON.stringify(want)}`);
console.log(`401 WWW-Authenticate: ${www}`);
if (first) {
  need(extractResourceMetadataUrl(first.response)?.href === prmUrl, 'extractResourceMetadataUrl did not read resource_metadata');
  const params = extractWWWAuthenticateParams(first.response);
  console.log(`extractWWWAuthenticateParams -> ${JSON.stringify({ ...params, resourceMetadataUrl: params.resourceMetadataUrl?.href })}`);
  need(params.resourceMetadataUrl?.href === prmUrl, `SDK resourceMetadataUrl ${params.resourceMetadataUrl}`);
  need(params.scope === scope, `SDK scope ${JSON.stringify(params.scope)}`);
  need(params.error === undefined, `SDK error ${params.error}`);
  if (params.resourceMetadataUrl?.href === prmUrl && params.scope === scope) steps.push(`401 challenge parsed (scope='${scope}')`);
}

// 2. discovery, registration, authorization
const prm = phase1.find((e) => e.url === prmUrl);
if (need(prm && prm.status === 200, 'the PRM was not fetched from resource_metadata')) {
  console.log(`PRM ${prm.url} -> ${prm.status} ${prm.text}`);
  const doc = JSON.parse(prm.text);
  need(doc.resource === url && JSON.stringify(doc.authorization_servers) === JSON.stringify([issuer]), `PRM ${prm.text}`);
  if (need(trace.indexOf(prm) === 1, 'the PRM was not the request right after the challenge')) steps.push('PRM');
}
need(at(phase1, 'GET', '/.well-known/oauth-authorization-server').some((e) => e.status === 200), 'no RFC 8414 metadata');
const registrations = at(phase1, 'POST', '/register');
let registered;
if (need(registrations.length === 1 && registrations[0].status === 201, 'one dynamic registration (201)')) {
  registered = JSON.parse(registrations[0].text).token_endpoint_auth_method;
  console.log(`register -> 201 token_endpoint_auth_method=${registered}`);
  need(registered === (authMethod ?? 'client_secret_basic'), `registered ${registered}`);
  steps.push(`register(${registered})`);
}
const checkAuthorize = (list, wantScope) => {
  const authorizes = at(list, 'GET', '/authorize');
  if (!need(authorizes.length === 1 && authorizes[0].status === 302, 'one /authorize answered 302')) return undefined;
  const q = new URL(authorizes[0].url).searchParams;
  console.log(`authorize ?${short(new URL(authorizes[0].url).search.slice(1), 400)}`);
  need(q.get('resource') === url, `authorize resource ${q.get('resource')}`);
  need(q.get('scope') === wantScope, `authorize scope ${JSON.stringify(q.get('scope'))}, expected ${JSON.stringify(wantScope)}`);
  need(q.get('code_challenge_method') === 'S256' && q.get('state'), 'PKCE S256 and state');
  steps.push(`authorize(scope='${q.get('scope')}') 302`);
  return q;
};
const firstAuthorize = checkAuthorize(phase1, scope);

// 3. the token request: the one authorization_code grant in `list`; its access token
const checkToken = (list, wantScope) => {
  const tokenRequests = at(list, 'POST', '/token').filter((e) => new URLSearchParams(e.body).get('grant_type') === 'authorization_code');
  if (!need(tokenRequests.length === 1, `${tokenRequests.length} authorization_code token requests`)) return undefined;
  const t = tokenRequests[0];
  const form = new URLSearchParams(t.body);
  console.log(`token request: POST ${t.url} Authorization: ${(t.headers.get('authorization') ?? '-').slice(0, 14)}…`);
  console.log(`  body: ${short(t.body, 400)}`);
  console.log(`  -> ${t.status} ${short(t.text, 120)}`);
  need(t.status === 200, `token endpoint ${t.status} ${t.text}`);
  need(form.get('resource') === url, `token resource ${form.get('resource')}`);
  need((form.get('code_verifier') ?? '').length >= 43, 'code_verifier');
  if (registered === 'client_secret_basic') need(t.headers.get('authorization')?.startsWith('Basic '), 'Basic client authentication');
  if (registered === 'client_secret_post') need(form.has('client_secret'), 'client_secret_post authentication');
  if (registered === 'none') need(!form.has('client_secret') && !t.headers.get('authorization'), 'public client');
  if (t.status !== 200) return undefined;
  const token = JSON.parse(t.text).access_token;
  const claims = claimsOf(token);
  console.log(`  access token claims: ${JSON.stringify(claims)}`);
  need(claims.aud === url && claims.iss === issuer, 'token aud/iss');
  need(wantScope.split(' ').every((s) => claims.scope.split(' ').includes(s)), `token scope ${claims.scope}`);
  steps.push('finishAuth: token(code+PKCE+resource)');
  return token;
};
const token = checkToken(phase1, scope);
if (token) {
  const bearer = phase1.slice(firstFlowEnd).filter((e) => e.url === url && e.headers.get('authorization') === `Bearer ${token}`);
  need(bearer.length && bearer.every((e) => e.status === 200 || e.status === 202), 'the MCP requests with the new token did not succeed');
  if (bearer.length) console.log(`after finishAuth: ${bearer.length} MCP requests with the new Bearer token, first -> ${bearer[0].status}`);
  steps.push(`reconnect: ${callSummary}`);
}

// 4. per-tool step-up
if (stepUp && need(stepUpStart !== undefined, `${SCOPED_TOOL} was never called`)) {
  const challenged = `${scope} ${stepUp}`; // what our server needs: server-wide + the tool's
  const union = [...new Set([...scope.split(' '), ...challenged.split(' ')])].join(' ');
  const calls = stepUpTrace.filter((e) => e.url === url && mcpMethod(e) === `tools/call(${SCOPED_TOOL})`);
  const refused = calls[0];
  if (need(refused?.status === 403, `${SCOPED_TOOL} with the '${scope}' token was not refused 403`)) {
    const header = refused.response.headers.get('www-authenticate') ?? '';
    console.log(`${SCOPED_TOOL} with the '${scope}' token -> 403`);
    console.log(`403 WWW-Authenticate: ${header}`);
    const escape = (t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const pattern = new RegExp(
      `^Bearer resource_metadata="${escape(prmUrl)}", scope="${escape(challenged)}", error="insufficient_scope", error_description="[^"]*"$`,
    );
    need(pattern.test(header), `403 WWW-Authenticate ${JSON.stringify(header)}`);
    const sent = (refused.headers.get('authorization') ?? '').replace(/^Bearer /, '');
    need(sent && claimsOf(sent).scope === scope, `the 403 was for a token granted other than '${scope}'`);
    const params = extractWWWAuthenticateParams(refused.response);
    console.log(`extractWWWAuthenticateParams -> ${JSON.stringify({ ...params, resourceMetadataUrl: params.resourceMetadataUrl?.href })}`);
    if (
      need(params.error === 'insufficient_scope', `SDK error ${params.error}`) &&
      need(params.scope === challenged, `SDK scope ${JSON.stringify(params.scope)}`) &&
      need(params.resourceMetadataUrl?.href === prmUrl, `SDK resourceMetadataUrl ${params.resourceMetadataUrl}`)
    ) {
      steps.push(`${SCOPED_TOOL}: 403 insufficient_scope parsed (scope='${challenged}')`);
    }
    const after = stepUpTrace.slice(stepUpTrace.indexOf(refused) + 1);
    need(stepUpError instanceof UnauthorizedError, 'callTool did not end in UnauthorizedError after the redirect');
    console.log(`callTool threw ${stepUpError?.name} after the redirect; the script called finishAuth and callTool again`);
    const rediscovered = after.filter((e) => e.method === 'GET' && e.url.includes('/.well-known/'));
    console.log(`after the 403: ${rediscovered.length} discovery requests (discovery state held from the first flow)`);
    need(at(after, 'POST', '/register').length === 0, 'step-up registered the client again');
    need(
      !at(after, 'POST', '/token').some((e) => new URLSearchParams(e.body).get('grant_type') === 'refresh_token'),
      'step-up tried a refresh (it cannot widen the scope)',
    );
    const secondAuthorize = checkAuthorize(after, union);
    if (firstAuthorize && secondAuthorize) need(secondAuthorize.get('client_id') === firstAuthorize.get('client_id'), 'step-up used another client_id');
    const stepped = checkToken(after, union);
    if (stepped) {
      need(calls.length === 2, `${calls.length} ${SCOPED_TOOL} requests, expected 403 + 200`);
      const retried = calls.slice(1).filter((e) => e.headers.get('authorization') === `Bearer ${stepped}`);
      if (need(retried.length && retried[0].status === 200, `${SCOPED_TOOL} was not sent again with the new token`)) {
        console.log(`retry tools/call(${SCOPED_TOOL}) with the new Bearer token -> ${retried[0].status}`);
        steps.push(`${SCOPED_TOOL} again -> ${JSON.stringify(scopedText)}`);
      }
    }
  }
}

clearTimeout(timer);
verdict();
