"""The Python SDK client (mcp==2.3.0), pinned to the modern era
(2026-07-28), in front of the era gateway (interop/gateway.sh).

usage: gateway_py_client.py PROFILE TARGET [ARGS...]
  PROFILE   which backend stands behind the gateway at TARGET:
              everything             @modelcontextprotocol/server-everything
              py1 [no-listen]        interop/gateway_py1_server.py (mcp 1.x);
                                     no-listen: no subscriptions/listen check
              filesystem DIR FILE    @modelcontextprotocol/server-filesystem,
                                     DIR allowed, FILE inside it
  TARGET    the gateway's http:// URL, or the command line (one shell-quoted
            string) that starts it on stdio

Prints one line per check, `ok NAME DETAIL` or `fail NAME DETAIL`; exits 1
when any failed. The backend's elicitation, sampling and roots requests reach
this client as input_required rounds: its callbacks answer with a fresh random
value, and the check passes only when the backend's result carries that value
back.
"""

import secrets
import shlex
import sys
from pathlib import Path

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters

STEP = 20  # seconds per step
failures = 0


def report(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'fail'} {name} {detail}".rstrip(), flush=True)


def text_of(result):
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Answers:
    """The callbacks' answers, fresh per run, and what they were asked."""

    def __init__(self):
        self.color = "teal-" + secrets.token_hex(4)
        self.sampled = "sampled-" + secrets.token_hex(4)
        self.root = "root-" + secrets.token_hex(4)
        self.asked = []

    async def elicit(self, context, params):
        """Give the colour when asked for one; decline anything else."""
        self.asked.append(("elicitation/create", params.message))
        if "colour" not in params.message:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"color": self.color})

    async def sample(self, context, params):
        self.asked.append(("sampling/createMessage", params.messages[0].content.text))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.sampled),
            model="gateway-test-model",
            stop_reason="endTurn",
        )

    async def roots(self, context):
        self.asked.append(("roots/list", None))
        return types.ListRootsResult(roots=[types.Root(uri=f"file:///tmp/{self.root}", name=self.root)])


async def step(name, coroutine, check):
    """Run COROUTINE within STEP seconds; CHECK(result) -> (ok, detail)."""
    try:
        with anyio.fail_after(STEP):
            result = await coroutine
        ok, detail = check(result)
    except Exception as e:  # a peer's exception is a failed check, reported
        ok, detail = False, f"{type(e).__name__}: {e}"
    report(name, ok, detail)


async def common(client, tools_wanted):
    report("modern-era", client.protocol_version == "2026-07-28", f"version {client.protocol_version}")
    await step(
        "tools-list",
        client.list_tools(),
        lambda r: (
            set(tools_wanted) <= {t.name for t in r.tools},
            f"{len(r.tools)} tools, wanted {','.join(tools_wanted)}",
        ),
    )


async def everything(client, answers, args):
    await common(client, ["echo", "get-sum", "trigger-sampling-request", "get-roots-list"])
    await step("tools-call", client.call_tool("get-sum", {"a": 2, "b": 3}), lambda r: ("5" in text_of(r), text_of(r)[:80]))
    resources = await client.list_resources()
    uri = str(resources.resources[0].uri)
    await step("resources-read", client.read_resource(uri), lambda r: (str(r.contents[0].uri) == uri, uri))
    await step(
        "prompts-get",
        client.get_prompt("simple-prompt"),
        lambda r: (len(r.messages) > 0 and r.messages[0].role == "user", f"{len(r.messages)} message(s)"),
    )
    await step(
        "sampling-round",
        client.call_tool("trigger-sampling-request", {"prompt": "Say hi"}),
        lambda r: (
            answers.sampled in text_of(r) and answers.asked[-1][0] == "sampling/createMessage",
            f"{answers.sampled} in the result: {answers.sampled in text_of(r)}",
        ),
    )
    # The backend asks for the roots once per session and keeps them, and
    # the gateway has one backend session for all its clients: only the
    # first client through this gateway sees the round (gateway.sh runs
    # this one first).
    await step(
        "roots-round",
        client.call_tool("get-roots-list", {}),
        lambda r: (
            f"URI: file:///tmp/{answers.root}" in text_of(r) and ("roots/list", None) in answers.asked,
            f"file:///tmp/{answers.root} in the result: {f'URI: file:///tmp/{answers.root}' in text_of(r)}",
        ),
    )


async def py1(client, answers, args):
    await common(client, ["add", "ask_color", "ask_twice", "summarize", "register_tool"])
    await step("tools-call", client.call_tool("add", {"a": 2, "b": 40}), lambda r: (text_of(r) == "42", text_of(r)))
    await step(
        "resources-read",
        client.read_resource("py1://notes/readme"),
        lambda r: (r.contents[0].text == "gateway-py1 readme: served by FastMCP 1.x", r.contents[0].text),
    )
    code = "print(" + secrets.token_hex(3) + ")"
    await step(
        "prompts-get",
        client.get_prompt("review", {"code": code}),
        lambda r: (code in r.messages[0].content.text, r.messages[0].content.text),
    )
    await step(
        "elicitation-round",
        client.call_tool("ask_color", {}),
        lambda r: (text_of(r) == f"color={answers.color}", f"{text_of(r)} (answered {answers.color})"),
    )
    # Rounds on the two other methods that may ask: a read that elicits, a
    # prompt that samples.
    who = "ada-" + secrets.token_hex(2)
    await step(
        "resources-read-elicitation-round",
        client.read_resource(f"py1://colors/{who}"),
        lambda r: (r.contents[0].text == f"{who} likes {answers.color}", r.contents[0].text),
    )
    await step(
        "prompts-get-sampling-round",
        client.get_prompt("haiku", {"topic": "gateways"}),
        lambda r: (
            r.messages[0].content.text == f"Improve this haiku: {answers.sampled}"
            and answers.asked[-1][1] == "A haiku about gateways",
            r.messages[0].content.text,
        ),
    )
    # Two requests in one call: two rounds, the second declined.
    asked = len(answers.asked)
    await step(
        "elicitation-two-rounds-decline",
        client.call_tool("ask_twice", {}),
        lambda r: (
            text_of(r) == f"color={answers.color}; go on: decline" and len(answers.asked) == asked + 2,
            f"{text_of(r)} ({len(answers.asked) - asked} requests answered)",
        ),
    )
    await step(
        "sampling-round",
        client.call_tool("summarize", {"text": "MCP eras"}),
        lambda r: (
            text_of(r) == f"model gateway-test-model said: {answers.sampled}"
            and "Summarize: MCP eras" in answers.asked[-1][1],
            text_of(r),
        ),
    )
    if "no-listen" in args:
        return
    # A list change announced by the backend during a call reaches a
    # listening client through the gateway, and the new tool is served.
    name = "echo_" + secrets.token_hex(3)
    honored = None
    try:
        with anyio.fail_after(STEP):
            async with client.listen(tools_list_changed=True) as subscription:
                honored = subscription.honored
                called = await client.call_tool("register_tool", {"name": name})
                async for event in subscription:
                    break
        report("listen-tools-list-changed", True, f"{type(event).__name__} after {text_of(called)!r}")
    except Exception as e:
        report("listen-tools-list-changed", False, f"{type(e).__name__}: {e} (acknowledged filter: {honored})")
    await step(
        "registered-tool-call",
        client.call_tool(name, {"text": "hi"}),
        lambda r: (text_of(r) == f"{name}: hi", text_of(r)),
    )


async def filesystem(client, answers, args):
    directory, file = Path(args[0]).resolve(), Path(args[1]).resolve()
    await common(client, ["read_text_file", "list_directory", "list_allowed_directories"])
    await step(
        "tools-call-read-file",
        client.call_tool("read_text_file", {"path": str(file)}),
        lambda r: (text_of(r) == file.read_text(), text_of(r)[:80]),
    )
    await step(
        "tools-call-list-directory",
        client.call_tool("list_directory", {"path": str(directory)}),
        lambda r: (f"[FILE] {file.name}" in text_of(r), text_of(r)[:80]),
    )
    outside = "/etc/hostname"
    await step(
        "tools-call-outside-refused",
        client.call_tool("read_text_file", {"path": outside}),
        lambda r: (r.is_error is True and "denied" in text_of(r).lower(), text_of(r)[:80]),
    )


PROFILES = {"everything": everything, "py1": py1, "filesystem": filesystem}


async def main(profile, target, args):
    answers = Answers()
    if not target.startswith("http"):
        command = shlex.split(target)
        target = StdioServerParameters(command=command[0], args=command[1:])
    try:
        async with Client(
            target,
            mode="2026-07-28",
            read_timeout_seconds=STEP,
            elicitation_callback=answers.elicit,
            sampling_callback=answers.sample,
            list_roots_callback=answers.roots,
        ) as client:
            await PROFILES[profile](client, answers, args)
    except Exception as e:
        report("client", False, f"{type(e).__name__}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:]))
