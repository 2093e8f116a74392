"""The client credentials grant for the oauth_as.py stand-in.

RFC 6749 §4.4 for clients PRE-REGISTERED on the command line (the MCP
extension `oauth-client-credentials` uses no dynamic registration):

  --client ID:SECRET        authenticates with client_secret_basic
  --client-post ID:SECRET   authenticates with client_secret_post
  --jwt-client ID:PEM_FILE  authenticates with private_key_jwt (RFC 7523 §2.2):
                            PEM_FILE is the client's public key, RSA (RS256)
                            or EC P-256 (ES256)

The assertion is checked as RFC 7523 §3 asks: signature with the registered
key and algorithm, iss = sub = the client_id (and client_id, if sent, the
same), aud naming this server (its issuer or its token endpoint URL), exp in
the future, jti not seen before; client_assertion_type exactly
`urn:ietf:params:oauth:client-assertion-type:jwt-bearer`. Every failure is
`invalid_client` 401 (RFC 7521 §4.2.1). The grant then needs `resource` (RFC
8707) one of --resource and a scope within --scopes; the token's `sub` is the
client_id (no user) and comes without a refresh token (RFC 6749 §4.4.3).
"""

import secrets
import threading
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SIGNING_ALGS = ("RS256", "ES256")
# Clock skew allowed on exp, nbf and iat, in seconds.
SKEW = 30


class Error(Exception):
    """An OAuth error answer; oauth_as.py answers it like its own."""

    def __init__(self, status, error, description):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description


def add_arguments(ap):
    ap.add_argument("--client", action="append", default=[], metavar="ID:SECRET",
                    help="a pre-registered client_credentials client (client_secret_basic)")
    ap.add_argument("--client-post", action="append", default=[], metavar="ID:SECRET",
                    help="a pre-registered client_credentials client (client_secret_post)")
    ap.add_argument("--jwt-client", action="append", default=[], metavar="ID:PUBLIC_KEY_PEM",
                    help="a pre-registered client_credentials client (private_key_jwt)")


def split_pair(value, what):
    client_id, sep, rest = value.partition(":")
    if not sep or not client_id or not rest:
        raise SystemExit(f"{what} wants ID:VALUE, got {value!r}")
    return client_id, rest


def load_public_key(path):
    """The key and the one algorithm assertions signed with it may use."""
    with open(path, "rb") as f:
        key = serialization.load_pem_public_key(f.read())
    if isinstance(key, rsa.RSAPublicKey):
        return key, "RS256"
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return key, "ES256"
    raise SystemExit(f"{path}: only RSA and EC P-256 public keys are supported")


def preregistered(args):
    """client_id -> client record, from the command line."""
    clients = {}

    def base(client_id, method):
        if client_id in clients:
            raise SystemExit(f"client {client_id!r} given twice")
        return {
            "client_id": client_id,
            "token_endpoint_auth_method": method,
            "grant_types": ["client_credentials"],
            "redirect_uris": [],
        }

    for value, method in [(v, "client_secret_basic") for v in args.client] + [
        (v, "client_secret_post") for v in args.client_post
    ]:
        client_id, secret = split_pair(value, "--client")
        clients[client_id] = {**base(client_id, method), "client_secret": secret}
    for value in args.jwt_client:
        client_id, path = split_pair(value, "--jwt-client")
        key, alg = load_public_key(path)
        clients[client_id] = {**base(client_id, "private_key_jwt"), "public_key": key, "alg": alg}
    return clients


class Replay:
    """The (client_id, jti) pairs seen, each kept until its assertion expires."""

    def __init__(self):
        self.seen = {}
        self.lock = threading.Lock()

    def first_use(self, client_id, jti, exp):
        now = time.time()
        with self.lock:
            self.seen = {k: v for k, v in self.seen.items() if v + SKEW >= now}
            if (client_id, jti) in self.seen:
                return False
            self.seen[(client_id, jti)] = exp
            return True


def authenticate_assertion(state, headers, form):
    """The client a `client_assertion` authenticates (RFC 7523 §2.2, §3)."""
    if headers.get("Authorization") or "client_secret" in form:  # RFC 7521 §4.2.1
        raise Error(401, "invalid_client", "more than one client authentication method")
    if form.get("client_assertion_type") != ASSERTION_TYPE:
        raise Error(401, "invalid_client", f"client_assertion_type must be {ASSERTION_TYPE}")
    assertion = form.get("client_assertion", "")
    try:
        header = jwt.get_unverified_header(assertion)
        unverified = jwt.decode(assertion, options={"verify_signature": False})
    except jwt.PyJWTError as e:
        raise Error(401, "invalid_client", f"client_assertion is not a JWT: {e}")
    subject = unverified.get("sub")
    if not isinstance(subject, str) or not subject:
        raise Error(401, "invalid_client", "the assertion has no sub (the client_id)")
    if form.get("client_id", subject) != subject:
        raise Error(401, "invalid_client", "client_id differs from the assertion's sub")
    client = state.clients.get(subject)
    if client is None:
        raise Error(401, "invalid_client", "unknown client")
    if client["token_endpoint_auth_method"] != "private_key_jwt":
        raise Error(401, "invalid_client",
                    f"client registered for {client['token_endpoint_auth_method']} authenticated with private_key_jwt")
    if header.get("alg") != client["alg"]:
        raise Error(401, "invalid_client", f"assertion alg {header.get('alg')!r}, the client's key is {client['alg']}")
    try:
        claims = jwt.decode(
            assertion,
            client["public_key"],
            algorithms=[client["alg"]],
            audience=[state.issuer, f"{state.issuer}/token"],
            issuer=subject,
            leeway=SKEW,
            options={"require": ["iss", "sub", "aud", "exp", "jti"], "strict_aud": False},
        )
    except jwt.PyJWTError as e:
        raise Error(401, "invalid_client", f"client_assertion refused: {type(e).__name__}: {e}")
    if not isinstance(claims["jti"], str) or not claims["jti"]:
        raise Error(401, "invalid_client", "jti must be a non-empty string")
    if not state.replay.first_use(subject, claims["jti"], claims["exp"]):
        raise Error(401, "invalid_client", "the assertion's jti was used before")
    return client


def grant(state, client, form, jkt=None):
    """RFC 6749 §4.4.2: the token request of an authenticated client."""
    if "client_credentials" not in client["grant_types"]:
        raise Error(400, "unauthorized_client", "this client may not use the client_credentials grant")
    resource = form.get("resource")
    if not resource:
        raise Error(400, "invalid_target", "resource (RFC 8707) is required")
    if resource not in state.resources:
        raise Error(400, "invalid_target", f"unknown resource {resource}")
    requested = form.get("scope", "").split()
    if state.scopes is not None and not set(requested) <= state.scopes:
        raise Error(400, "invalid_scope", f"unknown scope in {form.get('scope')!r}")
    return 200, state.issue(client, resource, " ".join(requested), subject=client["client_id"], jkt=jkt)


def metadata(meta):
    """The RFC 8414 fields this grant adds."""
    meta["grant_types_supported"] = meta["grant_types_supported"] + ["client_credentials"]
    meta["token_endpoint_auth_methods_supported"] = meta["token_endpoint_auth_methods_supported"] + ["private_key_jwt"]
    meta["token_endpoint_auth_signing_alg_values_supported"] = list(SIGNING_ALGS)
    return meta


def self_test(call, expect, issuer, resource, secret_client, jwt_client, dcr_client):
    """The self-test cases of this grant, against a running stand-in.

    call(method, path, body, headers) -> (status, location, json);
    expect(case, got, want) records a case; secret_client is (ID, SECRET) of
    a --client, jwt_client (ID, PRIVATE_KEY_PEM_PATH) of a --jwt-client,
    dcr_client a dynamically registered client_secret_basic client."""
    import base64
    from urllib.parse import urlencode

    def token(form, basic=None):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if basic:
            headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
        status, _, body = call("POST", "/token", urlencode(form), headers)
        return status, body or {}

    def refused(answer):
        return answer[0], answer[1].get("error")

    meta = call("GET", "/.well-known/oauth-authorization-server")[2]
    expect("metadata: client_credentials, private_key_jwt, signing algs",
           ("client_credentials" in meta["grant_types_supported"],
            "private_key_jwt" in meta["token_endpoint_auth_methods_supported"],
            meta.get("token_endpoint_auth_signing_alg_values_supported")),
           (True, True, list(SIGNING_ALGS)))
    cc = {"grant_type": "client_credentials", "resource": resource, "scope": "mcp:read"}
    if secret_client:
        client_id, secret = secret_client
        status, answer = token(cc, basic=secret_client)
        expect("client_credentials + client_secret_basic", status, 200)
        if status == 200:
            claims = jwt.decode(answer["access_token"], options={"verify_signature": False})
            expect("token: sub and client_id are the client, aud the resource, no refresh token",
                   (claims["sub"], claims["client_id"], claims["aud"], "refresh_token" in answer),
                   (client_id, client_id, resource, False))
        expect("bad client secret", refused(token(cc, basic=(client_id, secret + "x"))), (401, "invalid_client"))
        expect("unknown client", refused(token(cc, basic=("nobody", secret))), (401, "invalid_client"))
        expect("secret in the body of a client_secret_basic client",
               refused(token({**cc, "client_id": client_id, "client_secret": secret})), (401, "invalid_client"))
        expect("scope outside --scopes", refused(token({**cc, "scope": "mcp:admin"}, basic=secret_client)),
               (400, "invalid_scope"))
        expect("no resource", refused(token({k: v for k, v in cc.items() if k != "resource"}, basic=secret_client)),
               (400, "invalid_target"))
        expect("another resource", refused(token({**cc, "resource": "http://elsewhere/mcp"}, basic=secret_client)),
               (400, "invalid_target"))
        expect("refresh_token grant by a client_credentials client",
               refused(token({"grant_type": "refresh_token", "refresh_token": "x"}, basic=secret_client)),
               (400, "unauthorized_client"))
    expect("client_credentials by a client registered for authorization_code",
           refused(token(cc, basic=(dcr_client["client_id"], dcr_client["client_secret"]))),
           (400, "unauthorized_client"))
    if not jwt_client:
        return
    client_id, key_path = jwt_client
    with open(key_path, "rb") as f:
        private_key = serialization.load_pem_private_key(f.read(), password=None)
    alg = "RS256" if isinstance(private_key, rsa.RSAPrivateKey) else "ES256"

    def assertion(key=private_key, algorithm=alg, **over):
        now = int(time.time())
        claims = {"iss": client_id, "sub": client_id, "aud": issuer, "iat": now, "exp": now + 60,
                  "jti": secrets.token_hex(12)}
        claims.update(over)
        return jwt.encode({k: v for k, v in claims.items() if v is not None}, key, algorithm=algorithm)

    def with_assertion(signed, **over):
        form = {**cc, "client_assertion_type": ASSERTION_TYPE, "client_assertion": signed}
        form.update(over)
        return token({k: v for k, v in form.items() if v is not None})

    good = assertion()
    status, answer = with_assertion(good)
    expect("client_credentials + private_key_jwt (aud = issuer, no client_id)", status, 200)
    if status == 200:
        claims = jwt.decode(answer["access_token"], options={"verify_signature": False})
        expect("token sub is the client", (claims["sub"], claims["client_id"]), (client_id, client_id))
    expect("replayed jti", refused(with_assertion(good)), (401, "invalid_client"))
    expect("aud = token endpoint, client_id sent", with_assertion(assertion(aud=f"{issuer}/token"),
                                                                   client_id=client_id)[0], 200)
    expect("wrong aud", refused(with_assertion(assertion(aud="http://elsewhere"))), (401, "invalid_client"))
    expect("no aud", refused(with_assertion(assertion(aud=None))), (401, "invalid_client"))
    expect("expired assertion", refused(with_assertion(assertion(exp=int(time.time()) - 2 * SKEW))),
           (401, "invalid_client"))
    expect("no exp", refused(with_assertion(assertion(exp=None))), (401, "invalid_client"))
    expect("no jti", refused(with_assertion(assertion(jti=None))), (401, "invalid_client"))
    expect("iss differs from sub", refused(with_assertion(assertion(iss="someone-else"))), (401, "invalid_client"))
    expect("unknown client (sub)", refused(with_assertion(assertion(iss="nobody", sub="nobody"))),
           (401, "invalid_client"))
    expect("client_id differs from sub", refused(with_assertion(assertion(), client_id="nobody")),
           (401, "invalid_client"))
    other = (rsa.generate_private_key(public_exponent=65537, key_size=2048) if alg == "RS256"
             else ec.generate_private_key(ec.SECP256R1()))
    expect("signed by another key", refused(with_assertion(assertion(key=other))), (401, "invalid_client"))
    expect("alg none", refused(with_assertion(assertion(key=None, algorithm="none"))), (401, "invalid_client"))
    expect("wrong client_assertion_type",
           refused(with_assertion(assertion(), client_assertion_type="urn:ietf:params:oauth:client-assertion-type:saml2-bearer")),
           (401, "invalid_client"))
    expect("no client_assertion_type", refused(with_assertion(assertion(), client_assertion_type=None)),
           (401, "invalid_client"))
    expect("assertion not a JWT", refused(with_assertion("not-a-jwt")), (401, "invalid_client"))
    if secret_client:
        status, _, answer = call("POST", "/token", urlencode({**cc, "client_assertion_type": ASSERTION_TYPE,
                                                              "client_assertion": assertion()}),
                                 {"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic "
                                  + base64.b64encode(f"{secret_client[0]}:{secret_client[1]}".encode()).decode()})
        expect("assertion and Basic credentials at once", (status, (answer or {}).get("error")), (401, "invalid_client"))
    expect("scope outside --scopes (private_key_jwt)", refused(with_assertion(assertion(), scope="mcp:admin")),
           (400, "invalid_scope"))
    if secret_client:
        expect("assertion for a client_secret client",
               refused(with_assertion(assertion(iss=secret_client[0], sub=secret_client[0]))),
               (401, "invalid_client"))
