"""A minimal OTLP/HTTP receiver: decodes what exporters POST to /v1/traces
and /v1/metrics (protobuf, optionally gzip) with the official
`opentelemetry-proto` definitions and appends one JSON line per span and
per metric to OUT.

usage: receiver.py --port PORT --out OUT.jsonl

Binds 127.0.0.1 only. Answers each export with an empty Export*Response
(200); anything else with 404 or 400, so a wrong exporter setup shows up
as a failed export on the sender rather than as silently lost data.
"""
import argparse
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
STATUS = {0: "unset", 1: "ok", 2: "error"}


def any_value(v):
    kind = v.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, kind)


def attributes(kvs):
    return {kv.key: any_value(kv.value) for kv in kvs}


def spans_of(request):
    for rs in request.resource_spans:
        resource = attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            for span in ss.spans:
                yield {
                    "signal": "span",
                    "service": resource.get("service.name"),
                    "scope": ss.scope.name,
                    "name": span.name,
                    "kind": KINDS.get(span.kind, span.kind),
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "trace_state": span.trace_state,
                    "attributes": attributes(span.attributes),
                    "status": STATUS.get(span.status.code, span.status.code),
                    "status_message": span.status.message,
                }


def points_of(metric):
    kind = metric.WhichOneof("data")
    data = getattr(metric, kind)
    for point in data.data_points:
        entry = {"attributes": attributes(point.attributes)}
        if kind == "histogram":
            entry["count"] = point.count
            entry["sum"] = point.sum
        elif point.WhichOneof("value") == "as_int":
            entry["value"] = point.as_int
        else:
            entry["value"] = point.as_double
        yield kind, entry


def metrics_of(request):
    for rm in request.resource_metrics:
        resource = attributes(rm.resource.attributes)
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                points = list(points_of(metric))
                yield {
                    "signal": "metric",
                    "service": resource.get("service.name"),
                    "scope": sm.scope.name,
                    "name": metric.name,
                    "unit": metric.unit,
                    "type": points[0][0] if points else metric.WhichOneof("data"),
                    "points": [p for _, p in points],
                }


ROUTES = {
    "/v1/traces": (trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse, spans_of),
    "/v1/metrics": (
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
        metrics_of,
    ),
}


def make_handler(out, lock):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            route = ROUTES.get(self.path)
            if route is None:
                self.send_error(404)
                return
            request_type, response_type, records = route
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                body = gzip.decompress(body)
            if "protobuf" not in self.headers.get("Content-Type", ""):
                self.send_error(400, "expected application/x-protobuf")
                return
            request = request_type()
            try:
                request.ParseFromString(body)
            except DecodeError as e:
                self.send_error(400, f"not an {request_type.__name__}: {e}")
                return
            lines = [json.dumps(r, sort_keys=True) for r in records(request)]
            with lock, open(out, "a", encoding="utf-8") as f:
                for line in lines:
                    f.write(line + "\n")
            reply = response_type().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt, *args):
            sys.stderr.write("receiver: " + (fmt % args) + "\n")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    open(args.out, "w").close()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.out, threading.Lock()))
    print(f"OTLP/HTTP receiver on http://127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
