// A DPoP-bound token from the authorization-server stand-in (oauth_as.py
// --dpop --dpop-nonce), asked for by the TypeScript SDK
// (@modelcontextprotocol/client@2.4.0) with its own DPoP support: an
// independent RFC 9449 implementation against the stand-in's proof checks.
//
// usage: node ts_dpop_token.mjs ISSUER RESOURCE --scope SCOPE --secret ID:SECRET
//
// A ClientCredentialsProvider whose dpop() returns one DpopSession (the
// documented way to turn DPoP on), then discoverAuthorizationServerMetadata
// and fetchToken, as auth() does for this grant. The trace must show:
//   1. the metadata advertises dpop_signing_alg_values_supported;
//   2. a token request carrying a DPoP proof refused 400 use_dpop_nonce with
//      a DPoP-Nonce header (RFC 9449 §8), then the same request with a new
//      proof carrying that nonce (new jti) answered 200;
//   3. token_type DPoP and an access token whose cnf.jkt is the session's
//      RFC 7638 thumbprint.
// The resource server is not involved (DPoP at our server is separate work).
// Credentials are never printed. Prints the exchanges, then OK or FAIL.
import { ClientCredentialsProvider, DpopSession, discoverAuthorizationServerMetadata, fetchToken } from '@modelcontextprotocol/client';
import { b64json, checks, failAfter, option, recordingFetch } from './oauth_trace.mjs';

const argv = process.argv.slice(2);
const [issuer, resource] = argv;
const scope = option(argv, 'scope');
const secretArg = option(argv, 'secret', '');
const clientId = secretArg.slice(0, secretArg.indexOf(':'));
const clientSecret = secretArg.slice(secretArg.indexOf(':') + 1);
// Every exchange recorded (the resource is never fetched, so each with its text).
const { trace, fetch: traced } = recordingFetch(resource);

const { need, failed, verdict } = checks();
const timer = failAfter(30000);

let tokens;
let session;
try {
  session = await DpopSession.create();
  const provider = new ClientCredentialsProvider({ clientId, clientSecret, scope, expectedIssuer: issuer });
  provider.dpop = () => session;
  const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: traced });
  need(Array.isArray(metadata?.dpop_signing_alg_values_supported), 'the metadata does not advertise DPoP');
  tokens = await fetchToken(provider, issuer, { metadata, resource: new URL(resource), scope, fetchFn: traced });
} catch (e) {
  failed(e);
}

// The token requests, each with its DPoP proof and the DPoP-Nonce of its answer.
const requests = trace
  .filter((e) => e.method === 'POST' && new URL(e.url).pathname === '/token')
  .map((e) => ({ ...e, proof: e.headers.get('dpop'), nonce: e.response.headers.get('dpop-nonce') }));
for (const e of requests) {
  const claims = e.proof ? b64json(e.proof.split('.')[1]) : undefined;
  const header = e.proof ? b64json(e.proof.split('.')[0]) : undefined;
  const body = JSON.parse(e.text || '{}');
  const shown = header
    ? `typ=${header.typ} alg=${header.alg} htm=${claims.htm} htu=${claims.htu} nonce=${claims.nonce ? 'yes' : 'no'}`
    : '-';
  const answer = `${body.error ?? body.token_type ?? ''}${e.nonce ? ' DPoP-Nonce' : ''}`;
  console.log(`POST ${e.url} DPoP: ${shown} -> ${e.status} ${answer}`);
}
if (need(requests.length === 2, `${requests.length} token requests, expected 2 (nonce challenge, retry)`)) {
  const [challenged, retried] = requests;
  need(challenged.proof && challenged.status === 400 && JSON.parse(challenged.text).error === 'use_dpop_nonce' && challenged.nonce,
    'the first request was not answered use_dpop_nonce with a DPoP-Nonce');
  const first = challenged.proof ? b64json(challenged.proof.split('.')[1]) : {};
  const second = retried.proof ? b64json(retried.proof.split('.')[1]) : {};
  need(retried.status === 200 && second.nonce === challenged.nonce, 'the retry did not carry the nonce or was refused');
  need(first.jti && second.jti && first.jti !== second.jti, 'the retry reused the proof jti');
}
if (tokens) {
  const claims = b64json(tokens.access_token.split('.')[1]);
  console.log(
    `token_type=${tokens.token_type} cnf=${JSON.stringify(claims.cnf)} ` +
      `session thumbprint=${session.thumbprint} alg=${session.alg} sub=${claims.sub}`,
  );
  need(tokens.token_type === 'DPoP', `token_type ${tokens.token_type}`);
  need(claims.cnf?.jkt === session.thumbprint, 'cnf.jkt is not the session key thumbprint');
  need(claims.sub === clientId && claims.aud === resource, 'token sub/aud');
}
clearTimeout(timer);
verdict(() => `${session.alg} proof -> 400 use_dpop_nonce -> proof with nonce -> 200 token_type DPoP, cnf.jkt = the SDK's thumbprint`);
