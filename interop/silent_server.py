"""A deliberately silent legacy stdio server: it never answers
`server/discover` (nor anything else it does not know), but completes the
2025-11-25 `initialize` handshake and serves `tools/list` and `tools/call`.
A dual-era client must time out on its discover probe and fall back.
Plain Python 3, no dependencies.
"""

import json
import sys

TOOLS = [{"name": "ping_tool", "description": "Answers pong.", "inputSchema": {"type": "object"}}]


def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, msg_id = msg.get("method"), msg.get("id")
    if method == "initialize":
        reply(msg_id, {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "silent-legacy", "version": "1.0.0"},
        })
    elif method == "tools/list":
        reply(msg_id, {"tools": TOOLS})
    elif method == "tools/call":
        reply(msg_id, {"content": [{"type": "text", "text": "pong"}]})
    # Everything else, server/discover included: silence.
