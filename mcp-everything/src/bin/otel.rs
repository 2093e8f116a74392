//! `mcp-everything-otel` (feature `otel`): the fixture over Streamable HTTP
//! behind `otel::TraceLayer`, exporting spans and metrics over OTLP/HTTP
//! (protobuf) to `OTEL_EXPORTER_OTLP_ENDPOINT` (default
//! `http://localhost:4318`); the interop test in `interop/otel/` reads
//! them. `mcp-everything-otel [--listen 127.0.0.1:3001]`; it stops on
//! ctrl-c or SIGTERM after sending what is still buffered.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use mcp_era_server::McpServerExt;
use mcp_era_server::http::HttpConfig;
use mcp_era_server::otel::TraceLayer;
use mcp_everything::Everything;
use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;

const USAGE: &str = "usage: mcp-everything-otel [--listen 127.0.0.1:3001]
Spans and metrics go over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT
(default http://localhost:4318); the SDK's OTEL_* variables apply.";

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let listen: SocketAddr = match args.as_slice() {
        [] => SocketAddr::from(([127, 0, 0, 1], 3001)),
        [flag, addr] if flag == "--listen" => match addr.parse() {
            Ok(addr) => addr,
            Err(e) => {
                eprintln!("bad --listen address {addr:?}: {e}\n{USAGE}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match serve(listen) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-everything-otel: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(listen: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    // Built before the server's runtime starts: the blocking HTTP client
    // lives on the SDK's own export threads, never on a runtime worker.
    let resource = Resource::builder()
        .with_service_name("mcp-everything-otel")
        .build();
    let tracers = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_batch_exporter(SpanExporter::builder().with_http().build()?)
        .build();
    // Every second, so a short test sees its metrics without a shutdown.
    let reader = PeriodicReader::builder(MetricExporter::builder().with_http().build()?)
        .with_interval(Duration::from_secs(1))
        .build();
    let meters = SdkMeterProvider::builder()
        .with_resource(resource)
        .with_reader(reader)
        .build();

    let server = Everything::new().layer(TraceLayer::with_providers(&tracers, &meters));
    let served = mcp_era_server::http::run(server, HttpConfig::new(listen));
    // Whatever the server's end, send what is buffered.
    let flushed = tracers.shutdown().and(meters.shutdown());
    served?;
    flushed?;
    Ok(())
}
