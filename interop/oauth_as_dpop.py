"""DPoP at the token endpoint of the oauth_as.py stand-in (RFC 9449).

With --dpop the stand-in advertises `dpop_signing_alg_values_supported` and
checks a `DPoP` header on a token request as RFC 9449 §4.3 lists: one header,
a JWT with typ `dpop+jwt`, an asymmetric alg it supports, a public `jwk`
(no private members) that verifies the signature, `jti`, `htm` = POST, `htu`
= the token endpoint (query and fragment ignored), `iat` within the window,
the `jti` not seen before, and with --dpop-nonce a `nonce` it handed out
(else 400 `use_dpop_nonce` with a fresh `DPoP-Nonce`, §8). Any other failure
is 400 `invalid_dpop_proof` (§5). The token it then issues is bound to the key:
`cnf.jkt` = the RFC 7638 SHA-256 thumbprint of the `jwk` (§6.1) and
`token_type` DPoP (§5); a public client's refresh token is bound to it too
(§5). Without a `DPoP` header the token is a Bearer one, as before.
"""

import base64
import hashlib
import json
import secrets
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import jwt

ALGS = ("ES256", "RS256", "PS256")
# How far iat may lie in the past / future, in seconds.
IAT_PAST, IAT_FUTURE = 60, 10
NONCE_TTL = 300
THUMBPRINT_MEMBERS = {"RSA": ("e", "kty", "n"), "EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}
PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")


class Error(Exception):
    """An OAuth error answer with extra response headers (`DPoP-Nonce`)."""

    def __init__(self, status, error, description, headers=None):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description
        self.headers = headers or {}


def add_arguments(ap):
    ap.add_argument("--dpop", action="store_true", help="bind tokens to a DPoP key when a proof is sent (RFC 9449)")
    ap.add_argument("--dpop-nonce", action="store_true", help="require a server-provided nonce in DPoP proofs")


def thumbprint(jwk):
    """RFC 7638: SHA-256 over the required members, sorted, no whitespace."""
    members = THUMBPRINT_MEMBERS.get(jwk.get("kty"))
    if members is None or not all(isinstance(jwk.get(m), str) for m in members):
        raise Error(400, "invalid_dpop_proof", "jwk is not an RSA, EC or OKP public key")
    canonical = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).decode().rstrip("=")


def comparable(uri):
    """A URI without query and fragment, scheme and host lower-cased, default
    port dropped; None for what is not a URI."""
    try:
        parts = urlsplit(uri)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if port is not None and (parts.scheme.lower(), port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path or "/", "", ""))


class Dpop:
    """The stand-in's DPoP state: nonces handed out, proof jtis seen."""

    def __init__(self, enabled, require_nonce):
        self.enabled = enabled
        self.require_nonce = require_nonce
        self.nonces = {}  # nonce -> expiry
        self.seen = {}  # jti -> when it may be forgotten
        self.lock = threading.Lock()

    def metadata(self, meta):
        if self.enabled:
            meta["dpop_signing_alg_values_supported"] = list(ALGS)
        return meta

    def fresh_nonce(self):
        nonce = secrets.token_urlsafe(16)
        with self.lock:
            now = time.time()
            self.nonces = {n: t for n, t in self.nonces.items() if t > now}
            self.nonces[nonce] = now + NONCE_TTL
        return nonce

    def check(self, headers, method, url):
        """The jkt a token request's DPoP proof binds to, or None without one."""
        proofs = headers.get_all("DPoP") or []
        if not self.enabled or not proofs:
            return None
        if len(proofs) != 1:
            raise Error(400, "invalid_dpop_proof", "more than one DPoP header")
        proof = proofs[0]
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError as e:
            raise Error(400, "invalid_dpop_proof", f"the DPoP proof is not a JWT: {e}")
        if header.get("typ") != "dpop+jwt":
            raise Error(400, "invalid_dpop_proof", "typ must be dpop+jwt")
        alg = header.get("alg")
        if alg not in ALGS:
            raise Error(400, "invalid_dpop_proof", f"alg {alg!r} is not one of {list(ALGS)}")
        jwk = header.get("jwk")
        if not isinstance(jwk, dict):
            raise Error(400, "invalid_dpop_proof", "the header has no jwk")
        if any(m in jwk for m in PRIVATE_MEMBERS):
            raise Error(400, "invalid_dpop_proof", "the jwk holds private key material")
        jkt = thumbprint(jwk)
        try:
            key = jwt.PyJWK(jwk, algorithm=alg).key
            claims = jwt.decode(proof, key, algorithms=[alg],
                                options={"require": ["jti", "htm", "htu", "iat"], "verify_iat": False})
        except (jwt.PyJWTError, ValueError, TypeError, KeyError) as e:  # a malformed jwk too
            raise Error(400, "invalid_dpop_proof", f"the DPoP proof does not verify: {type(e).__name__}: {e}")
        if claims["htm"] != method:
            raise Error(400, "invalid_dpop_proof", f"htm {claims['htm']!r}, the request is {method}")
        if not isinstance(claims["htu"], str) or comparable(claims["htu"]) != comparable(url):
            raise Error(400, "invalid_dpop_proof", f"htu {claims['htu']!r} is not {url}")
        now = time.time()
        iat = claims["iat"]
        if not isinstance(iat, (int, float)) or not now - IAT_PAST <= iat <= now + IAT_FUTURE:
            raise Error(400, "invalid_dpop_proof", "iat is outside the acceptable window")
        if self.require_nonce:
            nonce = claims.get("nonce")
            with self.lock:
                known = isinstance(nonce, str) and self.nonces.get(nonce, 0) > now
            if not known:
                raise Error(400, "use_dpop_nonce", "a DPoP nonce from this server is required",
                            {"DPoP-Nonce": self.fresh_nonce()})
        jti = claims["jti"]
        if not isinstance(jti, str) or not jti:
            raise Error(400, "invalid_dpop_proof", "jti must be a non-empty string")
        with self.lock:
            self.seen = {j: t for j, t in self.seen.items() if t > now}
            if jti in self.seen:
                raise Error(400, "invalid_dpop_proof", "the proof's jti was used before")
            self.seen[jti] = now + IAT_PAST + IAT_FUTURE
        return jkt


def self_test(expect, issuer, resource, cc_secret, public_code):
    """The DPoP cases, against a running stand-in.

    expect(case, got, want) records a case; cc_secret is (ID, SECRET) of a
    --client (client_secret_basic); public_code() -> (client_id, form) gives
    an authorization_code token request of a public client, ready to send."""
    import http.client
    from urllib.parse import urlencode

    from cryptography.hazmat.primitives.asymmetric import ec
    from jwt.algorithms import ECAlgorithm

    host = urlsplit(issuer).netloc
    token_url = f"{issuer}/token"

    def call(method, path, form=None, headers=None):
        conn = http.client.HTTPConnection(host, timeout=10)
        conn.request(method, path, body=urlencode(form) if form else None, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, r.getheader("DPoP-Nonce"), json.loads(data) if data else {}

    meta = call("GET", "/.well-known/oauth-authorization-server")[2]
    enabled = "dpop_signing_alg_values_supported" in meta
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
    # RFC 7638 §3.2, written out: members in lexicographic order, no spaces.
    jkt = base64.urlsafe_b64encode(hashlib.sha256(
        f'{{"crv":"{jwk["crv"]}","kty":"EC","x":"{jwk["x"]}","y":"{jwk["y"]}"}}'.encode()
    ).digest()).decode().rstrip("=")
    state = {"nonce": None}

    def proof(signer=key, header_jwk=None, typ="dpop+jwt", alg="ES256", **over):
        claims = {"jti": secrets.token_hex(12), "htm": "POST", "htu": token_url, "iat": int(time.time()),
                  "nonce": state["nonce"]}
        claims.update(over)
        headers = {"typ": typ, "jwk": header_jwk or jwk}
        return jwt.encode({k: v for k, v in claims.items() if v is not None}, signer, algorithm=alg,
                          headers=headers)

    basic = "Basic " + base64.b64encode(f"{cc_secret[0]}:{cc_secret[1]}".encode()).decode()
    cc = {"grant_type": "client_credentials", "resource": resource, "scope": "mcp:read"}

    def token(dpop_proof=None, form=cc, auth=basic):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if auth:
            headers["Authorization"] = auth
        if dpop_proof:
            headers["DPoP"] = dpop_proof
        return call("POST", "/token", form, headers)

    def refused(answer):
        return answer[0], answer[2].get("error")

    if not enabled:
        status, _, answer = token(proof())
        expect("DPoP off: a proof is ignored, the token is Bearer", (status, answer.get("token_type")), (200, "Bearer"))
        return
    expect("metadata: dpop_signing_alg_values_supported", meta["dpop_signing_alg_values_supported"], list(ALGS))
    status, nonce, answer = token(proof())
    if answer.get("error") == "use_dpop_nonce":
        expect("proof without a nonce: use_dpop_nonce with a DPoP-Nonce", (status, bool(nonce)), (400, True))
        state["nonce"] = nonce
        expect("proof with an unknown nonce", refused(token(proof(nonce="made-up"))), (400, "use_dpop_nonce"))
    first = proof()
    status, _, answer = token(first)
    expect("client_credentials with a DPoP proof: token_type DPoP", (status, answer.get("token_type")), (200, "DPoP"))
    if status == 200:
        claims = jwt.decode(answer["access_token"], options={"verify_signature": False})
        expect("cnf.jkt is the RFC 7638 thumbprint of the proof's key", claims.get("cnf"), {"jkt": jkt})
    expect("replayed proof (same jti)", refused(token(first)), (400, "invalid_dpop_proof"))
    expect("htu with a query (ignored)", token(proof(htu=token_url + "?x=1"))[0], 200)
    expect("wrong htm", refused(token(proof(htm="GET"))), (400, "invalid_dpop_proof"))
    expect("wrong htu", refused(token(proof(htu=f"{issuer}/authorize"))), (400, "invalid_dpop_proof"))
    expect("iat ten minutes old", refused(token(proof(iat=int(time.time()) - 600))), (400, "invalid_dpop_proof"))
    expect("typ JWT", refused(token(proof(typ="JWT"))), (400, "invalid_dpop_proof"))
    expect("symmetric alg (HS256)", refused(token(proof(signer="k" * 32, alg="HS256"))), (400, "invalid_dpop_proof"))
    private_jwk = json.loads(ECAlgorithm.to_jwk(key))
    expect("private key in the jwk", refused(token(proof(header_jwk=private_jwk))), (400, "invalid_dpop_proof"))
    other = ec.generate_private_key(ec.SECP256R1())
    expect("signed by another key than the jwk", refused(token(proof(signer=other))), (400, "invalid_dpop_proof"))
    expect("not a JWT", refused(token("not-a-jwt")), (400, "invalid_dpop_proof"))
    status, _, answer = token(None)
    expect("no DPoP header: a Bearer token", (status, answer.get("token_type")), (200, "Bearer"))
    # RFC 9449 §5: a public client's refresh token is bound to the key.
    client_id, form = public_code()
    status, _, answer = token(proof(), form=form, auth=None)
    expect("public client, code + DPoP proof", (status, answer.get("token_type")), (200, "DPoP"))
    if status == 200 and "refresh_token" in answer:
        refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": client_id}
        other_jwk = ECAlgorithm.to_jwk(other.public_key(), as_dict=True)
        expect("refresh with another key's proof", refused(token(proof(signer=other, header_jwk=other_jwk),
                                                                  form=refresh, auth=None)), (400, "invalid_grant"))
        expect("refresh without a proof", refused(token(None, form=refresh, auth=None)), (400, "invalid_grant"))
        status, _, again = token(proof(), form=refresh, auth=None)
        expect("refresh with the same key", (status, again.get("token_type")), (200, "DPoP"))
