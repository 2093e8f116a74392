//! Check: the rules a parsed router must follow, each mistake a compile
//! error at the span that caused it: the impl block's shape, names, each
//! kind's parameters, the MCP Apps keys.

use std::collections::BTreeMap;

use syn::{ItemImpl, LitStr, Type};

use super::ast::{Kind, Method, Param, Settings, name_of, name_span};
use super::shape::{never_object, template_variables};
use crate::internals::check::{check_icon, check_scopes};
use crate::internals::ctxt::Ctxt;
use crate::internals::suggest::did_you_mean;
use mcp_era_apps_rules as apps;

const TASK_SUPPORT: &[&str] = &["never", "optional", "required"];

/// The impl block itself: inherent and not generic.
pub fn impl_block(cx: &mut Ctxt, item: &ItemImpl) {
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[router]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "`#[router]` impl blocks cannot be generic: the tables are statics",
        );
    }
}

/// Cross-method and per-kind rules; false when expansion would only add
/// confusing errors.
pub fn check(cx: &mut Ctxt, methods: &[Method]) -> bool {
    let before = cx.has_errors();
    let mut seen: BTreeMap<(u8, String), ()> = BTreeMap::new();
    check_apps(cx, methods);
    for method in methods {
        for icon in &method.settings.icons {
            check_icon(cx, icon);
        }
        if let Some(Some(scopes)) = &method.settings.scopes {
            check_scopes(cx, scopes);
        }
        let name = name_of(method);
        let key = match method.kind {
            Kind::Tool => 0,
            Kind::Resource => 1,
            Kind::Prompt => 2,
        };
        if seen.insert((key, name.clone()), ()).is_some() {
            cx.syn_error(syn::Error::new(
                name_span(method),
                format!("duplicate {} name `{name}`", method.kind.word()),
            ));
        }
        let inputs: Vec<&Param> = method.params.iter().filter(|p| !p.context).collect();
        match method.kind {
            Kind::Tool => check_tool(cx, method, &name, &inputs),
            Kind::Resource => check_resource(cx, method, &inputs),
            Kind::Prompt => check_prompt(cx, &inputs),
        }
    }
    !cx.has_errors() || before
}

fn check_tool(cx: &mut Ctxt, method: &Method, name: &str, inputs: &[&Param]) {
    if let Some(task) = method.settings.strings.get("task")
        && !TASK_SUPPORT.contains(&task.value().as_str())
    {
        cx.error_spanned_by(
            task,
            format!(
                "unknown task support `{}`: use \"never\", \"optional\" or \"required\"",
                task.value()
            ),
        );
    }
    if !valid_tool_name(name) {
        cx.syn_error(syn::Error::new(
                name_span(method),
                format!("tool name `{name}` must be 1 to 128 characters from A-Z a-z 0-9 _ - . (MCP tool naming rules)"),
            ));
    }
    let wholes: Vec<&&Param> = inputs.iter().filter(|p| p.whole).collect();
    if let Some(whole) = wholes.first() {
        if inputs.len() > 1 {
            cx.error_spanned_by(&whole.ident, "an `#[arguments]` parameter must be the tool's only argument (besides `&RequestContext`)");
        } else if never_object(&whole.ty) {
            cx.error_spanned_by(&whole.ty, "an `#[arguments]` type must be a struct (its JSON Schema an object): tool arguments are a JSON object; take plain parameters instead");
        }
    }
    let mut headers: BTreeMap<String, ()> = BTreeMap::new();
    for param in inputs {
        if let Some(header) = &param.header
            && headers
                .insert(header.value().to_ascii_lowercase(), ())
                .is_some()
        {
            cx.error_spanned_by(
                header,
                format!(
                    "two arguments use the header name `Mcp-Param-{}`",
                    header.value()
                ),
            );
        }
        if param.request {
            cx.error_spanned_by(
                &param.ty,
                "`ResourceRequest` is a resource method's parameter",
            );
        }
        if let Some(complete) = &param.complete {
            cx.error_spanned_by(
                    complete,
                    "`complete` applies to prompt arguments and URI template variables; tool arguments have no completions",
                );
        }
    }
}

fn check_resource(cx: &mut Ctxt, method: &Method, inputs: &[&Param]) {
    let ui = method.settings.strings.get("ui");
    let uri = method.settings.strings.get("uri");
    let template = method.settings.strings.get("template");
    if let (Some(ui), Some(_)) = (ui, uri.or(template)) {
        cx.error_spanned_by(
            ui,
            "`ui` is the URI of the App, a fixed `ui://` URI: drop `uri`/`template`",
        );
        return;
    }
    let uri = uri.or(ui);
    let variables = match (uri, template) {
        (Some(_), None) => Vec::new(),
        (None, Some(template)) => match template_variables(&template.value()) {
            Ok(names) => names,
            Err(e) => {
                cx.error_spanned_by(template, e);
                return;
            }
        },
        (Some(_), Some(template)) => {
            cx.error_spanned_by(template, "`uri` and `template` are mutually exclusive");
            return;
        }
        (None, None) => {
            cx.error_spanned_by(
                    &method.ident,
                    "a `#[resource]` needs `uri = \"...\"`, `template = \"...\"` or (an MCP App) `ui = \"ui://...\"`",
                );
            return;
        }
    };
    for param in inputs.iter().filter(|p| !p.request) {
        if param.whole || param.header.is_some() || param.description.is_some() {
            cx.error_spanned_by(
                &param.ident,
                "resource parameters take no `#[arg]`/`#[arguments]` settings",
            );
        }
        if !variables.contains(&param.name) {
            cx.error_spanned_by(
                &param.ident,
                format!(
                    "`{}` is not a variable of the URI template{}",
                    param.name,
                    if variables.is_empty() {
                        String::new()
                    } else {
                        format!(" (variables: {})", variables.join(", "))
                    }
                ),
            );
        }
    }
}

fn check_prompt(cx: &mut Ctxt, inputs: &[&Param]) {
    for param in inputs {
        if param.whole || param.header.is_some() || param.request {
            cx.error_spanned_by(&param.ident, "prompt arguments are plain parameters; `#[arguments]`, `header` and `ResourceRequest` do not apply");
        }
    }
}

fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The MCP Apps keys: `#[resource(ui = ..., csp(...), ...)]` and
/// `#[tool(ui = ..., visibility = [...])]`. A tool's `ui` must name a
/// `#[resource(ui = ...)]` of this impl block when it has resources; with
/// none, the generated code checks that the server serves resources.
fn check_apps(cx: &mut Ctxt, methods: &[Method]) {
    let resources: Vec<&Method> = methods
        .iter()
        .filter(|m| m.kind == Kind::Resource)
        .collect();
    let app_uris: Vec<String> = resources
        .iter()
        .filter_map(|m| m.settings.strings.get("ui").map(LitStr::value))
        .collect();
    for method in methods {
        let settings = &method.settings;
        let ui = settings.strings.get("ui");
        if let Some(ui) = ui
            && let Err(e) = apps::check_ui_uri(&ui.value())
        {
            cx.error_spanned_by(ui, e);
        }
        match method.kind {
            Kind::Resource => check_app_resource(cx, settings, ui),
            Kind::Tool => check_app_tool(cx, method, ui, &resources, &app_uris),
            Kind::Prompt => {}
        }
    }
}

fn check_app_resource(cx: &mut Ctxt, settings: &Settings, ui: Option<&LitStr>) {
    if ui.is_none() {
        if let Some(span) = settings.ui_key {
            cx.syn_error(syn::Error::new(
                    span,
                    "`csp`, `permissions`, `domain` and `prefers_border` describe an MCP App: write `ui = \"ui://...\"` instead of `uri`",
                ));
        }
        if let Some(uri) = settings.strings.get("uri")
            && uri.value().starts_with("ui://")
        {
            cx.error_spanned_by(
                    uri,
                    "a `ui://` resource is an MCP App: write `ui = \"...\"` instead of `uri` (it sets the MIME type and `_meta.ui`)",
                );
        }
        return;
    }
    if let Some(mime) = settings.strings.get("mime_type") {
        cx.error_spanned_by(
            mime,
            format!(
                "an MCP App's MIME type is always `{}`: drop `mime_type`",
                apps::MIME_TYPE
            ),
        );
    }
    for domain in settings.csp.iter().flatten().flat_map(|(_, list)| list) {
        if let Err(e) = apps::check_origin(&domain.value()) {
            cx.error_spanned_by(domain, format!("CSP domain {e}"));
        }
    }
    if let Some(domain) = settings.strings.get("domain")
        && (domain.value().is_empty() || domain.value().contains(char::is_whitespace))
    {
        cx.error_spanned_by(domain, "`domain` must be a host name, without whitespace");
    }
}

fn check_app_tool(
    cx: &mut Ctxt,
    method: &Method,
    ui: Option<&LitStr>,
    resources: &[&Method],
    app_uris: &[String],
) {
    let settings = &method.settings;
    if let Some(visibility) = &settings.visibility {
        let mut seen = Vec::new();
        for who in visibility {
            let value = who.value();
            if !apps::VISIBILITIES.contains(&value.as_str()) {
                cx.error_spanned_by(
                        who,
                        format!("unknown visibility `{value}`: use \"model\" (the agent) and/or \"app\" (the tool's App)"),
                    );
            } else if seen.contains(&value) {
                cx.error_spanned_by(who, format!("duplicate visibility `{value}`"));
            } else {
                seen.push(value);
            }
        }
        if visibility.is_empty() {
            cx.error_spanned_by(
                &method.ident,
                "`visibility = []` leaves nobody to use the tool: list \"model\" and/or \"app\"",
            );
        }
    }
    if let Some(json) = &settings.meta
        && (ui.is_some() || settings.visibility.is_some())
        && let Ok(serde_json::Value::Object(meta)) = serde_json::from_str(json)
        && (meta.contains_key(apps::META_KEY) || meta.contains_key(apps::LEGACY_RESOURCE_URI_KEY))
    {
        cx.error_spanned_by(
                &method.ident,
                "`meta` sets `ui` too: write the App link once, with `ui = ...` and `visibility = [...]`",
            );
    }
    let Some(ui) = ui else { return };
    if matches!(&method.output, Type::Tuple(unit) if unit.elems.is_empty()) {
        cx.error_spanned_by(
                &method.ident,
                "a tool with an App answers with content a host without Apps can show (the spec's text fallback): return text, or `Json(value).with_text(...)`",
            );
    }
    if resources.is_empty() || app_uris.contains(&ui.value()) {
        return;
    }
    let names: Vec<&str> = app_uris.iter().map(String::as_str).collect();
    let hint = did_you_mean(&ui.value(), &names)
        .map_or_else(String::new, |best| format!("; did you mean `{best}`?"));
    let declared = if app_uris.is_empty() {
        " (it declares none)".to_owned()
    } else {
        format!(" (it declares {})", app_uris.join(", "))
    };
    cx.error_spanned_by(
        ui,
        format!(
            "no `#[resource(ui = \"{}\")]` in this `#[router]` impl block{declared}{hint}",
            ui.value()
        ),
    );
}
