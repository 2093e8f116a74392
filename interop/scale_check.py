"""Several mcp-everything instances behind a load balancer, checked on the
wire and with the Python SDK (mcp==2.3.0). Run by interop/scale-out.sh.

usage: scale_check.py direct A B C
       scale_check.py balancer LB
       scale_check.py sdk MODE LB            (MODE: legacy | 2026-07-28)
       scale_check.py kill A B C LB --pid PID
  A B C  host:port of three instances sharing one Redis (tasks, events,
         sessions) and one --request-state-keys ring
  LB     host:port of the load balancer in front of them (round-robin, no
         stickiness); it names the instance that answered in X-Served-By

direct: each step sent to a chosen instance, so "lands on another
instance" holds by construction: MRTR rounds (requestState sealed on one
instance, opened on the next; a tampered one refused), a legacy session
whose requests go to A, B and C in turn, a legacy elicitation answered on
another instance, a subscriptions/listen stream on A hearing events raised
on B and C, a legacy GET stream on A hearing events raised on C and B.
balancer: the same through LB, one request at a time, each answer's
X-Served-By compared (round-robin sends consecutive requests to different
instances). sdk: the SDK's own client through LB: list, call, an MRTR round
(modern: the retry; legacy: the elicitation answer), events across
instances. kill: state made on A, then A killed (SIGKILL, PID): the legacy
session goes on on B and C, A's GET stream resumed on B with Last-Event-ID
gets what it missed and what comes after, a task A was running reads
failed on B, requests in flight get an answer or an error, none hangs.

Prints `ok NAME: detail` or `FAIL NAME: detail` per check; exits 1 if any
failed. Every network wait is bounded.
"""

import asyncio
import json
import os
import signal
import sys
import time
import warnings

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
WATCHED = "test://watched-resource"
TASKS = "io.modelcontextprotocol/tasks"
GUARD = 10.0  # seconds: a hang guard for one exchange
SERVED_BY = "x-served-by"

RESULTS = []


def report(name, ok, detail=""):
    RESULTS.append(ok)
    print(f"{'ok' if ok else 'FAIL'} {name}: {detail}", flush=True)


# ---- raw HTTP/1.1 and SSE ------------------------------------------------


class Answer:
    """One HTTP answer, read as it arrives (SSE events one by one)."""

    def __init__(self, reader, writer, status, headers):
        self.reader, self.writer = reader, writer
        self.status, self.headers = status, headers
        self.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        self.length = int(headers["content-length"]) if "content-length" in headers else None
        self.pending = b""  # de-chunked bytes not yet parsed
        self.ended = False

    @property
    def served_by(self):
        return self.headers.get(SERVED_BY)

    @property
    def is_sse(self):
        return self.headers.get("content-type", "").startswith("text/event-stream")

    async def _more(self):
        """Reads the next piece of the body into `pending`; False at its end."""
        if self.ended:
            return False
        try:
            if self.chunked:
                line = await self.reader.readline()
                if not line:
                    self.ended = True
                    return False
                size = int(line.strip().split(b";")[0], 16)
                if size == 0:
                    self.ended = True
                    return False
                data = await self.reader.readexactly(size + 2)
                self.pending += data[:-2]
            elif self.length is not None:
                if self.length == 0:
                    self.ended = True
                    return False
                data = await self.reader.read(self.length)
                if not data:
                    self.ended = True
                    return False
                self.length -= len(data)
                self.pending += data
            else:
                data = await self.reader.read(65536)
                if not data:
                    self.ended = True
                    return False
                self.pending += data
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            self.ended = True
            return False
        return True

    async def body(self, timeout=GUARD):
        async def read_all():
            while await self._more():
                pass
            return self.pending

        try:
            return await asyncio.wait_for(read_all(), timeout)
        finally:
            self.close()

    async def event(self, timeout=GUARD):
        """The next SSE event as {"id", "data"}; None at the end of the stream."""

        async def next_event():
            while True:
                text = self.pending.replace(b"\r\n", b"\n")
                if b"\n\n" in text:
                    block, rest = text.split(b"\n\n", 1)
                    self.pending = rest
                    event = {"id": None, "data": None}
                    for line in block.decode().split("\n"):
                        if line.startswith("id:"):
                            event["id"] = line[3:].strip()
                        elif line.startswith("data:"):
                            data = line[5:].removeprefix(" ")
                            event["data"] = data if event["data"] is None else event["data"] + "\n" + data
                    if event["data"] is not None or event["id"] is not None:
                        return event
                    continue
                if not await self._more():
                    return None

        return await asyncio.wait_for(next_event(), timeout)

    async def message(self, timeout=GUARD):
        """The next SSE event that carries a JSON-RPC message (priming events
        skipped): (event id, message); None at the end."""
        deadline = time.monotonic() + timeout
        while True:
            event = await self.event(max(0.05, deadline - time.monotonic()))
            if event is None:
                return None
            if event["data"]:
                return event["id"], json.loads(event["data"])

    def close(self):
        try:
            self.writer.close()
        except Exception:  # already closed by the peer
            pass


async def send(addr, method, headers, body=None, timeout=GUARD):
    """Sends one request on a new connection; the answer with its head read."""
    host, port = addr.rsplit(":", 1)
    payload = b"" if body is None else json.dumps(body).encode()

    async def exchange():
        reader, writer = await asyncio.open_connection(host, int(port))
        head = f"{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {len(payload)}\r\n"
        for name, value in headers.items():
            head += f"{name}: {value}\r\n"
        writer.write(head.encode() + b"\r\n" + payload)
        await writer.drain()
        raw = await reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        answer_headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                answer_headers[name.strip().lower()] = value.strip()
        return Answer(reader, writer, status, answer_headers)

    return await asyncio.wait_for(exchange(), timeout)


class Reply:
    """A JSON-RPC exchange read to its end: the response to the request and
    any other messages that came on its stream."""

    def __init__(self, status, headers, message, others):
        self.status, self.headers, self.message, self.others = status, headers, message, others

    @property
    def served_by(self):
        return self.headers.get(SERVED_BY)

    @property
    def result(self):
        return (self.message or {}).get("result")

    @property
    def error(self):
        return (self.message or {}).get("error")

    def text(self):
        content = (self.result or {}).get("content") or [{}]
        return content[0].get("text")

    def __repr__(self):
        return f"HTTP {self.status} {json.dumps(self.message)[:400]}"


async def exchange(addr, headers, body, timeout=GUARD):
    answer = await send(addr, "POST", headers, body, timeout)
    if answer.is_sse:
        message, others = None, []
        deadline = time.monotonic() + timeout
        try:
            while True:
                got = await answer.message(max(0.05, deadline - time.monotonic()))
                if got is None:
                    break
                _, m = got
                if "id" in m and m.get("id") == body.get("id") and ("result" in m or "error" in m):
                    message = m
                    break
                others.append(m)
        finally:
            answer.close()
        return Reply(answer.status, answer.headers, message, others)
    raw = await answer.body(timeout)
    try:
        message = json.loads(raw) if raw.strip() else None
    except ValueError:
        message = {"unparsed": raw.decode(errors="replace")}
    return Reply(answer.status, answer.headers, message, [])


_ids = iter(range(1, 1 << 30))


def modern_request(method, params=None, caps=None):
    params = dict(params or {})
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "scale-check", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}


def modern_headers(method, name=None):
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


async def modern(addr, method, params=None, name=None, caps=None, timeout=GUARD):
    return await exchange(addr, modern_headers(method, name), modern_request(method, params, caps), timeout)


async def call(addr, tool, arguments=None, responses=None, state=None, caps=None, timeout=GUARD):
    params = {"name": tool, "arguments": arguments or {}}
    if responses is not None:
        params["inputResponses"] = responses
    if state is not None:
        params["requestState"] = state
    return await modern(addr, "tools/call", params, name=tool, caps=caps, timeout=timeout)


def legacy_headers(session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = LEGACY
    return headers


async def legacy(addr, session, method, params=None, timeout=GUARD, notify=False):
    body = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    if not notify:
        body["id"] = next(_ids)
    return await exchange(addr, legacy_headers(session), body, timeout)


async def initialize(addr):
    """A legacy session opened on `addr` (a client that can elicit): (id, reply)."""
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "scale-check", "version": "1"}}}
    reply = await exchange(addr, legacy_headers(), body)
    session = reply.headers.get("mcp-session-id")
    if reply.status != 200 or not session:
        raise RuntimeError(f"initialize on {addr}: {reply}")
    await legacy(addr, session, "notifications/initialized", notify=True)
    return session, reply


async def get_stream(addr, session, last_event_id=None):
    headers = {"Accept": "text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    stream = await send(addr, "GET", headers)
    if stream.status != 200 or not stream.is_sse:
        body = await stream.body()
        raise RuntimeError(f"GET on {addr}: HTTP {stream.status} {body[:300]!r}")
    return stream


async def listen_stream(addr, notifications, caps=None):
    """A subscriptions/listen stream, its acknowledgement read."""
    body = modern_request("subscriptions/listen", {"notifications": notifications}, caps)
    stream = await send(addr, "POST", modern_headers("subscriptions/listen"), body)
    if stream.status != 200 or not stream.is_sse:
        raise RuntimeError(f"listen on {addr}: HTTP {stream.status} {(await stream.body())[:300]!r}")
    got = await stream.message()
    if not got or got[1].get("method") != "notifications/subscriptions/acknowledged":
        raise RuntimeError(f"listen on {addr}: no acknowledgement first: {got}")
    return stream, body["id"]


async def wait_for(stream, predicate, timeout=GUARD):
    """The first message on `stream` that `predicate` accepts; (id, message)
    or None (the end, or `timeout`)."""
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None, seen
        try:
            got = await stream.message(left)
        except asyncio.TimeoutError:
            return None, seen
        if got is None:
            return None, seen
        seen.append(got[1])
        if predicate(got[1]):
            return got, seen


def accept(content):
    return {"action": "accept", "content": content}


def is_method(method, uri=None):
    return lambda m: m.get("method") == method and (uri is None or (m.get("params") or {}).get("uri") == uri)


async def check(name, work):
    """Runs one check; an exception is its failure."""
    try:
        ok, detail = await work
    except Exception as e:  # the check's own failure, reported, not raised
        ok, detail = False, f"{type(e).__name__}: {e}"
    report(name, ok, detail)
    return ok


# ---- MRTR across instances ------------------------------------------------


async def mrtr_request_state(first, second):
    """test_input_required_result_request_state: the round on `first`, the
    retry (requestState sealed by `first`) on `second`."""
    tool = "test_input_required_result_request_state"
    one = await call(first, tool)
    r = one.result or {}
    if r.get("resultType") != "input_required" or not r.get("requestState") or "confirm" not in (r.get("inputRequests") or {}):
        return False, f"first round on {first}: {one}", None
    two = await call(second, tool, responses={"confirm": accept({"ok": True})}, state=r["requestState"])
    text = two.text()
    served = (one.served_by, two.served_by)
    return text == "state-ok: requestState validated", f"{first} -> {second}: {text!r} ({two if text is None else 'complete'})", served


async def mrtr_multi_round(first, second, third):
    """test_input_required_result_multi_round: three rounds on three
    instances, each retry carrying the state the previous instance sealed."""
    tool = "test_input_required_result_multi_round"
    one = await call(first, tool)
    r1 = one.result or {}
    if r1.get("resultType") != "input_required" or "step1" not in (r1.get("inputRequests") or {}):
        return False, f"round 1 on {first}: {one}", None
    two = await call(second, tool, responses={"step1": accept({"name": "Ada"})}, state=r1.get("requestState"))
    r2 = two.result or {}
    if r2.get("resultType") != "input_required" or "step2" not in (r2.get("inputRequests") or {}):
        return False, f"round 2 on {second} (state sealed on {first}): {two}", None
    three = await call(third, tool, responses={"step2": accept({"color": "green"})}, state=r2.get("requestState"))
    text = three.text()
    want = "Multi-round complete for Ada who likes green"
    served = (one.served_by, two.served_by, three.served_by)
    return text == want, f"{first} -> {second} -> {third}: {text!r}" + ("" if text == want else f" {three}"), served


async def mrtr_tampered(first, second, third):
    """test_input_required_result_tampered_state: the state sealed on
    `first` opens on `second`; one byte changed, `third` refuses it."""
    tool = "test_input_required_result_tampered_state"
    one = await call(first, tool)
    state = (one.result or {}).get("requestState")
    if not state:
        return False, f"first round on {first}: {one}"
    good = await call(second, tool, responses={"confirm": accept({"ok": True})}, state=state)
    middle = len(state) // 2
    flipped = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1:]
    bad = await call(third, tool, responses={"confirm": accept({"ok": True})}, state=flipped)
    ok = good.text() == "integrity-ok: state verified" and (bad.error or {}).get("code") == -32602
    return ok, f"intact on {second}: {good.text()!r}; tampered on {third}: {bad.status} {bad.error}"


# ---- direct: each step to a chosen instance --------------------------------


async def direct(a, b, c):
    async def request_state():
        ok, detail, _ = await mrtr_request_state(a, b)
        return ok, detail

    async def multi_round():
        ok, detail, _ = await mrtr_multi_round(a, b, c)
        return ok, detail

    await check("direct-mrtr-request-state", request_state())
    await check("direct-mrtr-multi-round", multi_round())
    await check("direct-mrtr-tampered-state", mrtr_tampered(a, b, c))
    await check("direct-legacy-session-alternates", legacy_session_alternates(a, b, c))
    await check("direct-legacy-elicitation-answered-elsewhere", legacy_elicitation(a, b))
    await check("direct-listen-hears-other-instances", listen_cross(a, b, c))
    await check("direct-legacy-get-hears-other-instances", legacy_get_cross(a, c, b))


async def legacy_session_alternates(a, b, c):
    session, _ = await initialize(a)
    answers = []
    for i, addr in enumerate([b, c, a, b, c, a]):
        if i % 3 == 0:
            reply = await legacy(addr, session, "tools/list", {})
            good = reply.status == 200 and any(t["name"] == "test_simple_text" for t in (reply.result or {}).get("tools", []))
        elif i % 3 == 1:
            reply = await legacy(addr, session, "tools/call", {"name": "test_simple_text", "arguments": {}})
            good = reply.status == 200 and reply.text() == "This is a simple text response for testing."
        else:
            reply = await legacy(addr, session, "ping")
            good = reply.status == 200 and reply.result == {}
        answers.append(good)
        if not good:
            return False, f"request {i + 2} of the session opened on {a}, sent to {addr}: {reply}"
    return True, f"initialize on {a}, then {len(answers)} requests on B, C, A, B, C, A: all answered"


async def legacy_elicitation(a, b):
    """A legacy tools/call on A asks the client (elicitation/create on its
    POST stream); the answer is POSTed to B and reaches A."""
    session, _ = await initialize(a)
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call",
            "params": {"name": "test_elicitation", "arguments": {"message": "Your name?"}}}
    stream = await send(a, "POST", legacy_headers(session), body)
    try:
        got, _ = await wait_for(stream, is_method("elicitation/create"))
        if not got:
            return False, f"no elicitation/create on A's stream (HTTP {stream.status})"
        asked = got[1]
        answer = {"jsonrpc": "2.0", "id": asked["id"], "result": accept({"response": "Grace"})}
        posted = await exchange(b, legacy_headers(session), answer)
        if posted.status != 202:
            return False, f"the answer POSTed to B: {posted}"
        got, seen = await wait_for(stream, lambda m: m.get("id") == body["id"])
        text = ((got[1].get("result") or {}).get("content") or [{}])[0].get("text") if got else None
        want = 'User response: action=accept, content={"response":"Grace"}'
        return text == want, f"asked on A, answered on B, result on A: {text!r}" + ("" if got else f" (seen {seen})")
    finally:
        stream.close()


async def listen_cross(a, b, c):
    stream, listen_id = await listen_stream(a, {"toolsListChanged": True, "resourceSubscriptions": [WATCHED]})
    try:
        raised = await call(b, "test_trigger_resource_update", {"uri": WATCHED})
        if raised.status != 200:
            return False, f"trigger on B: {raised}"
        got, seen = await wait_for(stream, is_method("notifications/resources/updated", WATCHED))
        if not got:
            return False, f"no resources/updated on A for an update raised on B (seen {seen})"
        tagged = (got[1].get("params", {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId")
        raised = await call(c, "test_trigger_tool_change")
        got2, seen = await wait_for(stream, is_method("notifications/tools/list_changed"))
        if not got2:
            return False, f"no tools/list_changed on A for a change raised on C (seen {seen})"
        return tagged == listen_id, f"listen on A: resources/updated raised on B (subscriptionId {tagged!r}), tools/list_changed raised on C"
    finally:
        stream.close()


async def legacy_get_cross(a, c, b):
    session, _ = await initialize(a)
    sub = await legacy(b, session, "resources/subscribe", {"uri": WATCHED})
    if sub.result != {}:
        return False, f"resources/subscribe on B: {sub}"
    stream = await get_stream(a, session)
    try:
        await stream.event()  # the priming event: the stream is open
        raised = await legacy(c, session, "tools/call", {"name": "test_trigger_resource_update", "arguments": {"uri": WATCHED}})
        if raised.status != 200:
            return False, f"trigger on C: {raised}"
        got, seen = await wait_for(stream, is_method("notifications/resources/updated", WATCHED))
        if not got:
            return False, f"no resources/updated on A's GET stream for an update raised on C (seen {seen})"
        await legacy(b, session, "tools/call", {"name": "test_trigger_tool_change", "arguments": {}})
        got2, seen = await wait_for(stream, is_method("notifications/tools/list_changed"))
        if not got2:
            return False, f"no tools/list_changed on A's GET stream for a change raised on B (seen {seen})"
        return True, "GET stream on A (subscribed on B): resources/updated raised on C, tools/list_changed raised on B"
    finally:
        stream.close()


# ---- balancer: one request at a time through LB -------------------------------


async def balancer(lb):
    async def request_state():
        ok, detail, served = await mrtr_request_state(lb, lb)
        different = served is not None and served[0] != served[1] and None not in served
        return ok and different, f"round on {served and served[0]}, retry on {served and served[1]}: {detail}"

    async def multi_round():
        ok, detail, served = await mrtr_multi_round(lb, lb, lb)
        distinct = served is not None and None not in served and len(set(served)) == 3
        return ok and distinct, f"rounds on {served}: {detail}"

    async def session():
        session_id, first = await initialize(lb)
        served = [first.served_by]
        for method, params in [("tools/list", {}), ("tools/call", {"name": "test_simple_text", "arguments": {}}),
                               ("ping", None), ("tools/call", {"name": "test_simple_text", "arguments": {}}),
                               ("tools/list", {}), ("ping", None)]:
            reply = await legacy(lb, session_id, method, params)
            served.append(reply.served_by)
            if reply.status != 200 or reply.error:
                return False, f"{method} in the session (served by {reply.served_by}): {reply}"
        distinct = set(served) - {None}
        return len(distinct) == 3, f"initialize + 6 requests of one session served by {served}"

    async def listen():
        stream, _ = await listen_stream(lb, {"resourceSubscriptions": [WATCHED]})
        try:
            raised = await call(lb, "test_trigger_resource_update", {"uri": WATCHED})
            got, seen = await wait_for(stream, is_method("notifications/resources/updated", WATCHED))
            different = stream.served_by != raised.served_by and raised.served_by is not None
            return bool(got) and different, f"listen held by {stream.served_by}, update raised on {raised.served_by}: " + (
                "heard" if got else f"not heard (seen {seen})")
        finally:
            stream.close()

    async def legacy_get():
        session_id, _ = await initialize(lb)
        await legacy(lb, session_id, "resources/subscribe", {"uri": WATCHED})
        stream = await get_stream(lb, session_id)
        try:
            await stream.event()
            raised = await legacy(lb, session_id, "tools/call",
                                  {"name": "test_trigger_resource_update", "arguments": {"uri": WATCHED}})
            got, seen = await wait_for(stream, is_method("notifications/resources/updated", WATCHED))
            different = stream.served_by != raised.served_by and raised.served_by is not None
            return bool(got) and different, f"GET stream held by {stream.served_by}, update raised on {raised.served_by}: " + (
                "heard" if got else f"not heard (seen {seen})")
        finally:
            stream.close()

    await check("lb-mrtr-request-state", request_state())
    await check("lb-mrtr-multi-round", multi_round())
    await check("lb-legacy-session-round-robin", session())
    await check("lb-listen-hears-other-instance", listen())
    await check("lb-legacy-get-hears-other-instance", legacy_get())


# ---- the Python SDK through LB --------------------------------------------------


async def sdk(mode, lb):
    import httpx2
    import mcp.types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    # One entry per HTTP exchange: [HTTP method, JSON-RPC method or
    # "response", X-Served-By, status], made when the request is sent and
    # completed when its answer's head comes (an answer POST's 202 may come
    # after the call's result).
    log = []
    pending = {}

    async def sent(request):
        what = request.method
        if request.method == "POST":
            try:
                body = json.loads(request.content or b"{}")
                what = body.get("method") or ("response" if "result" in body or "error" in body else "?")
            except ValueError:
                what = "?"
        entry = [request.method, what, None, None]
        log.append(entry)
        pending[id(request)] = entry

    async def answered(response):
        entry = pending.pop(id(response.request), None)
        if entry is not None:
            entry[2], entry[3] = response.headers.get(SERVED_BY), response.status_code

    async def settled(start):
        deadline = time.monotonic() + GUARD
        while any(e[3] is None for e in log[start:]) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return log[start:]

    answers = {"Please confirm": {"ok": True}, "Step 1: What is your name?": {"name": "Ada"},
               "Step 2: What is your favorite color?": {"color": "green"}}

    async def elicit(context, params):
        return types.ElicitResult(action="accept", content=answers.get(params.message, {"response": "yes"}))

    notifications = []

    async def on_message(message):
        notifications.append(message)

    http = httpx2.AsyncClient(event_hooks={"request": [sent], "response": [answered]}, timeout=httpx2.Timeout(15, read=300))
    url = f"http://{lb}/mcp"
    async with Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=10,
                      elicitation_callback=elicit, message_handler=on_message) as client:
        version = str(client.protocol_version)
        want = "2025" if mode == "legacy" else MODERN
        report(f"sdk-py-{mode}-connect", version.startswith(want), f"version {version}")

        async def list_call():
            tools = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("test_simple_text", {})
            text = result.content[0].text if result.content else None
            return "test_simple_text" in tools and text == "This is a simple text response for testing.", f"{len(tools)} tools, call -> {text!r}"

        await check(f"sdk-py-{mode}-list-call", list_call())

        async def mrtr(tool, want, calls_needed):
            start = len(log)
            result = await client.call_tool(tool, {})
            text = result.content[0].text if result.content else None
            mine = await settled(start)
            served = [s for (m, what, s, _) in mine if m == "POST"]
            calls = [s for (m, what, s, _) in mine if what == "tools/call"]
            if mode == "legacy":
                # One tools/call; the server asks on its stream, the SDK
                # POSTs each answer (through LB, elsewhere in turn).
                spread = len(set(served)) >= 2
                where = f"tools/call and answers served by {served}"
            else:
                spread = len(calls) == calls_needed and len(set(calls)) == calls_needed
                where = f"tools/call rounds served by {calls}"
            return text == want and spread, f"{text!r}; {where}"

        await check(f"sdk-py-{mode}-mrtr-request-state",
                    mrtr("test_input_required_result_request_state", "state-ok: requestState validated", 2))
        await check(f"sdk-py-{mode}-mrtr-multi-round",
                    mrtr("test_input_required_result_multi_round", "Multi-round complete for Ada who likes green", 3))

        if mode == "legacy":
            async def session_spread():
                start = len(log)
                for _ in range(3):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        await client.send_ping()
                    await client.call_tool("test_simple_text", {})
                mine = [(s, st) for (m, what, s, st) in await settled(start) if what in ("ping", "tools/call")]
                served = [s for s, _ in mine]
                ok = len(mine) == 6 and len(set(served)) >= 2 and all(st == 200 for _, st in mine)
                return ok, f"{len(mine)} requests of one session served by {served}"

            await check("sdk-py-legacy-session-spread", session_spread())

            async def get_stream_event():
                uris = [f"test://scale/sdk-{n}" for n in range(1, 4)]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for uri in uris:
                        await client.subscribe_resource(uri)
                held = await wait_get(log)
                if not held:
                    return False, f"the SDK opened no GET stream (requests: {log})"
                return await heard_elsewhere(client, log, settled, notifications, held, uris, "GET stream")

            await check("sdk-py-legacy-get-stream-event", get_stream_event())
        else:
            async def listen_event():
                uris = [f"test://scale/sdk-{n}" for n in range(1, 4)]
                start = len(log)
                async with client.listen(resource_subscriptions=uris) as sub:
                    held = [s for (m, what, s, _) in await settled(start) if what == "subscriptions/listen"]
                    events = []

                    async def collect():
                        async for event in sub:
                            events.append(event)

                    reader = asyncio.create_task(collect())
                    try:
                        return await heard_elsewhere(client, log, settled, events, held[0] if held else None, uris, "listen")
                    finally:
                        reader.cancel()

            await check(f"sdk-py-{mode}-listen-event", listen_event())
    await http.aclose()


def updated_uri(message):
    """The URI of a resources/updated notification (or listen event), else None."""
    root = getattr(message, "root", message)
    if getattr(root, "method", None) == "notifications/resources/updated":
        return getattr(root.params, "uri", None)
    return getattr(root, "uri", None)


async def heard_elsewhere(client, log, settled, heard, held, uris, what):
    """Raises updates of `uris` through LB, one at a time, until one lands on
    an instance other than `held` (round-robin: the first or second does);
    that one must be heard on the stream `held` holds."""
    for uri in uris:
        start = len(log)
        await client.call_tool("test_trigger_resource_update", {"uri": uri})
        raised_on = [s for (m, w, s, _) in await settled(start) if w == "tools/call"][-1]
        if raised_on == held:
            continue
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:
            if any(updated_uri(n) == uri for n in heard):
                return True, f"{what} held by {held}, update of {uri} raised on {raised_on}: heard"
            await asyncio.sleep(0.05)
        return False, f"{what} held by {held}, update of {uri} raised on {raised_on}: not heard in {GUARD:.0f} s (heard {heard})"
    return False, f"every update landed on {held}, the instance holding the {what}: no round-robin?"


async def wait_get(log):
    """The instance holding the SDK's GET stream, once it answered."""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        held = [s for (m, _, s, st) in log if m == "GET" and st == 200]
        if held:
            await asyncio.sleep(0.2)  # headers seen; let the stream register
            return held[-1]
        await asyncio.sleep(0.05)
    return None


# ---- kill: A dies with state on it ------------------------------------------------


async def kill(a, b, c, lb, pid):
    scale = [f"test://scale/kill-{n}" for n in range(1, 6)]
    # (a) a legacy session made on A, (b) its GET stream held by A
    session, _ = await initialize(a)
    for uri in scale:
        await legacy(a, session, "resources/subscribe", {"uri": uri})
    on_a = await get_stream(a, session)
    await on_a.event()  # priming event

    async def raise_on(addr, n):
        reply = await legacy(addr, session, "tools/call", {"name": "test_trigger_resource_update", "arguments": {"uri": scale[n - 1]}})
        if reply.status != 200:
            raise RuntimeError(f"trigger {n} on {addr}: {reply}")

    await raise_on(b, 1)
    e1, seen = await wait_for(on_a, is_method("notifications/resources/updated", scale[0]))
    if not e1:
        raise RuntimeError(f"event 1 not on A's GET stream (seen {seen})")
    # Two more reach A's stream (and the event store); the client "misses"
    # them: it resumes from event 1.
    await raise_on(c, 2)
    await raise_on(b, 3)
    missed = []
    for n in (2, 3):
        got, seen = await wait_for(on_a, is_method("notifications/resources/updated", scale[n - 1]))
        missed.append(got)
    # (c) a task A runs for a minute
    caps = {"extensions": {TASKS: {}}}
    created = await call(a, "slow_compute", {"seconds": 60, "label": "on A"}, caps=caps)
    task_id = (created.result or {}).get("taskId")
    polled = await modern(b, "tasks/get", {"taskId": task_id}, name=task_id, caps=caps) if task_id else None

    # (d) requests in flight when A dies: to A directly and through LB
    async def in_flight(kind, work):
        started = time.monotonic()
        try:
            reply = await asyncio.wait_for(work, 15)
            outcome = f"HTTP {reply.status}" + (" error" if reply.error else "")
        except asyncio.TimeoutError:
            return kind, "HUNG", time.monotonic() - started
        except Exception as e:  # a cut connection is an answer of sorts
            outcome = f"{type(e).__name__}"
        return kind, outcome, time.monotonic() - started

    flights = [
        in_flight("A modern slow_compute", call(a, "slow_compute", {"seconds": 2}, caps={}, timeout=15)),
        in_flight("A legacy slow_compute", legacy(a, session, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 2}}, timeout=15)),
    ] + [in_flight(f"LB slow_compute {i}", call(lb, "slow_compute", {"seconds": 2}, caps={}, timeout=15)) for i in range(4)]
    running = asyncio.gather(*flights)
    await asyncio.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    print(f"# killed instance A (pid {pid}) at {time.strftime('%H:%M:%S')}", flush=True)

    async def session_goes_on():
        replies = [await legacy(addr, session, method, params) for addr, method, params in
                   [(b, "ping", None), (c, "tools/call", {"name": "test_simple_text", "arguments": {}}), (b, "tools/list", {}), (c, "ping", None)]]
        ok = all(r.status == 200 and not r.error for r in replies)
        return ok, "ping on B, tools/call on C, tools/list on B, ping on C: " + ", ".join(f"HTTP {r.status}" for r in replies)

    await check("kill-a-legacy-session-goes-on", session_goes_on())

    async def stream_resumes():
        if not all(missed):
            return False, "events 2 and 3 never reached A's stream before the kill"
        resumed = await get_stream(b, session, e1[0])
        try:
            replayed = []
            for _ in range(2):
                got = await resumed.message()
                replayed.append(got)
            same = [r is not None and (r[0], r[1]) == (m[0], m[1]) for r, m in zip(replayed, missed)]
            # Raised while B waits out A's silence (the handover), then after it.
            await raise_on(c, 4)
            got4, seen4 = await wait_for(resumed, is_method("notifications/resources/updated", scale[3]), 8)
            await asyncio.sleep(max(0.0, 3.0 - (time.monotonic() - killed_at)))
            await raise_on(b, 5)
            got5, seen5 = await wait_for(resumed, is_method("notifications/resources/updated", scale[4]), 8)
            ok = all(same) and bool(got4) and bool(got5)
            detail = (f"resumed on B from event 1's id {e1[0]}: events 2, 3 replayed "
                      f"{'with their ids' if all(same) else f'WRONG: {replayed}'}; event 4 (raised on C during the handover) "
                      f"{'received' if got4 else f'MISSING (seen {seen4})'}; event 5 (raised on B after it) "
                      f"{'received' if got5 else f'MISSING (seen {seen5})'}")
            return ok, detail
        finally:
            resumed.close()

    await check("kill-a-get-stream-resumes-on-b", stream_resumes())

    async def task_fails():
        if not task_id or (polled and ((polled.result or {}).get("status") != "working")):
            return False, f"no working task on A before the kill: create {created}, get on B {polled}"
        deadline = time.monotonic() + 20
        last = None
        while time.monotonic() < deadline:
            last = await modern(b, "tasks/get", {"taskId": task_id}, name=task_id, caps=caps)
            status = (last.result or {}).get("status")
            if status == "failed":
                return True, f"task {task_id[:8]}… read failed on B {time.monotonic() - killed_at:.1f} s after the kill: {(last.result or {}).get('statusMessage') or (last.result or {}).get('error')}"
            if status != "working":
                return False, f"task read {status} on B: {last}"
            await asyncio.sleep(0.5)
        return False, f"task {task_id[:8]}… still working on B 20 s after its runner died: {last}"

    await check("kill-a-task-reads-failed-on-b", task_fails())

    async def flights_end():
        outcomes = await asyncio.wait_for(running, 20)
        hung = [o for o in outcomes if o[1] == "HUNG"]
        return not hung, "; ".join(f"{k}: {o} in {t:.1f} s" for k, o, t in outcomes)

    await check("kill-a-in-flight-requests-end", flights_end())

    async def lb_after():
        outcomes = []
        for _ in range(6):
            try:
                r = await call(lb, "test_simple_text", caps={}, timeout=5)
                outcomes.append((r.status, r.served_by))
            except Exception as e:  # counted, not raised
                outcomes.append((type(e).__name__, None))
        ok = all(s == 200 for s, _ in outcomes)
        return ok, f"6 requests through LB after the kill: {outcomes}"

    await check("kill-a-balancer-serves-on", lb_after())
    on_a.close()
    print(f"# session {session}", flush=True)


# ---------------------------------------------------------------------------------


def main(argv):
    command = argv[0] if argv else ""
    if command == "direct" and len(argv) == 4:
        asyncio.run(direct(*argv[1:]))
    elif command == "balancer" and len(argv) == 2:
        asyncio.run(balancer(argv[1]))
    elif command == "sdk" and len(argv) == 3 and argv[1] in ("legacy", MODERN):
        asyncio.run(sdk(argv[1], argv[2]))
    elif command == "kill" and len(argv) == 7 and argv[5] == "--pid":
        asyncio.run(kill(*argv[1:5], int(argv[6])))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    failed = RESULTS.count(False)
    print(f"{RESULTS.count(True)} ok, {failed} failed")
    return 1 if failed or not RESULTS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
