//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): the
//! methods `skills/list`, `skills/get` and (with `directoryRead`)
//! `resources/directory/read`, and the `skill://` resources, served from
//! the catalogue the declaration owns ([`Skills`]). The rules and their
//! sources are in `docs/extensions.md`.
//!
//! * The server turns the extension on by declaring it, beside
//!   `resources` (skill files are read with `resources/read`):
//!   `#[mcp(resources, extension("io.modelcontextprotocol/skills" = { "directoryRead": true }))]`.
//!   Without the declaration the methods answer `-32601` and `skill://`
//!   URIs go to the server's own resources handler; without
//!   `directoryRead: true`, `resources/directory/read` answers `-32601`.
//! * Skills come from code ([`Skill::builder`], [`Skills::insert`]) or a
//!   directory ([`Skills::load_dir`], [`Skills::watch_dir`]), on
//!   `server.declaration().skills()` before serving; each change
//!   announces `notifications/resources/list_changed` on the hub given to
//!   [`Skills::set_events`].
//! * `skills/list` pages the entries ([`Skills::set_page_size`]; an entry
//!   is never split), each with the frontmatter verbatim and every file's
//!   `sha256:` digest and size; `skills/get` answers one entry; both carry
//!   the declaration's `ttlMs`/`cacheScope` (`#[mcp(cache(...))]`).
//! * `resources/read` of a `skill://` URI is served here: the file's bytes
//!   (text, or a base64 `blob` when not UTF-8). The first page of
//!   `resources/list` also lists each `SKILL.md`, named and described from
//!   its frontmatter, `text/markdown`.
//! * Every `skill://` URI is checked before any lookup: `.`/`..` segments,
//!   empty segments (an absolute path), `%`-escapes, `\`, NUL, `?` and `#`
//!   are refused with `-32602` saying why; so are files refused when the
//!   skill was loaded (a symlink out of its directory, a loop), and unknown
//!   skills and files.

use mcp_era_types::ext::skills::{
    self as ext, DIRECTORY_MIME_TYPE, DirectoryReadParams, EXTENSION_ID, GetSkillParams,
    ListSkillsParams, RESOURCES_DIRECTORY_READ, SKILLS_GET, SKILLS_LIST, SkillsSettings,
};
use mcp_era_types::v2026_07_28::Resource;
use serde_json::{Value, json};

use crate::model::declaration::ServerDeclaration;
use crate::model::extensions::{ExtensionTable, MethodHook, ServerFacts};
use crate::wire::errors::{self, ErrorObject};

pub use crate::state::skills::{
    DEFAULT_PAGE_SIZE, LoadReport, Skill, SkillBuilder, SkillError, SkillFileData, Skills,
};

/// The methods this module serves.
pub const SKILL_METHODS: &[&str] = &[SKILLS_LIST, SKILLS_GET, RESOURCES_DIRECTORY_READ];

/// The extension's settings as declared, if it is declared.
fn declared(declaration: &ServerDeclaration) -> Option<SkillsSettings> {
    let settings = declaration
        .capabilities()
        .extensions
        .as_ref()?
        .get(EXTENSION_ID)?;
    Some(
        serde_json::to_value(settings)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default(),
    )
}

/// Registers the methods the declaration turns on, the `skill://` reads
/// and the `SKILL.md` entries of the first `resources/list` page; nothing
/// when the extension is not declared.
pub(crate) fn register(declaration: &ServerDeclaration, table: &mut ExtensionTable) {
    let Some(settings) = declared(declaration) else {
        return;
    };
    table.add_method(SKILLS_LIST, MethodHook::Now(handle_method));
    table.add_method(SKILLS_GET, MethodHook::Now(handle_method));
    if settings.directory_read() {
        table.add_method(RESOURCES_DIRECTORY_READ, MethodHook::Now(handle_method));
    }
    table.add_read_resource(read_hook);
    table.add_first_list_page(listed_resources);
}

/// `resources/read` of a `skill://` URI, from the catalogue, unless the
/// server serves the extension itself (a proxy claiming `skills/get`);
/// `None` leaves the URI to the server's own handler.
fn read_hook(
    server: &dyn ServerFacts,
    declaration: &ServerDeclaration,
    uri: &str,
) -> Option<Result<Value, ErrorObject>> {
    if !uri.starts_with(ext::SCHEME) || server.serves_method(SKILLS_GET) {
        return None;
    }
    Some(read(declaration, uri))
}

/// Serves one of [`SKILL_METHODS`]; the result without `resultType` and
/// `_meta`, which the caller adds.
fn handle_method(
    declaration: &ServerDeclaration,
    method: &str,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    match method {
        SKILLS_LIST => {
            let params: ListSkillsParams = read_params(method, params)?;
            list(declaration, params.cursor.as_deref())
        }
        SKILLS_GET => {
            let params: GetSkillParams = read_params(method, params)?;
            get(declaration, &params.uri)
        }
        RESOURCES_DIRECTORY_READ => {
            let params: DirectoryReadParams = read_params(method, params)?;
            directory(declaration, &params.uri, params.cursor.as_deref())
        }
        other => Err(errors::method_not_found(format!("Unknown method {other}"))),
    }
}

fn read_params<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Option<&Value>,
) -> Result<T, ErrorObject> {
    match params {
        None | Some(Value::Null) => serde_json::from_value(json!({}))
            .map_err(|e| errors::invalid_params(format!("Invalid params for {method}: {e}"))),
        Some(params) => serde_json::from_value(params.clone())
            .map_err(|e| errors::invalid_params(format!("Invalid params for {method}: {e}"))),
    }
}

/// The offset an opaque cursor of ours stands for.
fn offset_of(cursor: Option<&str>) -> Result<usize, ErrorObject> {
    match cursor {
        None => Ok(0),
        Some(cursor) => cursor
            .strip_prefix("skills:")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| errors::invalid_params(format!("Invalid cursor: {cursor}"))),
    }
}

fn cache_hints(declaration: &ServerDeclaration, result: &mut Value) {
    result["ttlMs"] = json!(declaration.cache_ttl_ms());
    result["cacheScope"] = json!(declaration.cache_scope());
}

fn list(declaration: &ServerDeclaration, cursor: Option<&str>) -> Result<Value, ErrorObject> {
    let skills = declaration.skills();
    let catalogue = skills.snapshot();
    let start = offset_of(cursor)?;
    if start > catalogue.len() {
        return Err(errors::invalid_params(format!(
            "Invalid cursor: {}",
            cursor.unwrap_or_default()
        )));
    }
    let end = catalogue.len().min(start + skills.page_size());
    let entries: Vec<_> = catalogue
        .values()
        .skip(start)
        .take(end - start)
        .map(Skill::entry)
        .collect();
    let mut result = json!({ "skills": entries });
    if end < catalogue.len() {
        result["nextCursor"] = json!(format!("skills:{end}"));
    }
    cache_hints(declaration, &mut result);
    Ok(result)
}

/// `-32602` for a URI refused before lookup.
fn refused_uri(uri: &str, reason: impl std::fmt::Display) -> ErrorObject {
    let reason = reason.to_string();
    let mut error = errors::invalid_params(format!("Refused skill URI {uri}: {reason}"));
    error.data = Some(json!({ "uri": uri, "reason": reason }));
    error
}

fn unknown_skill(uri: &str) -> ErrorObject {
    let mut error = errors::invalid_params(format!("Unknown skill: {uri}"));
    error.data = Some(json!({ "uri": uri }));
    error
}

fn get(declaration: &ServerDeclaration, uri: &str) -> Result<Value, ErrorObject> {
    let path = ext::checked_path(uri).map_err(|reason| match reason {
        ext::UriError::NotSkillScheme => unknown_skill(uri),
        reason => refused_uri(uri, reason),
    })?;
    let path: &str = &path;
    let skill_path = path
        .strip_suffix(ext::SKILL_MD)
        .and_then(|p| p.strip_suffix('/'))
        .ok_or_else(|| unknown_skill(uri))?;
    let catalogue = declaration.skills().snapshot();
    let skill = catalogue
        .get(skill_path)
        .ok_or_else(|| unknown_skill(uri))?;
    let mut result = json!({ "skill": skill.entry() });
    cache_hints(declaration, &mut result);
    Ok(result)
}

/// The skill owning file `path` (the longest skill path that is a prefix:
/// a nested skill's files are its own) and the file's relative path.
fn owner<'a>(
    catalogue: &'a std::collections::BTreeMap<String, Skill>,
    path: &'a str,
) -> Option<(&'a Skill, &'a str)> {
    catalogue
        .values()
        .filter_map(|skill| {
            let relative = path.strip_prefix(skill.path())?.strip_prefix('/')?;
            Some((skill, relative))
        })
        .max_by_key(|(skill, _)| skill.path().len())
}

fn read(declaration: &ServerDeclaration, uri: &str) -> Result<Value, ErrorObject> {
    let path = ext::checked_path(uri).map_err(|reason| refused_uri(uri, reason))?;
    let catalogue = declaration.skills().snapshot();
    let (skill, relative) =
        owner(&catalogue, &path).ok_or_else(|| errors::resource_not_found(uri))?;
    if let Some((refused, reason)) = skill
        .refused()
        .iter()
        .find(|(r, _)| relative == r.as_str() || relative.starts_with(&format!("{r}/")))
    {
        return Err(refused_uri(uri, format!("{refused}: {reason}")));
    }
    let file = skill
        .files()
        .get(relative)
        .ok_or_else(|| errors::resource_not_found(uri))?;
    let content = match std::str::from_utf8(file.bytes()) {
        Ok(text) => json!({ "uri": uri, "mimeType": file.mime_type(), "text": text }),
        Err(_) => {
            use base64::Engine as _;
            let blob = base64::engine::general_purpose::STANDARD.encode(file.bytes());
            json!({ "uri": uri, "mimeType": file.mime_type(), "blob": blob })
        }
    };
    Ok(json!({ "contents": [content] }))
}

/// The `SKILL.md` resources `resources/list` adds on its first page
/// (registered only when the extension is declared).
fn listed_resources(declaration: &ServerDeclaration) -> Vec<Value> {
    declaration
        .skills()
        .snapshot()
        .values()
        .filter_map(|skill| {
            let mut resource = Resource::builder()
                .name(skill.name().to_owned())
                .uri(skill.uri())
                .build();
            resource.description = skill
                .frontmatter()
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
            resource.mime_type = Some(ext::SKILL_MD_MIME_TYPE.to_owned());
            resource.size = skill
                .files()
                .get(ext::SKILL_MD)
                .and_then(|f| i64::try_from(f.bytes().len()).ok());
            serde_json::to_value(resource).ok()
        })
        .collect()
}

fn directory(
    declaration: &ServerDeclaration,
    uri: &str,
    cursor: Option<&str>,
) -> Result<Value, ErrorObject> {
    let path = ext::checked_path(uri).map_err(|reason| match reason {
        ext::UriError::NotSkillScheme => not_a_directory(uri),
        reason => refused_uri(uri, reason),
    })?;
    let skills = declaration.skills();
    let catalogue = skills.snapshot();
    // Every file of every skill as a namespace path; a directory is any
    // proper prefix of one, so prefix segments (`acme` of
    // `acme/billing/refunds`) are directories too.
    let mut children: std::collections::BTreeMap<String, Option<&SkillFileData>> =
        std::collections::BTreeMap::new();
    let prefix = format!("{path}/");
    for skill in catalogue.values() {
        for (relative, data) in skill.files() {
            let full = format!("{}/{relative}", skill.path());
            let Some(rest) = full.strip_prefix(&prefix) else {
                continue;
            };
            match rest.split_once('/') {
                Some((dir, _)) => {
                    children.entry(dir.to_owned()).or_insert(None);
                }
                None => {
                    children.insert(rest.to_owned(), Some(data));
                }
            }
        }
    }
    if children.is_empty() {
        return Err(not_a_directory(uri));
    }
    let start = offset_of(cursor)?;
    if start > children.len() {
        return Err(errors::invalid_params(format!(
            "Invalid cursor: {}",
            cursor.unwrap_or_default()
        )));
    }
    let end = children.len().min(start + skills.page_size());
    let resources: Vec<Value> = children
        .iter()
        .skip(start)
        .take(end - start)
        .filter_map(|(name, file)| {
            let mut resource = Resource::builder()
                .name(name.clone())
                .uri(format!("{uri}/{}", ext::encode_path(name)))
                .build();
            match file {
                Some(data) => {
                    resource.mime_type = Some(data.mime_type().to_owned());
                    resource.size = i64::try_from(data.bytes().len()).ok();
                }
                None => resource.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned()),
            }
            serde_json::to_value(resource).ok()
        })
        .collect();
    let mut result = json!({ "resources": resources });
    if end < children.len() {
        result["nextCursor"] = json!(format!("skills:{end}"));
    }
    Ok(result)
}

fn not_a_directory(uri: &str) -> ErrorObject {
    let mut error = errors::invalid_params(format!("Not a directory resource: {uri}"));
    error.data = Some(json!({ "uri": uri }));
    error
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use mcp_era_types::v2026_07_28::{Implementation, ServerCapabilities};

    use super::*;
    use crate::model::handlers::TaskSupport;
    use crate::state::events::{ServerEvent, ServerEvents};

    /// A server that claims the methods listed.
    struct Claims(&'static [&'static str]);

    impl ServerFacts for Claims {
        fn serves_method(&self, method: &str) -> bool {
            self.0.contains(&method)
        }

        fn tool_task_support(&self, _: &str) -> TaskSupport {
            TaskSupport::Never
        }
    }

    fn table(declaration: &ServerDeclaration) -> ExtensionTable {
        let mut table = ExtensionTable::new();
        register(declaration, &mut table);
        table
    }

    fn method_enabled(declaration: &ServerDeclaration, method: &str) -> bool {
        table(declaration).method(method).is_some()
    }

    /// A `resources/read` as the registered hook sees it.
    fn read_resource(
        declaration: &ServerDeclaration,
        uri: &str,
    ) -> Option<Result<Value, ErrorObject>> {
        let hooks = table(declaration).read_resource().to_vec();
        hooks
            .iter()
            .find_map(|hook| hook(&Claims(&[]), declaration, uri))
    }

    #[test]
    fn registers_only_when_declared_and_leaves_reads_to_a_claiming_server() {
        let undeclared =
            ServerDeclaration::new(Implementation::builder().name("t").version("1").build());
        let empty = table(&undeclared);
        assert!(empty.method(SKILLS_LIST).is_none());
        assert!(empty.read_resource().is_empty() && empty.first_list_page().is_empty());
        let d = declaration("{}");
        d.skills().insert(skill("a"));
        assert!(read_resource(&d, "skill://a/SKILL.md").is_some());
        assert!(read_hook(&Claims(&[SKILLS_GET]), &d, "skill://a/SKILL.md").is_none());
    }

    fn declaration(settings: &str) -> ServerDeclaration {
        let mut capabilities = ServerCapabilities::new();
        capabilities.extensions = Some(
            [(
                EXTENSION_ID.to_owned(),
                serde_json::from_str(settings).unwrap(),
            )]
            .into_iter()
            .collect(),
        );
        ServerDeclaration::new(Implementation::builder().name("t").version("1").build())
            .with_versions(["2026-07-28"], [] as [&str; 0])
            .unwrap()
            .with_capabilities(capabilities)
    }

    fn skill(path: &str) -> Skill {
        let name = path.rsplit('/').next().unwrap();
        Skill::builder(path)
            .file(
                "SKILL.md",
                format!("---\nname: {name}\ndescription: d\n---\n"),
            )
            .file("docs/a.md", "a")
            .build()
            .unwrap()
    }

    #[test]
    fn list_pages_by_cursor_and_refuses_bad_cursors() {
        let d = declaration("{}");
        for name in ["a", "b", "c"] {
            d.skills().insert(skill(name));
        }
        d.skills().set_page_size(2);
        let first = handle_method(&d, SKILLS_LIST, None).unwrap();
        assert_eq!(first["skills"].as_array().unwrap().len(), 2);
        let cursor = first["nextCursor"].as_str().unwrap();
        let second = handle_method(&d, SKILLS_LIST, Some(&json!({ "cursor": cursor }))).unwrap();
        assert_eq!(second["skills"][0]["uri"], "skill://c/SKILL.md");
        assert!(second.get("nextCursor").is_none());
        for bad in ["x", "skills:99"] {
            let error = handle_method(&d, SKILLS_LIST, Some(&json!({ "cursor": bad })));
            assert_eq!(error.unwrap_err().code, -32602, "{bad}");
        }
    }

    #[test]
    fn file_names_outside_uri_characters_are_listed_encoded_and_read_back() {
        let d = declaration(r#"{"directoryRead": true}"#);
        let odd = "docs/My Notes é#1?.md";
        let built = Skill::builder("notes")
            .file("SKILL.md", "---\nname: notes\ndescription: d\n---\n")
            .file(odd, "odd")
            .build()
            .unwrap();
        d.skills().insert(built);
        let encoded = "skill://notes/docs/My%20Notes%20%C3%A9%231%3F.md";
        let get = handle_method(
            &d,
            SKILLS_GET,
            Some(&json!({"uri": "skill://notes/SKILL.md"})),
        );
        let files = get.unwrap()["skill"]["resources"].clone();
        assert!(
            files
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["uri"] == encoded),
            "{files}"
        );
        let listed = handle_method(
            &d,
            RESOURCES_DIRECTORY_READ,
            Some(&json!({"uri": "skill://notes/docs"})),
        )
        .unwrap();
        assert_eq!(listed["resources"][0]["uri"], encoded, "{listed}");
        let read = read_resource(&d, encoded).unwrap().unwrap();
        assert_eq!(read["contents"][0]["text"], "odd");
        // Encoded traversal is still refused.
        for bad in [
            "skill://notes/%2e%2e/x",
            "skill://notes/a%2fb",
            "skill://notes/%zz",
        ] {
            assert_eq!(
                read_resource(&d, bad).unwrap().unwrap_err().code,
                -32602,
                "{bad}"
            );
        }
    }

    #[test]
    fn directory_read_is_gated_and_sees_prefix_directories() {
        assert!(!method_enabled(
            &declaration("{}"),
            RESOURCES_DIRECTORY_READ
        ));
        assert!(method_enabled(&declaration("{}"), SKILLS_GET));
        let d = declaration(r#"{"directoryRead": true}"#);
        assert!(method_enabled(&d, RESOURCES_DIRECTORY_READ));
        d.skills().insert(skill("acme/billing/refunds"));
        let params = json!({ "uri": "skill://acme" });
        let acme = handle_method(&d, RESOURCES_DIRECTORY_READ, Some(&params)).unwrap();
        assert_eq!(acme["resources"][0]["uri"], "skill://acme/billing");
        assert_eq!(acme["resources"][0]["mimeType"], DIRECTORY_MIME_TYPE);
        let missing = json!({ "uri": "skill://nowhere" });
        let error = handle_method(&d, RESOURCES_DIRECTORY_READ, Some(&missing)).unwrap_err();
        assert_eq!(error.code, -32602);
    }

    #[test]
    fn nested_skills_own_their_files() {
        let d = declaration("{}");
        d.skills().insert(skill("outer"));
        d.skills().insert(skill("outer/docs/inner"));
        let read = read_resource(&d, "skill://outer/docs/inner/SKILL.md")
            .unwrap()
            .unwrap();
        assert!(
            read["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("name: inner")
        );
        assert!(read_resource(&d, "file:///etc/passwd").is_none());
    }

    #[test]
    fn changes_announce_list_changed_once() {
        let skills = Skills::new();
        let events = ServerEvents::new();
        let mut rx = events.subscribe();
        skills.set_events(events);
        skills.insert(skill("a"));
        assert_eq!(rx.try_recv().unwrap(), ServerEvent::ResourcesListChanged);
        skills.insert(skill("a"));
        assert!(rx.try_recv().is_err(), "no change, no event");
        assert!(skills.remove("a"));
        assert_eq!(rx.try_recv().unwrap(), ServerEvent::ResourcesListChanged);
    }

    #[test]
    fn the_builder_refuses_what_cannot_be_served() {
        let md = |name: &str| format!("---\nname: {name}\ndescription: d\n---\n");
        let cases = [
            (Skill::builder("a").file("README.md", "x"), "no SKILL.md"),
            (Skill::builder("a").file("SKILL.md", md("b")), "differs"),
            (
                Skill::builder("Bad").file("SKILL.md", md("Bad")),
                "naming rules",
            ),
            (
                Skill::builder("a/../b").file("SKILL.md", md("b")),
                "skill path",
            ),
            (
                Skill::builder("a")
                    .file("SKILL.md", md("a"))
                    .file("../x", "x"),
                "file paths",
            ),
            (
                Skill::builder("a").file("SKILL.md", "no frontmatter"),
                "---",
            ),
        ];
        for (builder, says) in cases {
            let error = builder.build().unwrap_err();
            assert!(error.to_string().contains(says), "`{says}` not in {error}");
        }
    }
}
