"""Drive mcp-everything (started with --oauth-issuer/--oauth-resource) with the
Python SDK client (mcp==2.3.0) and its OAuth support, headless.

usage: py_oauth_client.py MODE URL --issuer ISSUER --scope SCOPE
                          [--auth-method none|client_secret_basic|client_secret_post]
                          [--refresh-after SECONDS] [--step-up TOOL_SCOPE]
  MODE    auto | 2026-07-28 | legacy
  URL     the MCP endpoint (also the resource the server protects)

The SDK's OAuthClientProvider does the flow; no browser: the redirect handler
GETs the authorization URL itself (the authorization server stand-in,
interop/oauth_as.py, approves at once), reads code, state and iss from the
302's Location, and the callback handler hands them back. Every HTTP exchange
goes through a recording transport, and the script then checks the trace:

  1. the first MCP request (no token) got 401 with exactly
     `Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource<path>", scope="SCOPE"`,
     and the SDK's own parsers read resource_metadata and scope from it;
  2. the next request fetched that resource_metadata URL (RFC 9728) and got
     resource = URL and authorization_servers = [ISSUER];
  3. RFC 8414 metadata, RFC 7591 registration (with --auth-method, or the
     client's default), /authorize with resource, scope, S256 PKCE and state;
  4. the token request: authorization_code, resource = URL, a code_verifier,
     the client authentication of the registered method; a JWT whose aud is
     URL and whose scope is SCOPE;
  5. the MCP request was sent again with that bearer token and succeeded;
     tools are listed and test_simple_text is called in the era MODE asks for.
  --refresh-after S: wait S seconds (the token's lifetime), call again, and
     require a refresh_token grant (with resource) and a successful call.
  --step-up TOOL_SCOPE: then call test_scoped_write, which needs TOOL_SCOPE
     besides SCOPE: the call with the SCOPE token must get 403
     insufficient_scope naming `SCOPE TOOL_SCOPE`; the SDK must re-authorize
     inline (no new registration) asking for the union, and the same call,
     sent again with the new token, must succeed.
Prints the key exchanges, then OK or FAIL: reasons; exit 0 on OK.
"""

import argparse
import asyncio
import base64
import json
import re
import sys
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.auth.utils import (
    extract_field_from_www_auth,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

EXPECTED_TEXT = "This is a simple text response for testing."
SCOPED_TOOL = "test_scoped_write"  # mcp-everything's tool with #[tool(scopes = ["mcp:write"])]
SCOPED_TEXT = "Scoped write done"
REDIRECT_URI = "http://127.0.0.1:33418/callback"  # never listened on: the script reads the 302 itself


class Sent:
    """What a request was when it went out (the auth flow later edits the same
    object: it adds the token and sends it again)."""

    def __init__(self, request):
        self.method = request.method
        self.url = request.url
        self.headers = httpx2.Headers(request.headers)
        self.content = request.content


class Exchange:
    def __init__(self, request, response, body):
        self.request = Sent(request)
        self.response = response
        self.body = body  # response body (not for MCP responses, which may stream)

    @property
    def method(self):
        return self.request.method

    @property
    def url(self):
        return str(self.request.url)

    @property
    def status(self):
        return self.response.status_code

    def form(self):
        return {k: v[0] for k, v in parse_qs(self.request.content.decode()).items()}


class Recorder(httpx2.AsyncBaseTransport):
    """Passes every request on and keeps (request, response) in order."""

    def __init__(self, mcp_url):
        self.inner = httpx2.AsyncHTTPTransport()
        self.mcp_url = mcp_url
        self.trace = []

    async def handle_async_request(self, request):
        response = await self.inner.handle_async_request(request)
        body = None
        if str(request.url) != self.mcp_url:
            body = await response.aread()
            response = httpx2.Response(
                response.status_code, headers=response.headers, content=body, request=request,
                extensions=response.extensions,
            )
        self.trace.append(Exchange(request, response, body))
        return response

    async def aclose(self):
        await self.inner.aclose()


class MemoryStorage:
    """TokenStorage for this one run, kept as JSON (the round trip a file store makes)."""

    def __init__(self):
        self.data = {}

    async def get_tokens(self):
        t = self.data.get("tokens")
        return OAuthToken.model_validate(t) if t else None

    async def set_tokens(self, tokens):
        self.data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)

    async def get_client_info(self):
        c = self.data.get("client_info")
        return OAuthClientInformationFull.model_validate(c) if c else None

    async def set_client_info(self, client_info):
        self.data["client_info"] = client_info.model_dump(mode="json", exclude_none=True)


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def short(text, n=160):
    return text if len(text) <= n else text[:n] + f"...({len(text)} bytes)"


def mcp_method(exchange):
    try:
        message = json.loads(exchange.request.content)
    except ValueError:
        return exchange.method
    method = message.get("method", "response")
    if method == "tools/call":
        return f"tools/call({message.get('params', {}).get('name')})"
    return method


def client_arg_parser():
    """The command line both client checks start from: MODE URL --issuer --scope."""
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["auto", "2026-07-28", "legacy"])
    ap.add_argument("url")
    ap.add_argument("--issuer", required=True)
    ap.add_argument("--scope", required=True)
    return ap


def print_trace(trace, mcp_url):
    """One line an exchange; of a credential only its scheme."""
    for e in trace:
        tag = mcp_method(e) if e.url == mcp_url else ""
        auth = e.request.headers.get("authorization", "")
        auth = (auth.split(" ")[0] + " …") if auth else "-"
        print(f"  {e.method} {short(e.url, 110)} {tag} auth={auth} -> {e.status}")


class Checks:
    """What failed (`problems`) and what was shown (`steps`, for the OK line)."""

    def __init__(self):
        self.problems = []
        self.steps = []

    def need(self, cond, what):
        """Notes `what` unless `cond`; returns `cond`."""
        if not cond:
            self.problems.append(what)
        return cond

    def verdict(self):
        """Prints `FAIL: problems` or `OK: steps`; the exit code."""
        if self.problems:
            print("FAIL: " + "; ".join(self.problems))
            return 1
        print("OK: " + " -> ".join(self.steps))
        return 0


def recording_http(provider, recorder):
    """The httpx2 client the SDK is given: `provider` does the auth, `recorder` records."""
    return httpx2.AsyncClient(
        auth=provider, transport=recorder, timeout=httpx2.Timeout(30, read=300), follow_redirects=False
    )


def mcp_client(url, http, mode):
    """The SDK's client for `url` over `http`, in the era `mode` asks for."""
    return Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=15)


async def list_and_call(c, mode, need):
    """tools/list and tools/call(test_simple_text) in session `c`, checked
    against the era `mode` asks for; the summary for the OK line."""
    version = str(c.protocol_version)
    era = "legacy" if version.startswith(("2024", "2025")) else "modern"
    tools = [t.name for t in (await c.list_tools()).tools]
    result = await c.call_tool("test_simple_text", {})
    text = result.content[0].text if result.content else None
    print(f"mode={mode} era={era} version={version} tools={len(tools)} call -> {text!r}")
    need(text == EXPECTED_TEXT, f"test_simple_text returned {text!r}")
    need(era == ("legacy" if mode == "legacy" else "modern"), f"era {era} for mode {mode}")
    return f"{era} {version}: tools/list + tools/call ok"


async def main(args):
    url = args.url
    parts = urlsplit(url)
    prm_url = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path.rstrip('/')}"
    recorder = Recorder(url)
    authorization = {}

    async def redirect_handler(authorization_url):
        # The "browser": one GET, no redirect following; the 302 is the answer.
        async with httpx2.AsyncClient(transport=recorder, follow_redirects=False, timeout=10) as browser:
            answer = await browser.get(authorization_url)
        if answer.status_code != 302:
            raise RuntimeError(f"/authorize answered {answer.status_code}: {answer.text}")
        location = answer.headers["location"]
        if not location.startswith(REDIRECT_URI + "?"):
            raise RuntimeError(f"redirected elsewhere: {location}")
        query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        if "error" in query:
            raise RuntimeError(f"authorization refused: {query}")
        authorization.update(query)

    async def callback_handler():
        return AuthorizationCodeResult(
            code=authorization.pop("code"), state=authorization.pop("state", None), iss=authorization.pop("iss", None)
        )

    metadata = OAuthClientMetadata(
        client_name="mcp-rs-interop (python mcp 2.3.0)",
        redirect_uris=[REDIRECT_URI],
        token_endpoint_auth_method=None if args.auth_method == "default" else args.auth_method,
    )
    storage = MemoryStorage()
    provider = OAuthClientProvider(url, metadata, storage, redirect_handler, callback_handler)
    http = recording_http(provider, recorder)
    checks = Checks()
    need, problems, steps = checks.need, checks.problems, checks.steps

    first_call_end = None
    step_up_start = None
    call_summary = "no call"
    scoped_text = None
    try:
        async with http, mcp_client(url, http, args.mode) as c:
            call_summary = await list_and_call(c, args.mode, need)
            first_call_end = len(recorder.trace)
            if args.refresh_after:
                await asyncio.sleep(args.refresh_after)
                again = await c.call_tool("test_simple_text", {})
                need(again.content and again.content[0].text == EXPECTED_TEXT, "the call after the refresh failed")
            if args.step_up:
                # The step-up happens inside this one call: the SDK's auth
                # flow meets the 403, re-authorizes and sends it again.
                step_up_start = len(recorder.trace)
                scoped = await c.call_tool(SCOPED_TOOL, {})
                scoped_text = scoped.content[0].text if scoped.content else None
                print(f"{SCOPED_TOOL} -> {scoped_text!r}")
                need(scoped_text == SCOPED_TEXT, f"{SCOPED_TOOL} returned {scoped_text!r}")
    except BaseException as e:  # noqa: BLE001 - an ExceptionGroup from the task groups, reported below
        print(f"mode={args.mode}: the client failed: {e!r}")
        while isinstance(e, BaseExceptionGroup):
            e = e.exceptions[0]
        problems.append(f"client error {e!r}")
    if first_call_end is None:
        first_call_end = len(recorder.trace)

    trace = recorder.trace
    print_trace(trace, url)

    # ---- 1. the challenge ------------------------------------------------------
    first = trace[0]
    www = first.response.headers.get("www-authenticate", "")
    want = f'Bearer resource_metadata="{prm_url}", scope="{args.scope}"'
    need(first.url == url and first.status == 401, f"first request: {first.method} {first.url} -> {first.status}")
    need("authorization" not in first.request.headers, "the first request already carried a token")
    need(www == want, f"401 WWW-Authenticate {www!r}, expected {want!r}")
    print(f"401 WWW-Authenticate: {www}")
    if need(extract_resource_metadata_from_www_auth(first.response) == prm_url, "SDK did not read resource_metadata") \
            and need(extract_scope_from_www_auth(first.response) == args.scope, "SDK did not read scope"):
        steps.append(f"401 challenge parsed (scope={args.scope!r})")

    # ---- 2. protected resource metadata ------------------------------------------
    second = trace[1] if len(trace) > 1 else None
    if need(second is not None and second.method == "GET" and second.url == prm_url,
            f"after the challenge the client fetched {second and second.url}, not {prm_url}"):
        prm = json.loads(second.body)
        print(f"PRM {second.url} -> {second.status} {second.body.decode()}")
        if need(second.status == 200 and prm.get("resource") == url
                and prm.get("authorization_servers") == [args.issuer], f"PRM {prm}"):
            steps.append("PRM")

    # ---- 3. metadata, registration, authorization ---------------------------------
    def find(method, path, start=0, end=first_call_end):
        return [e for e in trace[start:end] if e.method == method and urlsplit(e.url).path == path
                and e.url.startswith(args.issuer)]

    need(any(e.status == 200 for e in find("GET", "/.well-known/oauth-authorization-server")),
         "no RFC 8414 metadata fetched")
    registrations = find("POST", "/register")
    registered = None
    if need(len(registrations) == 1 and registrations[0].status == 201, "one dynamic registration (201)"):
        reg = json.loads(registrations[0].body)
        registered = reg.get("token_endpoint_auth_method")
        want_method = "client_secret_basic" if args.auth_method == "default" else args.auth_method
        need(registered == want_method, f"registered {registered}")
        print(f"register -> {registrations[0].status} token_endpoint_auth_method={registered}")
        steps.append(f"register({registered})")

    def check_authorize(authorizes, want_scope):
        if not need(len(authorizes) == 1 and authorizes[0].status == 302, "one /authorize answered 302"):
            return None
        q = {k: v[0] for k, v in parse_qs(urlsplit(authorizes[0].url).query).items()}
        print(f"authorize ?{urlsplit(authorizes[0].url).query[:400]}")
        need(q.get("resource") == url, f"authorize resource {q.get('resource')}")
        need(q.get("scope") == want_scope, f"authorize scope {q.get('scope')!r}, expected {want_scope!r}")
        need(q.get("code_challenge_method") == "S256", "PKCE S256")
        need(bool(q.get("state")), "state")
        steps.append(f"authorize(scope={q.get('scope')!r}) 302")
        print(f"  -> 302 Location: {short(authorizes[0].response.headers['location'], 200)}")
        return q

    first_authorize = check_authorize(find("GET", "/authorize"), args.scope)

    # ---- 4. the token request ----------------------------------------------------
    def check_token(exchanges, want_scope):
        """The one authorization_code grant among `exchanges`; its access token."""
        tokens = [e for e in exchanges if e.form().get("grant_type") == "authorization_code"]
        if not need(len(tokens) == 1, f"{len(tokens)} authorization_code token requests"):
            return None
        t = tokens[0]
        form = t.form()
        print(f"token request: POST {t.url} Authorization: {t.request.headers.get('authorization', '-')[:14]}…")
        print(f"  body: {short(t.request.content.decode(), 400)}")
        print(f"  -> {t.status} {short(t.body.decode(), 120)}")
        need(t.status == 200, f"token endpoint {t.status}: {t.body!r}")
        need(form.get("resource") == url, f"token resource {form.get('resource')}")
        need(len(form.get("code_verifier", "")) >= 43, "code_verifier")
        if registered == "client_secret_basic":
            need(t.request.headers.get("authorization", "").startswith("Basic "), "Basic client authentication")
        if registered == "client_secret_post":
            need("client_secret" in form, "client_secret_post authentication")
        if registered == "none":
            need("client_secret" not in form and "authorization" not in t.request.headers, "public client")
        if t.status != 200:
            return None
        access = json.loads(t.body)["access_token"]
        claims = jwt_claims(access)
        print(f"  access token claims: {json.dumps(claims)}")
        need(claims.get("aud") == url and claims.get("iss") == args.issuer, "token aud/iss")
        need(set(want_scope.split()) <= set(claims.get("scope", "").split()), f"token scope {claims.get('scope')}")
        steps.append("token(code+PKCE+resource)")
        return access

    token = check_token(find("POST", "/token"), args.scope)

    # ---- 5. the retried request -----------------------------------------------------
    if token:
        bearer = [e for e in trace[:first_call_end] if e.url == url and e.request.headers.get("authorization") == f"Bearer {token}"]
        need(bearer and bearer[0].status in (200, 202), "the MCP request was not retried with the new token")
        if bearer:
            print(f"retry {mcp_method(bearer[0])} with Bearer token -> {bearer[0].status}")
            steps.append(call_summary)

    if args.refresh_after:
        refreshes = [e for e in trace[first_call_end:] if urlsplit(e.url).path == "/token"
                     and e.form().get("grant_type") == "refresh_token"]
        if need(refreshes and all(e.status == 200 for e in refreshes), "no successful refresh_token grant"):
            r = refreshes[-1]
            print(f"refresh: body {short(r.request.content.decode(), 200)} -> {r.status}")
            need(r.form().get("resource") == url, "refresh without resource")
            new = json.loads(r.body)["access_token"]
            after = [e for e in trace[first_call_end:] if e.url == url and e.request.headers.get("authorization") == f"Bearer {new}"]
            if need(after and after[-1].status == 200, "no MCP request with the refreshed token"):
                steps.append("refresh_token grant + call")

    # ---- 6. per-tool step-up ----------------------------------------------------------
    if args.step_up and need(step_up_start is not None, f"{SCOPED_TOOL} was never called"):
        segment = trace[step_up_start:]
        calls = [e for e in segment if e.url == url and mcp_method(e) == f"tools/call({SCOPED_TOOL})"]
        refused = calls[0] if calls else None
        challenged = f"{args.scope} {args.step_up}"  # what our server needs: server-wide + the tool's
        union = " ".join(dict.fromkeys(args.scope.split() + challenged.split()))
        if need(refused is not None and refused.status == 403, f"{SCOPED_TOOL} with the {args.scope!r} token was not refused 403"):
            www = refused.response.headers.get("www-authenticate", "")
            print(f"{SCOPED_TOOL} with the {args.scope!r} token -> 403")
            print(f"403 WWW-Authenticate: {www}")
            pattern = (
                rf'^Bearer resource_metadata="{re.escape(prm_url)}", scope="{re.escape(challenged)}", '
                r'error="insufficient_scope", error_description="[^"]*"$'
            )
            need(re.match(pattern, www), f"403 WWW-Authenticate {www!r}")
            # The first token, or its refresh if it expired meanwhile: granted SCOPE only.
            sent = refused.request.headers.get("authorization", "").removeprefix("Bearer ")
            need(sent and jwt_claims(sent).get("scope") == args.scope, f"the 403 was for a token granted other than {args.scope!r}")
            if need(extract_field_from_www_auth(refused.response, "error") == "insufficient_scope", "SDK did not read error") \
                    and need(extract_scope_from_www_auth(refused.response) == challenged, "SDK did not read scope") \
                    and need(extract_resource_metadata_from_www_auth(refused.response) == prm_url,
                             "SDK did not read resource_metadata"):
                steps.append(f"{SCOPED_TOOL}: 403 insufficient_scope parsed (scope={challenged!r})")
            after = trace.index(refused) + 1
            rediscovered = [e for e in trace[after:] if e.method == "GET" and "/.well-known/" in e.url]
            print(f"after the 403: {len(rediscovered)} discovery requests (metadata held from the first flow)")
            need(not find("POST", "/register", after, None), "step-up registered the client again")
            second_authorize = check_authorize(find("GET", "/authorize", after, None), union)
            if first_authorize and second_authorize:
                need(second_authorize.get("client_id") == first_authorize.get("client_id"), "step-up used another client_id")
            stepped = check_token(find("POST", "/token", after, None), union)
            if stepped:
                retried = [e for e in calls[1:] if e.request.headers.get("authorization") == f"Bearer {stepped}"]
                need(len(calls) == 2, f"{len(calls)} {SCOPED_TOOL} requests for one call_tool, expected 403 + 200")
                if need(retried and retried[0].status == 200, f"{SCOPED_TOOL} was not sent again with the new token"):
                    print(f"retry tools/call({SCOPED_TOOL}) with the new Bearer token -> {retried[0].status}")
                    steps.append(f"{SCOPED_TOOL} sent again -> {scoped_text!r}")

    return checks.verdict()


if __name__ == "__main__":
    ap = client_arg_parser()
    ap.add_argument("--auth-method", default="default",
                    choices=["default", "none", "client_secret_basic", "client_secret_post"])
    ap.add_argument("--refresh-after", type=float, default=0)
    ap.add_argument("--step-up", metavar="TOOL_SCOPE")
    args = ap.parse_args()
    sys.exit(asyncio.run(main(args)))
