"""Drive mcp-everything (started with --oauth-issuer/--oauth-resource) with the
Python SDK client (mcp==2.3.0) and its client-credentials providers.

usage: py_cc_client.py MODE URL --issuer ISSUER --scope SCOPE
                       (--secret ID:SECRET [--auth-method client_secret_basic|client_secret_post]
                        | --jwt ID:PRIVATE_KEY_PEM)
  MODE    auto | 2026-07-28 | legacy

--secret uses ClientCredentialsOAuthProvider, --jwt PrivateKeyJWTOAuthProvider
with SignedJWTParameters (the SDK signs the assertion), both with `issuer`
set, as a user would. Every HTTP exchange is recorded and the trace checked:

  1. the first MCP request (no token) got 401, the PRM and RFC 8414 metadata
     were fetched, and there was no registration and no /authorize;
  2. one token request: grant_type=client_credentials, resource = URL, scope
     = SCOPE, authenticated as asked (Basic header, client_secret in the body,
     or a client_assertion of the jwt-bearer type whose iss = sub = ID, aud =
     ISSUER, with exp and jti, verifying with the key's public half);
  3. the token's sub and client_id are ID (no user), aud is URL;
  4. the MCP request was sent again with it; tools are listed and
     test_simple_text called in the era MODE asks for.
Credentials are never printed. Prints the key exchanges, then OK or FAIL:
reasons; exit 0 on OK.
"""

import asyncio
import json
import sys
from urllib.parse import urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)

from py_oauth_client import (
    Checks,
    MemoryStorage,
    Recorder,
    client_arg_parser,
    jwt_claims,
    list_and_call,
    mcp_client,
    print_trace,
    recording_http,
    short,
)

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def redacted_form(form):
    hidden = ("client_secret", "client_assertion")
    return "&".join(f"{k}={'<redacted>' if k in hidden else v}" for k, v in form.items())


async def main(args):
    url = args.url
    recorder = Recorder(url)
    storage = MemoryStorage()
    if args.secret:
        client_id, secret = args.secret.split(":", 1)
        method = args.auth_method
        provider = ClientCredentialsOAuthProvider(
            url, storage, client_id, secret, token_endpoint_auth_method=method, scope=args.scope,
            issuer=args.issuer,
        )
    else:
        client_id, key_path = args.jwt.split(":", 1)
        method = "private_key_jwt"
        with open(key_path) as f:
            private_pem = f.read()
        params = SignedJWTParameters(issuer=client_id, subject=client_id, signing_key=private_pem)
        provider = PrivateKeyJWTOAuthProvider(
            url, storage, client_id, params.create_assertion_provider(), scope=args.scope, issuer=args.issuer,
        )
    http = recording_http(provider, recorder)
    checks = Checks()
    need, problems, steps = checks.need, checks.problems, checks.steps

    call_summary = "no call"
    try:
        async with http, mcp_client(url, http, args.mode) as c:
            call_summary = await list_and_call(c, args.mode, need)
    except BaseException as e:  # noqa: BLE001 - an ExceptionGroup from the task groups, reported below
        while isinstance(e, BaseExceptionGroup):
            e = e.exceptions[0]
        print(f"mode={args.mode}: the client failed: {e!r}")
        problems.append(f"client error {e!r}")

    trace = recorder.trace
    print_trace(trace, url)

    def at(method, path):
        return [e for e in trace if e.method == method and e.url.startswith(args.issuer)
                and urlsplit(e.url).path == path]

    # ---- 1. challenge and discovery, no registration, no user ------------------
    first = trace[0] if trace else None
    if need(first is not None and first.url == url and first.status == 401
            and "authorization" not in first.request.headers, "the first MCP request did not get 401"):
        print(f"401 WWW-Authenticate: {first.response.headers.get('www-authenticate')}")
        steps.append("401")
    need(any(e.status == 200 and "/.well-known/oauth-protected-resource" in e.url for e in trace), "no PRM fetched")
    if need(any(e.status == 200 for e in at("GET", "/.well-known/oauth-authorization-server")),
            "no RFC 8414 metadata fetched"):
        steps.append("PRM + AS metadata")
    need(not at("POST", "/register"), "the client registered dynamically")
    need(not at("GET", "/authorize"), "the client went to /authorize")

    # ---- 2. the token request --------------------------------------------------
    tokens = at("POST", "/token")
    token = None
    if need(len(tokens) == 1, f"{len(tokens)} token requests, expected 1"):
        t = tokens[0]
        form = t.form()
        print(f"token request: POST {t.url} Authorization: {t.request.headers.get('authorization', '-').split(' ')[0]}")
        print(f"  body: {short(redacted_form(form), 400)}")
        print(f"  -> {t.status}")
        need(t.status == 200, f"token endpoint {t.status}: {t.body!r}")
        need(form.get("grant_type") == "client_credentials", f"grant_type {form.get('grant_type')}")
        need(form.get("resource") == url, f"token resource {form.get('resource')}")
        need(form.get("scope") == args.scope, f"token scope {form.get('scope')!r}")
        basic = t.request.headers.get("authorization", "").startswith("Basic ")
        if method == "client_secret_basic":
            need(basic and "client_secret" not in form, "client_secret_basic authentication")
        elif method == "client_secret_post":
            need(not basic and form.get("client_id") == client_id and "client_secret" in form,
                 "client_secret_post authentication")
        else:
            need(not basic and "client_secret" not in form, "only the assertion authenticates")
            need(form.get("client_assertion_type") == ASSERTION_TYPE, "client_assertion_type")
            assertion = form.get("client_assertion", "")
            try:
                public = serialization.load_pem_private_key(private_pem.encode(), None).public_key()
                claims = jwt.decode(assertion, public, algorithms=["RS256", "ES256"], audience=args.issuer,
                                    issuer=client_id, options={"require": ["exp", "jti", "sub"]})
                print(f"  assertion: alg={jwt.get_unverified_header(assertion).get('alg')} "
                      f"iss={claims['iss']} sub={claims['sub']} aud={claims['aud']} "
                      f"lifetime={claims['exp'] - claims.get('iat', claims['exp'])}s")
                need(claims["sub"] == client_id, f"assertion sub {claims['sub']}")
            except (jwt.PyJWTError, KeyError, ValueError) as e:
                need(False, f"the assertion does not verify as RFC 7523 §3 asks: {e}")
        if t.status == 200:
            token = json.loads(t.body)["access_token"]
            claims = jwt_claims(token)
            print(f"  access token: sub={claims.get('sub')} client_id={claims.get('client_id')} "
                  f"aud={claims.get('aud')} scope={claims.get('scope')!r}")
            need(claims.get("sub") == client_id and claims.get("client_id") == client_id, "token sub/client_id")
            need(claims.get("aud") == url and claims.get("iss") == args.issuer, "token aud/iss")
            steps.append(f"token(client_credentials, {method})")

    # ---- 3. the MCP request again, with the token ---------------------------------
    if token:
        bearer = [e for e in trace if e.url == url and e.request.headers.get("authorization") == f"Bearer {token}"]
        if need(bearer and all(e.status in (200, 202) for e in bearer), "the MCP requests with the token failed"):
            steps.append(call_summary)

    return checks.verdict()


if __name__ == "__main__":
    ap = client_arg_parser()
    who = ap.add_mutually_exclusive_group(required=True)
    who.add_argument("--secret", metavar="ID:SECRET")
    who.add_argument("--jwt", metavar="ID:PRIVATE_KEY_PEM")
    ap.add_argument("--auth-method", default="client_secret_basic",
                    choices=["client_secret_basic", "client_secret_post"])
    sys.exit(asyncio.run(main(ap.parse_args())))
