"""The Python SDK 1.x client (mcp==1.30.0: 2025-11-25 and earlier only, the
`initialize` handshake and a session), in front of the era gateway serving a
MODERN-ONLY backend (interop/gateway-legacy.sh).

usage: gateway_legacy_py_client.py PROFILE TARGET
  PROFILE   which modern-only backend stands behind the gateway at TARGET:
              py2          interop/gateway_py2_modern_server.py (mcp 2.3.0)
              rsdk2        interop/rust_mcp_sdk2_server (rust-mcp-sdk 2.0.0):
                           the same tools, prompt and checks as py2, its
                           own resource
              everything   our mcp-everything --modern-only (also progress,
                           completion, resources/subscribe and its update,
                           logging/setLevel and a call's log message)
  TARGET    the gateway's http:// URL (Streamable HTTP), or the command line
            (one shell-quoted string) that starts it on stdio

Prints one line per check, `ok NAME DETAIL` or `fail NAME DETAIL`; exits 1
when any failed. The backend's MRTR `input_required` rounds reach this client
as `elicitation/create` requests in its session: the callback answers with a
fresh random value, and the check passes only when the tool's result carries
that value back. A tool list change the backend publishes on
`subscriptions/listen` must reach the session as one
`notifications/tools/list_changed`, and none may come before it.
"""

import secrets
import shlex
import sys
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import mcp.types as types
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

STEP = 20  # seconds per step
failures = 0


def report(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'fail'} {name} {detail}".rstrip(), flush=True)


def text_of(result):
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Peer:
    """The callbacks' answers, fresh per run, and what the gateway sent."""

    def __init__(self):
        self.answer = "teal-" + secrets.token_hex(4)
        self.asked = []  # (message, requested schema's property names)
        self.notifications = []  # methods of the notifications received, in order
        self.logs = []  # the data of the log messages received

    async def elicit(self, context, params):
        props = sorted((params.requestedSchema or {}).get("properties", {}))
        self.asked.append((params.message, props))
        field = "color" if "color" in props else "response"
        return types.ElicitResult(action="accept", content={field: self.answer})

    async def message(self, message):
        if isinstance(message, types.ServerNotification):
            self.notifications.append(message.root.method)
            if message.root.method == "notifications/message":
                self.logs.append(message.root.params.data)

    def count(self, method):
        return self.notifications.count(method)


async def step(name, coroutine, check):
    """Run COROUTINE within STEP seconds; CHECK(result) -> (ok, detail)."""
    try:
        with anyio.fail_after(STEP):
            result = await coroutine
        ok, detail = check(result)
    except Exception as e:  # a peer's exception is a failed check, reported
        ok, detail = False, f"{type(e).__name__}: {e}"
    report(name, ok, detail)


async def wait_for(peer, method, count, seconds=STEP):
    with anyio.move_on_after(seconds):
        while peer.count(method) < count:
            await anyio.sleep(0.05)
    return peer.count(method) >= count


async def list_changed(session, peer, trigger, arguments, registered=None):
    """TRIGGER makes the backend publish a tools list change: it must reach
    this session as a notification (and none before it)."""
    method = "notifications/tools/list_changed"
    before = peer.count(method)
    report("no-list-changed-before-trigger", before == 0, f"{before} before the trigger; all so far: {peer.notifications}")
    await step("list-changed-trigger", session.call_tool(trigger, arguments), lambda r: (not r.isError, text_of(r)[:80]))
    arrived = await wait_for(peer, method, before + 1)
    report("list-changed-notification", arrived, f"{peer.count(method) - before} after the trigger")
    await anyio.sleep(0.5)  # a duplicate would come by now
    after = peer.count(method) - before
    report("list-changed-once", after == 1, f"{after} after the trigger, one wanted")
    if registered:
        await step(
            "registered-tool-listed",
            session.list_tools(),
            lambda r: (registered in {t.name for t in r.tools}, f"{registered} in {len(r.tools)} tools"),
        )
        await step(
            "registered-tool-call",
            session.call_tool(registered, {"text": "hi"}),
            lambda r: (text_of(r) == f"{registered}: hi", text_of(r)),
        )


async def unknown_resource(session, uri):
    """A read of an unknown URI: the modern backend's -32602 reaches a legacy
    session as 2025-11-25's resource-not-found, -32002."""
    try:
        with anyio.fail_after(STEP):
            result = await session.read_resource(uri)
        report("resources-read-unknown", False, f"read: {result}")
    except McpError as e:
        report("resources-read-unknown", e.error.code == -32002, f"{e.error.code} {e.error.message}")
    except Exception as e:
        report("resources-read-unknown", False, f"{type(e).__name__}: {e}")


# The resource (URI, text) and an unknown URI of the backends that share
# py2's fixture: the tools add, ask_color and register_tool, the prompt review.
FIXTURES = {
    "py2": ("py2://notes/readme", "gateway-py2 readme: served by MCPServer 2.x, modern only", "py2://nothing/here"),
    "rsdk2": (
        "rsdk2://notes/readme",
        "gateway-rsdk2 readme: served by rust-mcp-sdk 2.0.0, modern only",
        "rsdk2://nothing/here",
    ),
}


async def py2(session, peer, fixture="py2"):
    uri, text, unknown = FIXTURES[fixture]
    await step(
        "tools-list",
        session.list_tools(),
        lambda r: ({"add", "ask_color", "register_tool"} <= {t.name for t in r.tools}, f"{len(r.tools)} tools"),
    )
    await step("tools-call", session.call_tool("add", {"a": 2, "b": 40}), lambda r: (text_of(r) == "42", text_of(r)))
    await step(
        "resources-read",
        session.read_resource(uri),
        lambda r: (r.contents[0].text == text, r.contents[0].text),
    )
    await unknown_resource(session, unknown)
    code = "print(" + secrets.token_hex(3) + ")"
    await step(
        "prompts-get",
        session.get_prompt("review", {"code": code}),
        lambda r: (r.messages[0].content.text == f"Please review this code: {code}", r.messages[0].content.text),
    )
    await step(
        "elicitation-create",
        session.call_tool("ask_color", {}),
        lambda r: (
            text_of(r) == f"color={peer.answer}" and peer.asked[-1] == ("Which colour?", ["color"]),
            f"{text_of(r)} (answered {peer.answer}; asked {peer.asked})",
        ),
    )
    name = "echo_" + secrets.token_hex(3)
    await list_changed(session, peer, "register_tool", {"name": name}, registered=name)


async def everything(session, peer):
    await step(
        "tools-list",
        session.list_tools(),
        lambda r: (
            {"test_simple_text", "test_elicitation", "test_trigger_tool_change"} <= {t.name for t in r.tools},
            f"{len(r.tools)} tools",
        ),
    )
    await step(
        "tools-call",
        session.call_tool("test_simple_text", {}),
        lambda r: (text_of(r) == "This is a simple text response for testing.", text_of(r)),
    )
    await step(
        "resources-read",
        session.read_resource("test://static-text"),
        lambda r: (r.contents[0].text == "This is the content of the static text resource.", r.contents[0].text),
    )
    await unknown_resource(session, "test://nothing/here")
    arg = secrets.token_hex(3)
    await step(
        "prompts-get",
        session.get_prompt("test_prompt_with_arguments", {"arg1": arg, "arg2": "b"}),
        lambda r: (
            r.messages[0].content.text == f"Prompt with arguments: arg1='{arg}', arg2='b'",
            r.messages[0].content.text,
        ),
    )
    message = "Say something " + secrets.token_hex(2)
    await step(
        "elicitation-create",
        session.call_tool("test_elicitation", {"message": message}),
        lambda r: (
            text_of(r) == f'User response: action=accept, content={{"response":"{peer.answer}"}}'
            and peer.asked[-1] == (message, ["response"]),
            f"{text_of(r)} (answered {peer.answer}; asked {peer.asked})",
        ),
    )
    await list_changed(session, peer, "test_trigger_tool_change", {})
    # The rest of a legacy session, served through the modern backend:
    # progress of a call, completion, resources/subscribe and its updates,
    # logging/setLevel and the call's log message.
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    await step(
        "progress",
        session.call_tool("test_streaming_elicitation", {}, progress_callback=on_progress),
        lambda r: (progress == [(1.0, 1.0, "Streaming")], f"{text_of(r)}; progress {progress}"),
    )
    await step(
        "completion-complete",
        session.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "te"}
        ),
        lambda r: (r.completion.values == ["test", "testValue1", "testValue2"], f"{r.completion.values}"),
    )
    uri = "test://watched-resource"
    updated = "notifications/resources/updated"
    await step("resources-subscribe", session.subscribe_resource(uri), lambda r: (True, uri))
    await step(
        "resource-update-trigger", session.call_tool("test_trigger_resource_update", {}), lambda r: (True, text_of(r))
    )
    report("resources-updated", await wait_for(peer, updated, 1), f"{peer.count(updated)} of {uri}")
    await step("logging-set-level", session.set_logging_level("info"), lambda r: (True, "info"))
    await step("log-tool", session.call_tool("test_logging_tool", {}), lambda r: (True, text_of(r)))
    logged = await wait_for(peer, "notifications/message", 1, 5)
    report("log-message", logged and peer.logs == ["Diagnostic trace logging activated"], f"{peer.logs}")


async def rsdk2(session, peer):
    await py2(session, peer, "rsdk2")


PROFILES = {"py2": py2, "rsdk2": rsdk2, "everything": everything}


@asynccontextmanager
async def connect(target):
    if target.startswith("http"):
        async with streamable_http_client(target) as (read, write, _):
            yield read, write
    else:
        command = shlex.split(target)
        async with stdio_client(StdioServerParameters(command=command[0], args=command[1:])) as (read, write):
            yield read, write


async def main(profile, target):
    peer = Peer()
    try:
        async with connect(target) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=STEP),
                elicitation_callback=peer.elicit,
                message_handler=peer.message,
            ) as session:
                with anyio.fail_after(STEP):
                    init = await session.initialize()
                report(
                    "legacy-initialize",
                    init.protocolVersion == "2025-11-25",
                    f"version {init.protocolVersion}, server {init.serverInfo.name}",
                )
                await PROFILES[profile](session, peer)
                await step("ping", session.send_ping(), lambda r: (True, "answered"))
    except Exception as e:
        report("client", False, f"{type(e).__name__}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2]))
