//! A caller of one tool of a generated client builds without a warning: the
//! codegen's snapshot `client-one-tool.rs` (kept current by
//! `codegen/tests/client.rs`), compiled here where the client runtime is.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

/// A typed client for three tools, of which the test below uses one.
#[deny(warnings, unused)] // nothing a caller leaves unused may warn
#[rustfmt::skip] // generated text: compared byte for byte
#[path = "../../codegen/tests/snapshots/client-one-tool.rs"]
mod demo;

#[test]
fn a_caller_of_one_tool_builds_without_warnings() {
    let args = demo::GetWeatherArgs {
        city: "Paris".into(),
        unit: Some(demo::GetWeatherArgsUnit::Celsius),
        place: Some(demo::GetWeatherArgsPlace {
            lat: 48.9,
            lon: 2.3,
        }),
        tags: Default::default(),
    };
    let json = serde_json::to_value(&args).unwrap();
    assert_eq!(json["place"]["lat"], 48.9);
    assert_eq!(json["unit"], "celsius");
    // Three types named `Unit`: each under its owner's name.
    let _ = (demo::OtherArgsUnit::X, demo::GetWeatherOutputUnit::C);
    // One method, named but never awaited: there is no server here.
    let _ = demo::DemoClient::get_weather;
}
