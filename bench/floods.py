#!/usr/bin/env python3
"""The two floods of an outside probe (issue 43), against release builds.

usage: python3 bench/floods.py BIN_DIR [dpop|otel ...]

BIN_DIR holds `mcp-everything` and `mcp-everything-otel`, built with
`cargo build --release -p mcp-everything --features auth,otel`. Needs PyJWT
and cryptography (`pip install pyjwt cryptography`) for the DPoP flood.

  dpop  `mcp-everything http --oauth-dpop` behind a stand-in issuer (its
        metadata and the JWKS of mcp-server/tests/auth/key1): 100,500 DPoP
        proofs under the token `x` with a throwaway key, from 4 threads,
        while a valid DPoP client (an RS256 token bound by `cnf.jkt` to its
        own P-256 key) calls a tool twice a second; then once more. Before
        the fix every such proof took a place in the replay table and valid
        clients got 401 "too many recent DPoP proofs" for minutes.
  otel  `mcp-everything-otel` (no collector listening: metrics stay in the
        process): a legacy session, then 60 `tools/call` of unknown tools
        with 2 MB names, twice; the server's VmRSS before and after. Before
        the fix: 17 MB to 1.21 GB, kept.

Prints figures and PASS or FAIL per flood (every valid DPoP call answered
200; RSS grown by less than 100 MiB); the exit status is 1 when one fails.
"""

import base64
import hashlib
import http.client
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = "test_simple_text"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def dpop(bin_dir):
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    issuer_port, port, n, threads = free_port(), free_port(), 100_500, 4
    issuer, resource = f"http://127.0.0.1:{issuer_port}", f"http://127.0.0.1:{port}/mcp"
    jwks = open(f"{ROOT}/mcp-server/tests/auth/key1.jwks.json").read()
    metadata = json.dumps({"issuer": issuer, "jwks_uri": issuer + "/jwks", "response_types_supported": ["code"],
                           "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token"})

    class Issuer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = {"/.well-known/oauth-authorization-server": metadata, "/jwks": jwks}.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write((body or "{}").encode())

        def log_message(self, *_):
            pass

    threading.Thread(target=http.server.ThreadingHTTPServer(("127.0.0.1", issuer_port), Issuer).serve_forever,
                     daemon=True).start()
    server = subprocess.Popen([f"{bin_dir}/mcp-everything", "http", "--listen", f"127.0.0.1:{port}",
                               "--oauth-issuer", issuer, "--oauth-resource", resource, "--oauth-dpop"],
                              stderr=subprocess.DEVNULL)
    try:
        wait_listening(port)

        def key():
            private = ec.generate_private_key(ec.SECP256R1())
            numbers = private.public_key().public_numbers()
            jwk = {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(32, "big")),
                   "y": b64(numbers.y.to_bytes(32, "big"))}
            canonical = json.dumps({"crv": "P-256", "kty": "EC", "x": jwk["x"], "y": jwk["y"]}, separators=(",", ":"))
            return private, jwk, b64(hashlib.sha256(canonical.encode()).digest())

        def proof(private, jwk, token):
            claims = {"jti": uuid.uuid4().hex, "htm": "POST", "htu": resource, "iat": int(time.time()),
                      "ath": b64(hashlib.sha256(token.encode()).digest())}
            return jwt.encode(claims, private, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": jwk})

        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": TOOL, "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                                   "io.modelcontextprotocol/clientCapabilities": {}}}})

        def call(conn, token, dpop_proof):
            conn.request("POST", "/mcp", body, {
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": TOOL,
                "Authorization": f"DPoP {token}", "DPoP": dpop_proof})
            response = conn.getresponse()
            response.read()
            return response.status

        signing = open(f"{ROOT}/mcp-server/tests/auth/key1.pem").read()

        def valid_call():
            private, jwk, jkt = key()
            token = jwt.encode({"iss": issuer, "aud": resource, "sub": "alice", "exp": int(time.time()) + 600,
                                "cnf": {"jkt": jkt}}, signing, algorithm="RS256", headers={"kid": "key1"})
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                return call(conn, token, proof(private, jwk, token))
            finally:
                conn.close()

        before = valid_call()
        stranger = key()
        proofs = [proof(stranger[0], stranger[1], "x") for _ in range(n)]
        statuses = {}
        lock = threading.Lock()

        def flood(part):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for p in part:
                try:
                    status = call(conn, "x", p)
                except (OSError, http.client.HTTPException):
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    status = "reset"
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1

        started = time.time()
        workers = [threading.Thread(target=flood, args=(proofs[i::threads],)) for i in range(threads)]
        for worker in workers:
            worker.start()
        during = []
        while any(worker.is_alive() for worker in workers):
            during.append(valid_call())
            time.sleep(0.5)
        after = valid_call()
        print(f"dpop: {n} proofs under token x in {time.time() - started:.1f} s: {statuses}; "
              f"valid client before {before}, during {len(during)} calls {sorted(set(during))}, after {after}")
        ok = before == after == 200 and set(during) <= {200}
    finally:
        server.kill()
    print("dpop:", "PASS" if ok else "FAIL")
    return ok


def otel(bin_dir):
    port = free_port()
    server = subprocess.Popen([f"{bin_dir}/mcp-everything-otel", "--listen", f"127.0.0.1:{port}"],
                              stderr=subprocess.DEVNULL)
    try:
        wait_listening(port)

        def post(message, session=None):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            if session:
                headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
            conn.request("POST", "/mcp", json.dumps(message), headers)
            response = conn.getresponse()
            response.read()
            conn.close()
            return response.getheader("Mcp-Session-Id")

        session = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}})
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        start = rss_mib(server.pid)
        readings = []
        for round_ in range(2):
            for i in range(60):
                name = f"{round_}-{i}" + "x" * 2_000_000
                post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                      "params": {"name": name, "arguments": {}}}, session)
            time.sleep(1)
            readings.append(rss_mib(server.pid))
        print(f"otel: 2 x 60 tools/call of 2 MB unknown tool names: VmRSS {start:.1f} MiB -> "
              + " -> ".join(f"{r:.1f}" for r in readings) + " MiB")
        ok = readings[-1] - start < 100
    finally:
        server.kill()
    print("otel:", "PASS" if ok else "FAIL")
    return ok


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    bin_dir, chosen = sys.argv[1], sys.argv[2:] or ["dpop", "otel"]
    floods = {"dpop": dpop, "otel": otel}
    results = [floods[name](bin_dir) for name in chosen]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
