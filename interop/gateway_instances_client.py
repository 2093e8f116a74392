"""The Python SDK client (mcp==2.3.0), pinned to the modern era
(2026-07-28), calling `test_elicitation` of mcp-everything through two era
gateway instances behind a round-robin balancer (interop/gateway-instances.sh).

usage: gateway_instances_client.py URL CALLS

Each call is answered through an MRTR round: the elicitation callback gives
a fresh value, and the check passes only when the call's result carries it
back (the round's retry may land on the other instance, which forwards it
to the one holding the call). Prints one line per check, `ok NAME DETAIL`
or `fail NAME DETAIL`; exits 1 when any failed.
"""

import secrets
import sys

import anyio
import mcp.types as types
from mcp import Client

STEP = 20  # seconds per call
failures = 0


def report(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'fail'} {name} {detail}".rstrip(), flush=True)


class Answers:
    def __init__(self):
        self.value = None
        self.asked = 0

    async def elicit(self, context, params):
        self.asked += 1
        return types.ElicitResult(action="accept", content={"response": self.value})


async def main(url, calls):
    answers = Answers()
    try:
        async with Client(
            url, mode="2026-07-28", read_timeout_seconds=STEP, elicitation_callback=answers.elicit
        ) as client:
            for n in range(calls):
                answers.value = "ans-" + secrets.token_hex(4)
                asked = answers.asked
                try:
                    with anyio.fail_after(STEP):
                        result = await client.call_tool("test_elicitation", {"message": f"call {n}?"})
                    text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
                    ok = answers.value in text and answers.asked == asked + 1 and not result.is_error
                    report(f"call-{n}", ok, text[:100])
                except Exception as e:  # a peer's exception is a failed check, reported
                    report(f"call-{n}", False, f"{type(e).__name__}: {e}")
    except Exception as e:
        report("client", False, f"{type(e).__name__}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], int(sys.argv[2])))
