//! The skills extension end to end: the `mcp-everything` binary serving a
//! skills directory (`--skills DIR`) over real HTTP and stdio: listing,
//! getting, reading and directory reads with their digests and sizes;
//! path traversal, symlinks out of a skill and symlink loops refused with
//! `-32602` while the server keeps serving; a skill with malformed
//! frontmatter reported (skill and line) and left out. Then the client:
//! a tampered entry (digest, size, frontmatter) is detected and the content
//! not returned.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcp_era_server::mcp_era_types::ext::skills::{self as ext, SkillEntry};
use mcp_era_server::skills::Skills;
use mcp_era_testing::mcp_era_client::{Client, ClientOptions, Error};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

mod common;

use common::{GUARD, post, request};

/// Kills the child on drop.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("mcp-skills-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const GOOD_MD: &str = "---\nname: good\ndescription: A skill that loads\nlicense: MIT\nmetadata:\n  version: \"1.2\"\n  tags: [a, b]\n---\n\nRead `references/a.md`.\n";
const A_MD: &str = "# A\n";
const DEEP_TXT: &str = "deep\n";
const BINARY: &[u8] = &[0, 159, 146, 150, 255];
const BROKEN_MD: &str = "---\nname: broken\ndescription: [unclosed\nlicense: MIT\n---\n";

/// The skills directory the tests serve: `good` (with a binary file, a
/// symlink out of the skill, a symlink loop and a link back to its own
/// root) and `broken` (malformed frontmatter: a sequence opened on line 3 and
/// never closed, noticed on line 4).
fn skills_dir() -> (TempDir, TempDir) {
    let root = TempDir::new("root");
    let outside = TempDir::new("outside");
    std::fs::write(outside.0.join("secret.txt"), "secret\n").unwrap();
    let good = root.0.join("good");
    std::fs::create_dir_all(good.join("references/deep")).unwrap();
    std::fs::write(good.join("SKILL.md"), GOOD_MD).unwrap();
    std::fs::write(good.join("references/a.md"), A_MD).unwrap();
    std::fs::write(good.join("references/deep/b.txt"), DEEP_TXT).unwrap();
    std::fs::write(good.join("img.bin"), BINARY).unwrap();
    std::os::unix::fs::symlink(outside.0.join("secret.txt"), good.join("outside")).unwrap();
    std::os::unix::fs::symlink(good.join("loop"), good.join("loop")).unwrap();
    std::os::unix::fs::symlink(&good, good.join("references/again")).unwrap();
    let broken = root.0.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("SKILL.md"), BROKEN_MD).unwrap();
    (root, outside)
}

async fn start_http(dir: &Path, log: &Path) -> (Process, String) {
    let mut file = std::fs::File::create(log).unwrap();
    let (child, addr) = common::spawn_http(
        Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
            .arg("http")
            .arg("--skills")
            .arg(dir),
        move |line| {
            let _ = writeln!(file, "{line}");
        },
    );
    (Process(child), addr)
}

/// One modern request over HTTP: its status and JSON-RPC answer.
async fn call(addr: &str, method: &str, params: Value) -> (u16, Value) {
    let reply = post(addr, &request(1, method, params), &[]).await;
    (reply.status, reply.json())
}

fn refused(answer: &(u16, Value), says: &str) {
    let (status, body) = answer;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(*status, 400, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(says), "`{says}` not in {message}");
}

#[tokio::test]
async fn embedded_skills_are_the_skills_directory() {
    let skills = Skills::new();
    let report = skills
        .load_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))
        .unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let from_dir: Vec<SkillEntry> = skills.snapshot().values().map(|s| s.entry()).collect();
    let embedded: Vec<SkillEntry> = mcp_everything::skills::embedded()
        .unwrap()
        .iter()
        .map(|s| s.entry())
        .collect();
    assert_eq!(from_dir, embedded);
}

#[tokio::test]
async fn a_watched_directory_is_reloaded_and_announced() {
    let root = TempDir::new("watch");
    std::fs::create_dir_all(root.0.join(".git")).unwrap();
    let skills = std::sync::Arc::new(Skills::new());
    let events = mcp_era_server::ServerEvents::new();
    let mut rx = events.subscribe();
    skills.set_events(events);
    let report = skills.load_dir(&root.0).unwrap();
    assert!(
        report.loaded.is_empty() && report.problems.is_empty(),
        "{report:?}"
    );
    let watch = skills.watch_dir(root.0.clone(), Duration::from_millis(20));
    std::fs::create_dir_all(root.0.join("good")).unwrap();
    std::fs::write(root.0.join("good/SKILL.md"), GOOD_MD).unwrap();
    let event = tokio::time::timeout(GUARD, rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, mcp_era_server::ServerEvent::ResourcesListChanged);
    assert!(skills.snapshot().contains_key("good"));
    // An edit changes the digest: announced again.
    std::fs::write(root.0.join("good/SKILL.md"), format!("{GOOD_MD}More.\n")).unwrap();
    let event = tokio::time::timeout(GUARD, rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, mcp_era_server::ServerEvent::ResourcesListChanged);
    watch.abort();
}

#[tokio::test]
async fn http_serves_a_directory_and_refuses_what_leaves_it() {
    let (root, _outside) = skills_dir();
    let log = root.0.with_extension("log");
    let (_server, addr) = start_http(&root.0, &log).await;

    // Only `good` is served: the embedded skills are replaced, `broken`
    // is left out and reported with its line.
    let (status, list) = call(&addr, "skills/list", json!({})).await;
    assert_eq!(status, 200, "{list}");
    let result = &list["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(
        result["ttlMs"].is_u64() && result["cacheScope"].is_string(),
        "{result}"
    );
    let skills = result["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{result}");
    let entry: SkillEntry = serde_json::from_value(skills[0].clone()).unwrap();
    assert_eq!(entry.uri, "skill://good/SKILL.md");
    // The frontmatter verbatim, every field.
    assert_eq!(
        Value::Object(entry.frontmatter.clone()),
        json!({"name": "good", "description": "A skill that loads", "license": "MIT",
               "metadata": {"version": "1.2", "tags": ["a", "b"]}})
    );
    // Every file, with the digest and size of its bytes; nothing refused.
    let expected: Vec<(&str, &[u8])> = vec![
        ("SKILL.md", GOOD_MD.as_bytes()),
        ("img.bin", BINARY),
        ("references/a.md", A_MD.as_bytes()),
        ("references/deep/b.txt", DEEP_TXT.as_bytes()),
    ];
    let files = entry.files().unwrap();
    assert_eq!(files.len(), expected.len(), "{files:?}");
    for (relative, bytes) in &expected {
        let uri = format!("skill://good/{relative}");
        let file = entry.file(&uri).unwrap();
        assert_eq!(file.digest, ext::digest(bytes), "{uri}");
        assert_eq!(file.size, bytes.len() as u64, "{uri}");
    }
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(
        stderr.contains("skill `broken`, SKILL.md line 4")
            && stderr.contains("flow sequence at line 3 column 14"),
        "{stderr}"
    );
    for refused_file in ["outside", "loop", "references/again"] {
        assert!(stderr.contains(refused_file), "{refused_file}: {stderr}");
    }

    // skills/get: the same entry; an unknown skill is -32602.
    let (_, got) = call(&addr, "skills/get", json!({"uri": "skill://good/SKILL.md"})).await;
    assert_eq!(got["result"]["skill"], skills[0]);
    assert!(got["result"].get("nextCursor").is_none());
    refused(
        &call(
            &addr,
            "skills/get",
            json!({"uri": "skill://broken/SKILL.md"}),
        )
        .await,
        "Unknown skill",
    );

    // resources/read gives the digested bytes; text, or a base64 blob.
    let (_, read) = call(
        &addr,
        "resources/read",
        json!({"uri": "skill://good/SKILL.md"}),
    )
    .await;
    let content = &read["result"]["contents"][0];
    assert_eq!(content["text"], GOOD_MD);
    assert_eq!(content["mimeType"], "text/markdown");
    let (_, read) = call(
        &addr,
        "resources/read",
        json!({"uri": "skill://good/img.bin"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["blob"], "AJ+Slv8=");

    // SKILL.md is in resources/list, named and described from its frontmatter.
    let (_, resources) = call(&addr, "resources/list", json!({})).await;
    let listed = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://good/SKILL.md")
        .cloned()
        .unwrap();
    assert_eq!(listed["name"], "good");
    assert_eq!(listed["description"], "A skill that loads");

    // Directory reads: direct children, subdirectories as inode/directory;
    // refused entries are not children.
    let (_, dir) = call(
        &addr,
        "resources/directory/read",
        json!({"uri": "skill://good"}),
    )
    .await;
    let children: Vec<(String, String)> = dir["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap().to_owned(),
                r["mimeType"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [
        ("skill://good/SKILL.md", "text/markdown"),
        ("skill://good/img.bin", "application/octet-stream"),
        ("skill://good/references", ext::DIRECTORY_MIME_TYPE),
    ];
    assert_eq!(
        children,
        want.map(|(u, m)| (u.to_owned(), m.to_owned())).to_vec()
    );
    let (_, sub) = call(
        &addr,
        "resources/directory/read",
        json!({"uri": "skill://good/references"}),
    )
    .await;
    assert_eq!(
        sub["result"]["resources"][1]["uri"],
        "skill://good/references/deep"
    );
    refused(
        &call(
            &addr,
            "resources/directory/read",
            json!({"uri": "skill://good/SKILL.md"}),
        )
        .await,
        "Not a directory",
    );

    // Traversal, plain and encoded, and absolute paths: refused before any
    // lookup.
    for (uri, says) in [
        ("skill://good/../broken/SKILL.md", "traversal"),
        ("skill://good/references/../../broken/SKILL.md", "traversal"),
        ("skill://good/%2e%2e/broken/SKILL.md", "traversal"),
        ("skill://good/..%2fbroken/SKILL.md", "percent-encoding"),
        ("skill:///etc/passwd", "empty path segment"),
        ("skill://good/references\\..\\SKILL.md", "not allowed"),
    ] {
        refused(
            &call(&addr, "resources/read", json!({"uri": uri})).await,
            says,
        );
    }
    refused(
        &call(
            &addr,
            "skills/get",
            json!({"uri": "skill://good/../good/SKILL.md"}),
        )
        .await,
        "traversal",
    );
    // A symlink out of the skill, a loop, a link back to the skill's root.
    refused(
        &call(
            &addr,
            "resources/read",
            json!({"uri": "skill://good/outside"}),
        )
        .await,
        "outside the skill",
    );
    refused(
        &call(&addr, "resources/read", json!({"uri": "skill://good/loop"})).await,
        "loop",
    );
    refused(
        &call(
            &addr,
            "resources/read",
            json!({"uri": "skill://good/references/again/SKILL.md"}),
        )
        .await,
        "loop",
    );

    // And the server keeps serving.
    let (status, again) = call(&addr, "skills/list", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(again["result"]["skills"], list["result"]["skills"]);
}

#[tokio::test]
async fn stdio_serves_the_same() {
    let (root, _outside) = skills_dir();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
        .arg("stdio")
        .arg("--skills")
        .arg(&root.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = async |id: i64, method: &str, params: Value| -> Value {
        let line = format!("{}\n", request(id, method, params));
        stdin.write_all(line.as_bytes()).await.unwrap();
        let answer = tokio::time::timeout(GUARD, stdout.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let list = ask(1, "skills/list", json!({})).await;
    assert_eq!(list["result"]["skills"][0]["uri"], "skill://good/SKILL.md");
    let got = ask(2, "skills/get", json!({"uri": "skill://good/SKILL.md"})).await;
    assert_eq!(got["result"]["skill"], list["result"]["skills"][0]);
    let read = ask(
        3,
        "resources/read",
        json!({"uri": "skill://good/references/a.md"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], A_MD);
    let traversal = ask(4, "resources/read", json!({"uri": "skill://good/../x"})).await;
    assert_eq!(traversal["error"]["code"], -32602, "{traversal}");
    let outside = ask(5, "resources/read", json!({"uri": "skill://good/outside"})).await;
    assert_eq!(outside["error"]["code"], -32602, "{outside}");
    let dir = ask(
        6,
        "resources/directory/read",
        json!({"uri": "skill://good/references"}),
    )
    .await;
    assert_eq!(
        dir["result"]["resources"][0]["uri"],
        "skill://good/references/a.md"
    );
}

#[tokio::test]
async fn the_client_detects_tampered_entries() {
    let (root, _outside) = skills_dir();
    let log = root.0.with_extension("log");
    let (_server, addr) = start_http(&root.0, &log).await;
    let client = Client::connect_http(&format!("http://{addr}/mcp"), ClientOptions::default())
        .await
        .unwrap();
    assert!(client.skills_settings().unwrap().directory_read());
    let entries = client.list_all_skills().await.unwrap();
    let entry = entries[0].clone();
    assert_eq!(client.get_skill(&entry.uri).await.unwrap(), entry);

    // The honest entry verifies; supporting files are read one by one.
    let loaded = client.load_skill(&entry).await.unwrap();
    assert_eq!(loaded.skill_md, GOOD_MD);
    assert!(loaded.verified);
    let bytes = client
        .read_skill_file(&entry, "skill://good/img.bin")
        .await
        .unwrap();
    assert_eq!(bytes, BINARY);

    let uri = "skill://good/references/a.md";
    let tamper = |change: &dyn Fn(&mut ext::SkillFile)| {
        let mut entry = entry.clone();
        if let ext::SkillResources::Files(files) = &mut entry.resources {
            files.iter_mut().filter(|f| f.uri == uri).for_each(change);
        }
        entry
    };
    // A wrong digest, a wrong size: refused, the content not returned.
    let bad_digest = tamper(&|f| f.digest = ext::digest(b"something else"));
    let error = client.read_skill_file(&bad_digest, uri).await.unwrap_err();
    assert!(
        matches!(
            &error,
            Error::SkillVerification(ext::VerifyError::Digest { .. })
        ),
        "{error}"
    );
    let bad_size = tamper(&|f| f.size += 1);
    let error = client.read_skill_file(&bad_size, uri).await.unwrap_err();
    assert!(
        matches!(
            &error,
            Error::SkillVerification(ext::VerifyError::Size { .. })
        ),
        "{error}"
    );
    // A file the entry does not list is refused without being read.
    let error = client
        .read_skill_file(&entry, "skill://good/outside")
        .await
        .unwrap_err();
    assert!(
        matches!(
            &error,
            Error::SkillVerification(ext::VerifyError::Unlisted { .. })
        ),
        "{error}"
    );
    // An entry whose frontmatter differs from the file's: not loaded.
    let mut lying = entry.clone();
    lying
        .frontmatter
        .insert("description".into(), json!("Something else"));
    let error = client.load_skill(&lying).await.unwrap_err();
    assert!(
        matches!(&error, Error::SkillVerification(ext::VerifyError::Field { field, .. }) if field == "description"),
        "{error}"
    );
    // The directory read goes through, declared by the server.
    let dir = client.read_directory("skill://good", None).await.unwrap();
    assert_eq!(dir.resources.len(), 3);
    client.close().await;
}
