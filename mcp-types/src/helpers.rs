//! Hand-written shortcuts for common shapes of 2026-07-28 values: text,
//! image and audio content, tool results, prompt messages and resource
//! contents. No helper takes two arguments of the same type unless its name
//! says their order (`from_uri_and_text(uri, text)`).
//!
//! ```
//! use mcp_era_types::v2026_07_28::prelude::*;
//!
//! let ok = CallToolResult::text("done");
//! let failed = CallToolResult::error("no such city");
//! assert_eq!(failed.is_error, Some(true));
//! let both = CallToolResult::structured(serde_json::json!({"temp": 21}));
//! assert_eq!(both.content, vec![ContentBlock::text(r#"{"temp":21}"#)]);
//!
//! let prompt: GetPromptResult = [
//!     PromptMessage::user("What is MCP?"),
//!     PromptMessage::assistant(ContentBlock::image_from_base64("iVBOR…", "image/png")),
//! ]
//! .into_iter()
//! .collect();
//! assert_eq!(prompt.messages.len(), 2);
//!
//! let contents = TextResourceContents::from_uri_and_text("file:///a.txt", "hello")
//!     .with_mime_type("text/plain");
//! let read = ReadResourceResult::new(vec![contents.into()], CacheHints::private(1_000));
//! # let _ = (ok, read);
//! ```

use crate::v2026_07_28::{
    AudioContent, BlobResourceContents, CallToolResult, ContentBlock, EmbeddedResource,
    EmbeddedResourceResource, GetPromptResult, ImageContent, PromptMessage, Role, TextContent,
    TextResourceContents,
};

impl ContentBlock {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::TextContent(TextContent::new(text))
    }

    /// An `image` block: first the base64-encoded `data`, then its
    /// `mime_type` (e.g. `"image/png"`), as the name reads.
    pub fn image_from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::ImageContent(
            ImageContent::builder()
                .data(data)
                .mime_type(mime_type)
                .build(),
        )
    }

    /// An `audio` block: first the base64-encoded `data`, then its
    /// `mime_type` (e.g. `"audio/wav"`), as the name reads.
    pub fn audio_from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::AudioContent(
            AudioContent::builder()
                .data(data)
                .mime_type(mime_type)
                .build(),
        )
    }

    /// A `resource` block embedding text or blob contents.
    pub fn embedded(contents: impl Into<EmbeddedResourceResource>) -> Self {
        ContentBlock::EmbeddedResource(EmbeddedResource::new(contents.into()))
    }
}

impl From<String> for ContentBlock {
    /// A `text` block.
    fn from(text: String) -> Self {
        ContentBlock::text(text)
    }
}

impl From<&str> for ContentBlock {
    /// A `text` block.
    fn from(text: &str) -> Self {
        ContentBlock::text(text)
    }
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::new(vec![ContentBlock::text(text)])
    }

    /// A tool error the model can see and act on: one text block and
    /// `isError: true` (not a JSON-RPC error).
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult::text(message).with_is_error(true)
    }

    /// A structured result: `structuredContent` is `value`, and `content`
    /// holds its serialized JSON as one text block, which the spec asks for
    /// clients that do not read `structuredContent`.
    pub fn structured(value: serde_json::Value) -> Self {
        CallToolResult::text(value.to_string()).with_structured_content(value)
    }
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<ContentBlock>) -> Self {
        PromptMessage::new(content.into(), Role::User)
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<ContentBlock>) -> Self {
        PromptMessage::new(content.into(), Role::Assistant)
    }
}

impl GetPromptResult {
    /// A prompt of these messages, without a description.
    pub fn from_messages(messages: impl IntoIterator<Item = PromptMessage>) -> Self {
        GetPromptResult::new(messages.into_iter().collect())
    }
}

impl From<Vec<PromptMessage>> for GetPromptResult {
    fn from(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult::new(messages)
    }
}

impl FromIterator<PromptMessage> for GetPromptResult {
    fn from_iter<I: IntoIterator<Item = PromptMessage>>(messages: I) -> Self {
        GetPromptResult::from_messages(messages)
    }
}

impl TextResourceContents {
    /// The text contents of a resource: first its `uri`, then the `text`,
    /// as the name reads. Add a MIME type with `with_mime_type`.
    pub fn from_uri_and_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        TextResourceContents::builder().uri(uri).text(text).build()
    }
}

impl BlobResourceContents {
    /// The binary contents of a resource: first its `uri`, then the
    /// base64-encoded `blob`, as the name reads. Add a MIME type with
    /// `with_mime_type`.
    pub fn from_uri_and_blob(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        BlobResourceContents::builder().uri(uri).blob(blob).build()
    }
}
