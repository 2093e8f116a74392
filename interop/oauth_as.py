"""An OAuth 2.1 authorization-server STAND-IN for the interop tests.

NOT an authorization server to deploy: it keeps everything in memory, signs
with a key it generates at start-up, has no users and approves every
authorization request without asking anybody. It exists so that real MCP
clients (the Python and TypeScript SDKs) can run their whole OAuth flow
headless against `mcp-everything http --oauth-issuer ... --oauth-resource ...`.

What it does check is what a client must get right on the wire:

  GET  /.well-known/oauth-authorization-server   RFC 8414 metadata (also served
       at /.well-known/openid-configuration)
  GET  /jwks                                     the public signing key (RS256)
  POST /register                                 RFC 7591 dynamic registration:
       redirect_uris required; token_endpoint_auth_method none |
       client_secret_basic (the RFC 7591 default) | client_secret_post
  GET  /authorize                                auto-approves: client_id known,
       redirect_uri registered, response_type=code, code_challenge_method=S256
       with a well-formed code_challenge, state present, resource (RFC 8707) one
       of --resource, scope within --scopes; 302 to redirect_uri with code,
       state and iss (RFC 9207)
  POST /token                                    authorization_code (client auth
       by the registered method, redirect_uri equal, PKCE S256 verified,
       resource equal to the authorization's), refresh_token (rotated;
       resource and scope may only narrow) and client_credentials for the
       clients pre-registered on the command line (oauth_as_cc.py: secret or
       private_key_jwt, RFC 7523); a JWT access token (RFC 9068 shape) with
       iss, aud = resource, sub (the client_id for client_credentials),
       client_id, scope, iat, nbf, exp, jti; with --dpop and a DPoP proof
       bound to its key (oauth_as_dpop.py, RFC 9449: cnf.jkt, token_type DPoP)

Every request and answer is appended to --log as one JSON line, so a test can
quote the exchanges (credentials and tokens redacted).

usage: oauth_as.py --port N [--host 127.0.0.1] [--resource URL]...
                   [--scopes "a b"] [--token-ttl SECONDS] [--log FILE]
                   [--client ID:SECRET]... [--client-post ID:SECRET]...
                   [--jwt-client ID:PUBLIC_KEY_PEM]... [--dpop [--dpop-nonce]]
       oauth_as.py self-test ISSUER RESOURCE [--client ID:SECRET]
                   [--jwt-client ID:PRIVATE_KEY_PEM]
                   (against a running one: the mistakes above are refused;
                   with a --client also the client_credentials and DPoP
                   cases; exit 1 if one is not)
Only the standard library, PyJWT and cryptography (both installed in the
peers' venv by mcp==2.3.0).
"""

import argparse
import base64
import hashlib
import json
import re
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

import oauth_as_cc as cc
import oauth_as_dpop as dpop

AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")  # for dynamic registration
GRANT_TYPES = ("authorization_code", "refresh_token", "client_credentials")
PKCE = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")
CODE_TTL = 60
# Credentials never reach the log: these form/JSON values and the
# Authorization header's credentials are replaced.
SECRET_VALUE = re.compile(r'("?(?:client_secret|client_assertion|access_token|refresh_token)"?\s*[=:]\s*"?)[^&",\s]+')


def redact(text):
    return SECRET_VALUE.sub(r"\1<redacted>", text)


class Error(Exception):
    """An OAuth error answer: status, `error`, `error_description`."""

    def __init__(self, status, error, description):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description


class State:
    def __init__(self, issuer, resources, scopes, token_ttl, clients=None, dpop_state=None):
        self.issuer = issuer
        self.resources = resources
        self.scopes = scopes
        self.token_ttl = token_ttl
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "interop-" + secrets.token_hex(4)
        jwk = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        jwk.pop("key_ops", None)  # RFC 7517 §4.3: not together with "use"
        jwk.update(kid=self.kid, use="sig", alg="RS256")
        self.jwks = {"keys": [jwk]}
        # client_id -> registered metadata (with the secret or public key);
        # the pre-registered client_credentials clients first.
        self.clients = dict(clients or {})
        self.replay = cc.Replay()  # private_key_jwt assertions seen
        self.dpop = dpop_state or dpop.Dpop(False, False)
        self.codes = {}  # code -> grant
        self.refresh = {}  # refresh token -> grant
        self.lock = threading.Lock()

    def metadata(self):
        meta = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "registration_endpoint": f"{self.issuer}/register",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
            "authorization_response_iss_parameter_supported": True,
        }
        if self.scopes is not None:
            meta["scopes_supported"] = sorted(self.scopes)
        return self.dpop.metadata(cc.metadata(meta))

    # ---- RFC 7591 ------------------------------------------------------------
    def register(self, body):
        try:
            meta = json.loads(body or b"{}")
        except ValueError:
            raise Error(400, "invalid_client_metadata", "the body is not JSON")
        if not isinstance(meta, dict):
            raise Error(400, "invalid_client_metadata", "the body is not a JSON object")
        uris = meta.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise Error(400, "invalid_redirect_uri", "redirect_uris must be a non-empty list of strings")
        for uri in uris:
            parts = urlsplit(uri)
            if not parts.scheme or parts.fragment or (parts.scheme in ("http", "https") and not parts.netloc):
                raise Error(400, "invalid_redirect_uri", f"not an absolute URI without fragment: {uri}")
            if parts.scheme == "http" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
                raise Error(400, "invalid_redirect_uri", f"http redirect URIs must be loopback: {uri}")
        method = meta.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in AUTH_METHODS:
            raise Error(400, "invalid_client_metadata", f"unsupported token_endpoint_auth_method {method!r}")
        grant_types = meta.get("grant_types", ["authorization_code"])
        if not isinstance(grant_types, list) or "authorization_code" not in grant_types:
            raise Error(400, "invalid_client_metadata", "grant_types must include authorization_code")
        unknown = set(grant_types) - {"authorization_code", "refresh_token"}
        if unknown:
            raise Error(400, "invalid_client_metadata", f"unsupported grant_types {sorted(unknown)}")
        response_types = meta.get("response_types", ["code"])
        if response_types != ["code"]:
            raise Error(400, "invalid_client_metadata", "response_types must be [\"code\"]")
        client = dict(meta)
        client.update(
            client_id="client-" + secrets.token_urlsafe(12),
            client_id_issued_at=int(time.time()),
            token_endpoint_auth_method=method,
            grant_types=grant_types,
            response_types=response_types,
        )
        if method != "none":
            client.update(client_secret=secrets.token_urlsafe(24), client_secret_expires_at=0)
        with self.lock:
            self.clients[client["client_id"]] = client
        return 201, client

    # ---- authorization endpoint ---------------------------------------------
    def authorize(self, query):
        params = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}
        repeated = [k for k, v in parse_qs(query, keep_blank_values=True).items() if len(v) > 1]
        client = self.clients.get(params.get("client_id", ""))
        # Without a known client and one of its redirect URIs, nothing may be
        # redirected (RFC 6749 §4.1.2.1): a plain 400.
        if client is None:
            raise Error(400, "invalid_client", "unknown client_id")
        redirect_uri = params.get("redirect_uri")
        if redirect_uri not in client["redirect_uris"]:
            raise Error(400, "invalid_request", "redirect_uri is missing or not registered for this client")
        state = params.get("state")

        def refuse(error, description):
            answer = {"error": error, "error_description": description, "iss": self.issuer}
            if state is not None:
                answer["state"] = state
            return 302, redirect_to(redirect_uri, answer)

        if repeated:
            return refuse("invalid_request", f"repeated parameters {repeated}")
        if params.get("response_type") != "code":
            return refuse("unsupported_response_type", "response_type must be code")
        if not state:
            return refuse("invalid_request", "state is required by this stand-in")
        if params.get("code_challenge_method") != "S256":
            return refuse("invalid_request", "code_challenge_method must be S256")
        if not PKCE.match(params.get("code_challenge", "")):
            return refuse("invalid_request", "code_challenge is missing or malformed")
        resource = params.get("resource")
        if not resource:
            return refuse("invalid_target", "resource (RFC 8707) is required")
        if resource not in self.resources:
            return refuse("invalid_target", f"unknown resource {resource}")
        scope = params.get("scope", "")
        requested = scope.split()
        if self.scopes is not None and not set(requested) <= self.scopes:
            return refuse("invalid_scope", f"unknown scope in {scope!r}")
        code = secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = {
                "client_id": client["client_id"],
                "redirect_uri": redirect_uri,
                "code_challenge": params["code_challenge"],
                "resource": resource,
                "scope": " ".join(requested),
                "expires": time.time() + CODE_TTL,
            }
        return 302, redirect_to(redirect_uri, {"code": code, "state": state, "iss": self.issuer})

    # ---- token endpoint -----------------------------------------------------
    def authenticate_client(self, headers, form):
        if "client_assertion" in form or "client_assertion_type" in form:
            return cc.authenticate_assertion(self, headers, form)
        basic = headers.get("Authorization", "")
        if basic.lower().startswith("basic "):
            try:
                decoded = base64.b64decode(basic[6:].strip(), validate=True).decode()
                raw_id, raw_secret = decoded.split(":", 1)
            except ValueError:
                raise Error(401, "invalid_client", "malformed Basic credentials")
            # RFC 6749 §2.3.1: both parts are form-encoded before Basic encoding.
            client_id, secret, method = unquote_plus(raw_id), unquote_plus(raw_secret), "client_secret_basic"
            if "client_secret" in form:
                raise Error(400, "invalid_request", "more than one client authentication method")
            if form.get("client_id", client_id) != client_id:
                raise Error(400, "invalid_request", "client_id in the body differs from the Basic one")
        elif "client_secret" in form:
            client_id, secret, method = form.get("client_id", ""), form["client_secret"], "client_secret_post"
        else:
            client_id, secret, method = form.get("client_id", ""), None, "none"
        client = self.clients.get(client_id)
        if client is None:
            raise Error(401, "invalid_client", "unknown client")
        if client["token_endpoint_auth_method"] != method:
            raise Error(
                401,
                "invalid_client",
                f"client registered for {client['token_endpoint_auth_method']} authenticated with {method}",
            )
        if method != "none" and not secrets.compare_digest(secret, client["client_secret"]):
            raise Error(401, "invalid_client", "wrong client secret")
        return client

    def token(self, headers, body):
        form_lists = parse_qs(body.decode(), keep_blank_values=True)
        repeated = [k for k, v in form_lists.items() if len(v) > 1 and k != "resource"]
        if repeated:
            raise Error(400, "invalid_request", f"repeated parameters {repeated}")
        form = {k: v[0] for k, v in form_lists.items()}
        if len(form_lists.get("resource", [])) > 1:
            raise Error(400, "invalid_target", "one resource at a time, please")
        jkt = self.dpop.check(headers, "POST", f"{self.issuer}/token")  # None without a DPoP proof
        client = self.authenticate_client(headers, form)
        grant_type = form.get("grant_type")
        if grant_type in GRANT_TYPES and grant_type not in client["grant_types"]:
            raise Error(400, "unauthorized_client", f"the client did not register the {grant_type} grant")
        if grant_type == "client_credentials":
            return cc.grant(self, client, form, jkt)
        if grant_type == "authorization_code":
            with self.lock:
                grant = self.codes.pop(form.get("code", ""), None)
            if grant is None or grant["expires"] < time.time() or grant["client_id"] != client["client_id"]:
                raise Error(400, "invalid_grant", "unknown, used, expired or another client's code")
            if form.get("redirect_uri") != grant["redirect_uri"]:
                raise Error(400, "invalid_grant", "redirect_uri differs from the authorization request's")
            verifier = form.get("code_verifier", "")
            if not PKCE.match(verifier):
                raise Error(400, "invalid_request", "code_verifier is missing or malformed")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
            if not secrets.compare_digest(challenge, grant["code_challenge"]):
                raise Error(400, "invalid_grant", "PKCE verification failed")
            if form.get("resource") != grant["resource"]:
                raise Error(400, "invalid_target", "resource differs from the authorization request's")
            return 200, self.issue(client, grant["resource"], grant["scope"], jkt=jkt)
        if grant_type == "refresh_token":
            presented = form.get("refresh_token", "")
            with self.lock:
                grant = self.refresh.get(presented)
            if grant is None or grant["client_id"] != client["client_id"]:
                raise Error(400, "invalid_grant", "unknown, used or another client's refresh token")
            if grant.get("jkt") and grant["jkt"] != jkt:  # RFC 9449 §5: bound to the public client's key
                raise Error(400, "invalid_grant", "the refresh token is bound to another DPoP key")
            resource = form.get("resource", grant["resource"])
            if resource != grant["resource"]:
                raise Error(400, "invalid_target", "resource differs from the original grant's")
            scope = form.get("scope")
            if scope is not None and not set(scope.split()) <= set(grant["scope"].split()):
                raise Error(400, "invalid_scope", "a refresh may not widen the scope")
            with self.lock:  # rotated: the one presented is spent
                if self.refresh.pop(presented, None) is None:
                    raise Error(400, "invalid_grant", "refresh token used concurrently")
            return 200, self.issue(client, resource, grant["scope"] if scope is None else scope, jkt=jkt)
        raise Error(400, "unsupported_grant_type", f"grant_type {grant_type!r}")

    def issue(self, client, resource, scope, subject="interop-user", jkt=None):
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": resource,
            "client_id": client["client_id"],
            "scope": scope,
            "iat": now,
            "nbf": now,
            "exp": now + self.token_ttl,
            "jti": secrets.token_hex(8),
        }
        if jkt:
            claims["cnf"] = {"jkt": jkt}  # RFC 9449 §6.1
        access = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})
        answer = {"access_token": access, "token_type": "DPoP" if jkt else "Bearer", "expires_in": self.token_ttl,
                  "scope": scope}
        if "refresh_token" in client["grant_types"]:
            refresh = secrets.token_urlsafe(24)
            grant = {"client_id": client["client_id"], "resource": resource, "scope": scope}
            if jkt and client["token_endpoint_auth_method"] == "none":
                grant["jkt"] = jkt
            with self.lock:
                self.refresh[refresh] = grant
            answer["refresh_token"] = refresh
        return answer


def redirect_to(uri, params):
    return uri + ("&" if urlsplit(uri).query else "?") + urlencode(params)


def make_handler(state, log):
    log_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def record(self, status, headers, body):
            entry = {
                "at": round(time.time(), 3),
                "method": self.command,
                "path": self.path,
                "request_headers": {
                    k: v.split(" ")[0] + " <redacted>" if k.lower() in ("authorization", "dpop") else v
                    for k, v in self.headers.items()
                    if k.lower() in ("authorization", "content-type", "accept", "dpop")
                },
                "request_body": redact(self.request_body.decode(errors="replace")),
                "status": status,
                "response_headers": headers,
                "response_body": redact(body.decode(errors="replace")),
            }
            if log is not None:
                with log_lock:
                    log.write(json.dumps(entry) + "\n")
                    log.flush()

        def answer(self, status, payload=None, location=None, extra=None):
            body = b"" if payload is None else json.dumps(payload).encode()
            headers = dict(extra or {})
            if payload is not None:
                headers["Content-Type"] = "application/json"
                headers["Cache-Control"] = "no-store"
            if location is not None:
                headers["Location"] = location
            if status == 401:
                headers["WWW-Authenticate"] = 'Basic realm="oauth-as-stand-in"'
            # Browser-based clients (and Node's fetch in CORS mode) may look.
            headers["Access-Control-Allow-Origin"] = "*"
            headers["Content-Length"] = str(len(body))
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
            self.record(status, headers, body)

        def dispatch(self):
            length = int(self.headers.get("Content-Length") or 0)
            self.request_body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            route = (self.command, parts.path)
            try:
                if route in (
                    ("GET", "/.well-known/oauth-authorization-server"),
                    ("GET", "/.well-known/openid-configuration"),
                ):
                    return self.answer(200, state.metadata())
                if route == ("GET", "/jwks"):
                    return self.answer(200, state.jwks)
                if route == ("POST", "/register"):
                    return self.answer(*state.register(self.request_body))
                if route == ("GET", "/authorize"):
                    status, location = state.authorize(parts.query)
                    return self.answer(status, location=location)
                if route == ("POST", "/token"):
                    ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
                    if ctype != "application/x-www-form-urlencoded":
                        raise Error(400, "invalid_request", f"token requests are forms, not {ctype!r}")
                    return self.answer(*state.token(self.headers, self.request_body))
                return self.answer(404, {"error": "not_found", "error_description": self.path})
            except (Error, cc.Error, dpop.Error) as e:
                answer = {"error": e.error, "error_description": e.description}
                return self.answer(e.status, answer, extra=getattr(e, "headers", None))

        do_GET = dispatch
        do_POST = dispatch

    return Handler


def self_test(issuer, resource, cc_secret=None, cc_jwt=None):
    """Against a running stand-in: what a client gets wrong is refused (so a
    passing client flow means something). Prints one line per case; exit 1 on
    any surprise. cc_secret (ID, SECRET) is a --client, cc_jwt (ID,
    PRIVATE_KEY_PEM_PATH) a --jwt-client, for the client_credentials cases."""
    import http.client
    from urllib.parse import urlencode as enc

    host = urlsplit(issuer).netloc
    redirect = "http://127.0.0.1:33400/cb"

    def call(method, path, body=None, headers=None):
        conn = http.client.HTTPConnection(host, timeout=10)
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, r.getheader("Location"), json.loads(data) if data else None

    def register(method):
        meta = {"redirect_uris": [redirect], "token_endpoint_auth_method": method,
                "grant_types": ["authorization_code", "refresh_token"]}
        return call("POST", "/register", json.dumps(meta), {"Content-Type": "application/json"})[2]

    verifier = "v" * 43
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")

    def authorize(client, **over):
        q = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect, "state": "s1",
             "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource, "scope": ""}
        q.update(over)
        q = {k: v for k, v in q.items() if v is not None}
        status, location, body = call("GET", "/authorize?" + enc(q))
        got = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()} if location else body
        return status, got

    def token(form, client=None, basic=False):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if basic:
            creds = f"{client['client_id']}:{client['client_secret']}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(creds).decode()
        return call("POST", "/token", enc(form), headers)

    public, secret = register("none"), register("client_secret_basic")
    failures = []

    def expect(case, got, want):
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {case}: {got}")
        if not ok:
            failures.append(case)

    expect("unknown client", authorize({"client_id": "nobody"})[0], 400)
    expect("unregistered redirect_uri", authorize(public, redirect_uri="http://127.0.0.1:1/x")[0], 400)
    expect("plain PKCE", authorize(public, code_challenge_method="plain")[1].get("error"), "invalid_request")
    expect("no state", authorize(public, state=None)[1].get("error"), "invalid_request")
    expect("no resource", authorize(public, resource=None)[1].get("error"), "invalid_target")
    expect("other resource", authorize(public, resource="http://elsewhere/mcp")[1].get("error"), "invalid_target")
    expect("unknown scope", authorize(public, scope="root")[1].get("error"), "invalid_scope")

    def code_for(client):
        return authorize(client)[1]["code"]

    base = {"grant_type": "authorization_code", "redirect_uri": redirect, "code_verifier": verifier,
            "resource": resource}
    code = code_for(public)
    expect("wrong code_verifier", token({**base, "client_id": public["client_id"], "code": code,
                                         "code_verifier": "w" * 43})[2]["error"], "invalid_grant")
    expect("code reused after a failure", token({**base, "client_id": public["client_id"], "code": code})[2]["error"],
           "invalid_grant")
    expect("token resource differs", token({**base, "client_id": public["client_id"], "code": code_for(public),
                                            "resource": resource + "/other"})[2]["error"], "invalid_target")
    expect("secret client without its secret", token({**base, "client_id": secret["client_id"],
                                                      "code": code_for(secret)})[0], 401)
    expect("Basic for a public client", token({**base, "code": code_for(public)},
                                              {**public, "client_secret": "x"}, basic=True)[0], 401)
    status, _, answer = token({**base, "code": code_for(secret)}, secret, basic=True)
    expect("good exchange (client_secret_basic)", status, 200)
    if status == 200:
        claims = jwt.decode(answer["access_token"], options={"verify_signature": False})
        expect("aud is the resource", claims["aud"], resource)
        refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"]}
        expect("refresh widening the scope", token({**refresh, "scope": "mcp:admin"}, secret, basic=True)[2]["error"],
               "invalid_scope")
        status, _, again = token(refresh, secret, basic=True)
        expect("refresh (rotated)", (status, again.get("refresh_token") != answer["refresh_token"]), (200, True))
        expect("old refresh token", token(refresh, secret, basic=True)[2]["error"], "invalid_grant")
    cc.self_test(call, expect, issuer, resource, cc_secret, cc_jwt, secret)
    if cc_secret:
        def public_code():
            client = register("none")
            return client["client_id"], {**base, "client_id": client["client_id"], "code": code_for(client)}

        dpop.self_test(expect, issuer, resource, cc_secret, public_code)
    return 1 if failures else 0


def main():
    if sys.argv[1:2] == ["self-test"]:
        tp = argparse.ArgumentParser(prog="oauth_as.py self-test")
        tp.add_argument("issuer")
        tp.add_argument("resource")
        tp.add_argument("--client", metavar="ID:SECRET", help="a --client given to the stand-in")
        tp.add_argument("--jwt-client", metavar="ID:PRIVATE_KEY_PEM", help="a --jwt-client's private key")
        t = tp.parse_args(sys.argv[2:])
        sys.exit(self_test(
            t.issuer,
            t.resource,
            cc.split_pair(t.client, "--client") if t.client else None,
            cc.split_pair(t.jwt_client, "--jwt-client") if t.jwt_client else None,
        ))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--resource", action="append", default=[], help="a resource (RFC 8707) tokens may be for")
    ap.add_argument("--scopes", help="space-separated scopes this server knows (default: any)")
    ap.add_argument("--token-ttl", type=int, default=3600, help="access token lifetime in seconds")
    ap.add_argument("--log", help="append every exchange to this file as JSON lines")
    cc.add_arguments(ap)
    dpop.add_arguments(ap)
    args = ap.parse_args()
    issuer = f"http://{args.host}:{args.port}"
    scopes = None if args.scopes is None else set(args.scopes.split())
    state = State(issuer, set(args.resource), scopes, args.token_ttl, cc.preregistered(args),
                  dpop.Dpop(args.dpop, args.dpop_nonce))
    log = open(args.log, "a") if args.log else None
    server = ThreadingHTTPServer((args.host, args.port), make_handler(state, log))
    server.daemon_threads = True
    print(f"oauth_as stand-in: issuer {issuer}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
