"""Client-credentials principals at mcp-everything: tasks and sessions stay
with the client that made them.

usage: cc_principal_check.py URL --issuer ISSUER --scope SCOPE
                             --secret ID:SECRET --jwt ID:PRIVATE_KEY_PEM

A client-credentials token has no user: its `sub` is the client_id. The
server binds tasks and legacy sessions to that principal. Two tokens are
taken at the stand-in's token endpoint (A: client_secret_basic, B:
private_key_jwt), then on the wire:

  modern (2026-07-28, tasks extension declared per request):
    A tools/call slow_compute -> a task; B tasks/get of it -> the same
    -32602 answer as an unknown id; A tasks/get -> completed with the result;
  legacy (2025-11-25): A initialize -> a session; B ping in it -> 404;
    A ping in it -> 200.
Tokens are never printed. Prints one line per case, then OK or FAIL: reasons.
"""

import argparse
import base64
import json
import secrets
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urlencode

import jwt

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
}


def http(url, body, headers):
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=15) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def take_token(args, form, headers=None):
    form = {"grant_type": "client_credentials", "resource": args.url, "scope": args.scope, **form}
    status, _, body = http(f"{args.issuer}/token", urlencode(form).encode(),
                           {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})
    if status != 200:
        raise SystemExit(f"FAIL: token endpoint {status}: {body}")
    return json.loads(body)["access_token"]


def mcp(args, token, method, params, session=None, version="2026-07-28"):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {token}", "MCP-Protocol-Version": version}
    if version == "2026-07-28":
        headers["Mcp-Method"] = method
        params = {**params, "_meta": MODERN_META}
        name = params.get("name", params.get("taskId"))
        if name is not None:
            headers["Mcp-Name"] = name
    if session:
        headers["Mcp-Session-Id"] = session
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    status, answer_headers, text = http(args.url, json.dumps(body).encode(), headers)
    try:
        answer = json.loads(text) if text else None
    except ValueError:
        answer = text
    return status, answer_headers, answer


def main(args):
    a_id, secret = args.secret.split(":", 1)
    token_a = take_token(args, {}, {"Authorization": "Basic " + base64.b64encode(f"{a_id}:{secret}".encode()).decode()})
    b_id, key_path = args.jwt.split(":", 1)
    with open(key_path) as f:
        now = int(time.time())
        assertion = jwt.encode({"iss": b_id, "sub": b_id, "aud": args.issuer, "iat": now, "exp": now + 60,
                                "jti": secrets.token_hex(12)}, f.read(), algorithm="RS256")
    token_b = take_token(args, {"client_assertion_type": ASSERTION_TYPE, "client_assertion": assertion})
    problems = []

    def case(what, ok, detail):
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")
        if not ok:
            problems.append(what)

    # ---- modern: a task belongs to its creator ------------------------------------
    status, _, created = mcp(args, token_a, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 1}})
    result = (created or {}).get("result", {}) if isinstance(created, dict) else {}
    task = result.get("taskId")
    case(f"{a_id} tools/call slow_compute", status == 200 and result.get("resultType") == "task" and task,
         f"{status} resultType={result.get('resultType')}")
    if task:
        _, _, unknown = mcp(args, token_a, "tasks/get", {"taskId": "0123456789abcdef0123456789abcdef"})
        status, _, other = mcp(args, token_b, "tasks/get", {"taskId": task})
        case(f"{b_id} tasks/get of {a_id}'s task", status == 400 and other.get("error") == unknown.get("error")
             and other["error"].get("code") == -32602,
             f"{status} {json.dumps(other.get('error'))}")
        seen = {}
        for _ in range(50):
            status, _, seen = mcp(args, token_a, "tasks/get", {"taskId": task})
            if seen.get("result", {}).get("status") != "working":
                break
            time.sleep(0.1)
        got = seen.get("result", {})
        text = ((got.get("result") or {}).get("content") or [{}])[0].get("text")
        case(f"{a_id} tasks/get of its task", status == 200 and got.get("status") == "completed"
             and text == "Computed  in 1 s", f"{status} {got.get('status')} {text!r}")

    # ---- legacy: a session belongs to its opener -------------------------------------
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "cc-principal", "version": "1"}}
    status, headers, _ = mcp(args, token_a, "initialize", init, version="2025-11-25")
    session = {k.lower(): v for k, v in headers.items()}.get("mcp-session-id")
    case(f"{a_id} legacy initialize", status == 200 and session, f"{status} session={'yes' if session else 'no'}")
    if session:
        status, _, _ = mcp(args, token_b, "ping", {}, session=session, version="2025-11-25")
        case(f"{b_id} ping in {a_id}'s session", status == 404, status)
        status, _, _ = mcp(args, token_a, "ping", {}, session=session, version="2025-11-25")
        case(f"{a_id} ping in its session", status == 200, status)

    if problems:
        print("FAIL: " + "; ".join(problems))
        return 1
    print(f"OK: principals {a_id} (client_secret_basic) and {b_id} (private_key_jwt): "
          "task and session each served only to its owner")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--issuer", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--secret", required=True, metavar="ID:SECRET")
    ap.add_argument("--jwt", required=True, metavar="ID:PRIVATE_KEY_PEM")
    sys.exit(main(ap.parse_args()))
