"""The Python SDK client (mcp==2.3.0), traced by the OpenTelemetry SDK,
calls tools on our server over Streamable HTTP; writes the client's
finished spans as JSON lines to OUT for check.py.

usage: client.py URL OUT.jsonl

The SDK's client wraps each request in a CLIENT span ("MCP send <method>
<name>") and injects its W3C context into the request's `_meta`
(`traceparent`, `tracestate`) through the global propagator. Here the
tracer provider keeps the spans in the SDK's in-memory exporter; the
propagator is the W3C one, with a `tracestate` entry set on the root
span's context so its forwarding is checked too.

Calls, each in its own trace under a span named after the case:
  modern-ok      2026-07-28, tools/call test_simple_text
  modern-error   2026-07-28, tools/call test_error_handling (isError)
  legacy-ok      legacy session, tools/call test_simple_text
"""
import asyncio
import json
import sys

from mcp import Client
from opentelemetry import context, trace
from opentelemetry.propagate import set_global_textmap
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.trace.span import TraceState

TRACESTATE = TraceState([("interop", "otel")])

exporter = InMemorySpanExporter()
provider = TracerProvider(resource=Resource.create({"service.name": "interop-python-client"}))
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
set_global_textmap(TraceContextTextMapPropagator())
tracer = trace.get_tracer("interop-otel-client")


def with_tracestate():
    """A new trace whose remote parent carries TRACESTATE: spans started
    under it inherit the trace state, as W3C asks."""
    ids = provider.id_generator
    parent = SpanContext(
        trace_id=ids.generate_trace_id(),
        span_id=ids.generate_span_id(),
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TRACESTATE,
    )
    return trace.set_span_in_context(NonRecordingSpan(parent))


async def call(case, mode, url, tool):
    token = context.attach(with_tracestate())
    try:
        with tracer.start_as_current_span(case):
            async with Client(url, mode=mode, read_timeout_seconds=10) as client:
                result = await client.call_tool(tool, {})
                text = result.content[0].text if result.content else None
                print(f"{case}: mode={mode} version={client.protocol_version} "
                      f"isError={result.is_error} text={text!r}")
    finally:
        context.detach(token)


async def main(url, out):
    await call("modern-ok", "2026-07-28", url, "test_simple_text")
    await call("modern-error", "2026-07-28", url, "test_error_handling")
    await call("legacy-ok", "legacy", url, "test_simple_text")
    provider.force_flush()
    with open(out, "w", encoding="utf-8") as f:
        for span in exporter.get_finished_spans():
            ctx = span.get_span_context()
            f.write(json.dumps({
                "name": span.name,
                "kind": span.kind.name.lower(),
                "trace_id": format(ctx.trace_id, "032x"),
                "span_id": format(ctx.span_id, "016x"),
                "parent_span_id": format(span.parent.span_id, "016x") if span.parent else "",
                "trace_state": ctx.trace_state.to_header(),
                "attributes": dict(span.attributes or {}),
            }, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
