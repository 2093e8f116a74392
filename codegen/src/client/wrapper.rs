//! The typed wrapper over the client: the `ToolCallError` type, the client
//! struct with its shared call path, and one async method per tool.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::types::doc_attr;

/// What the generator knows of one tool when it writes its method.
pub struct Method<'a> {
    /// The tool's name on the wire.
    pub tool: &'a str,
    /// The method's identifier (`files_read`).
    pub method: &'a str,
    /// The tool's description, for the method's docs.
    pub description: Option<&'a str>,
    /// The arguments type, `None`: the method takes no arguments.
    pub args: Option<&'a str>,
    /// The output type (from `outputSchema`), `None`: content blocks.
    pub output: Option<&'a str>,
}

/// Doc attributes for free text: one per line; a bare code fence becomes
/// `text` so that rustdoc never runs a description as a doctest.
pub fn docs(text: &str) -> TokenStream {
    let mut in_fence = false;
    text.lines()
        .map(|line| {
            let mut line = line.trim_end().to_owned();
            let trimmed = line.trim_start();
            if let Some(info) = trimmed.strip_prefix("```") {
                if !in_fence && (info.is_empty() || info == "rust") {
                    let indent = line.len() - trimmed.len();
                    line = format!("{}```text", &line[..indent]);
                }
                in_fence = !in_fence;
            }
            if line.is_empty() {
                doc_attr("")
            } else {
                doc_attr(&format!(" {line}"))
            }
        })
        .collect()
}

/// The error type and the client struct with one method per tool.
pub fn emit(client: &str, client_path: &syn::Path, methods: &[Method<'_>]) -> TokenStream {
    let cp = client_path;
    let client = format_ident!("{client}");
    let content = quote!(#cp::mcp_era_types::v2026_07_28::ContentBlock);
    let methods = methods.iter().map(|m| method(m, &content));
    let client_doc = format!(
        " A typed client for this catalogue's tools, over `{}::Client` (either era).",
        quote!(#cp).to_string().replace(' ', "")
    );
    // `dead_code` allowed: a program that calls some tools leaves the
    // other methods (and error variants) unused.
    quote! {
        /// Why a typed tool call failed.
        #[derive(Debug)]
        #[allow(dead_code)]
        pub enum ToolCallError {
            /// The arguments did not serialize to a JSON object.
            Arguments {
                /// The tool's name.
                tool: &'static str,
                /// What went wrong.
                message: ::std::string::String,
            },
            /// The request failed: transport, protocol or a JSON-RPC error.
            Client(#cp::Error),
            /// The tool ran and reported an error (`isError: true`).
            Tool {
                /// The tool's name.
                tool: &'static str,
                /// The content blocks it returned.
                content: ::std::vec::Vec<#content>,
            },
            /// The result was not what the catalogue promised: no
            /// `structuredContent`, or one that does not match the output type.
            Output {
                /// The tool's name.
                tool: &'static str,
                /// What went wrong.
                message: ::std::string::String,
            },
        }

        #[allow(dead_code)]
        impl ToolCallError {
            /// The text blocks of a [`ToolCallError::Tool`], joined by newlines.
            pub fn text(&self) -> ::core::option::Option<::std::string::String> {
                match self {
                    Self::Tool { content, .. } => ::core::option::Option::Some(
                        content
                            .iter()
                            .filter_map(|c| match c {
                                #cp::mcp_era_types::v2026_07_28::ContentBlock::TextContent(t) => {
                                    ::core::option::Option::Some(t.text.as_str())
                                }
                                _ => ::core::option::Option::None,
                            })
                            .collect::<::std::vec::Vec<_>>()
                            .join("\n"),
                    ),
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::fmt::Display for ToolCallError {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    Self::Arguments { tool, message } => write!(f, "tool `{tool}`: arguments: {message}"),
                    Self::Client(e) => write!(f, "{e}"),
                    Self::Tool { tool, .. } => write!(
                        f,
                        "tool `{tool}` failed: {}",
                        self.text().unwrap_or_default()
                    ),
                    Self::Output { tool, message } => write!(f, "tool `{tool}`: output: {message}"),
                }
            }
        }

        impl ::std::error::Error for ToolCallError {}

        impl ::core::convert::From<#cp::Error> for ToolCallError {
            fn from(e: #cp::Error) -> Self {
                Self::Client(e)
            }
        }

        #[doc = #client_doc]
        #[derive(Debug, Clone)]
        #[allow(dead_code)]
        pub struct #client {
            client: #cp::Client,
        }

        #[allow(dead_code)]
        impl #client {
            /// Wraps a connected client.
            pub fn new(client: #cp::Client) -> Self {
                Self { client }
            }

            /// The client underneath, for anything this wrapper does not type.
            pub fn client(&self) -> &#cp::Client {
                &self.client
            }

            /// The client underneath, by value.
            pub fn into_client(self) -> #cp::Client {
                self.client
            }

            /// Serializes arguments to the object `tools/call` sends.
            fn arguments<A: ::serde::Serialize>(
                tool: &'static str,
                args: &A,
            ) -> ::core::result::Result<
                ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                ToolCallError,
            > {
                match ::serde_json::to_value(args) {
                    ::core::result::Result::Ok(::serde_json::Value::Object(map)) => {
                        ::core::result::Result::Ok(map)
                    }
                    ::core::result::Result::Ok(other) => ::core::result::Result::Err(
                        ToolCallError::Arguments {
                            tool,
                            message: ::std::format!("not a JSON object: {other}"),
                        },
                    ),
                    ::core::result::Result::Err(e) => ::core::result::Result::Err(
                        ToolCallError::Arguments { tool, message: e.to_string() },
                    ),
                }
            }

            /// Calls `tool`; its content blocks and `structuredContent`,
            /// the same in both eras (legacy blocks are read as modern ones:
            /// the shapes agree).
            async fn call(
                &self,
                tool: &'static str,
                arguments: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            ) -> ::core::result::Result<
                (::std::vec::Vec<#content>, ::core::option::Option<::serde_json::Value>),
                ToolCallError,
            > {
                let result = self.client.call_tool(tool, arguments).await?;
                let value = match result {
                    #cp::ByEra::Modern(
                        #cp::mcp_era_types::v2026_07_28::CallToolResultResponseResult::CallToolResult(r),
                    ) => ::serde_json::to_value(r),
                    #cp::ByEra::Modern(other) => {
                        return ::core::result::Result::Err(ToolCallError::Output {
                            tool,
                            message: ::std::format!("an unanswered {} result", other.variant_name()),
                        });
                    }
                    #cp::ByEra::Legacy(r) => ::serde_json::to_value(r),
                };
                let mut value = value.map_err(|e| ToolCallError::Output {
                    tool,
                    message: e.to_string(),
                })?;
                let is_error = value.get("isError") == ::core::option::Option::Some(&::serde_json::Value::Bool(true));
                let structured = value
                    .as_object_mut()
                    .and_then(|m| m.remove("structuredContent"));
                let content = value
                    .get_mut("content")
                    .map(::serde_json::Value::take)
                    .unwrap_or(::serde_json::Value::Array(::std::vec::Vec::new()));
                let content: ::std::vec::Vec<#content> = ::serde_json::from_value(content)
                    .map_err(|e| ToolCallError::Output {
                        tool,
                        message: ::std::format!("content: {e}"),
                    })?;
                if is_error {
                    return ::core::result::Result::Err(ToolCallError::Tool { tool, content });
                }
                ::core::result::Result::Ok((content, structured))
            }

            /// `structuredContent` read as the tool's output type; without
            /// it (a legacy server may send only text), the first text block
            /// read as JSON, as the spec asks servers to provide.
            fn output<T: ::serde::de::DeserializeOwned>(
                tool: &'static str,
                content: &[#content],
                structured: ::core::option::Option<::serde_json::Value>,
            ) -> ::core::result::Result<T, ToolCallError> {
                let value = match structured {
                    ::core::option::Option::Some(value) => value,
                    ::core::option::Option::None => {
                        let text = content.iter().find_map(|c| match c {
                            #cp::mcp_era_types::v2026_07_28::ContentBlock::TextContent(t) => {
                                ::core::option::Option::Some(t.text.as_str())
                            }
                            _ => ::core::option::Option::None,
                        });
                        match text.map(::serde_json::from_str::<::serde_json::Value>) {
                            ::core::option::Option::Some(::core::result::Result::Ok(value)) => value,
                            _ => {
                                return ::core::result::Result::Err(ToolCallError::Output {
                                    tool,
                                    message: "no structuredContent (and no JSON text block)".into(),
                                });
                            }
                        }
                    }
                };
                ::serde_json::from_value(value).map_err(|e| ToolCallError::Output {
                    tool,
                    message: e.to_string(),
                })
            }

            #(#methods)*
        }
    }
}

fn method(m: &Method<'_>, content: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", m.method);
    let tool = m.tool;
    let mut doc = m.description.map(docs).unwrap_or_default();
    if m.description.is_some() {
        doc.extend(doc_attr(""));
    }
    doc.extend(doc_attr(&format!(
        " Calls tool `{}`.",
        tool.replace('`', "'")
    )));
    let (param, arguments) = match m.args {
        Some(args) => {
            let args = format_ident!("{args}");
            (
                quote!(, args: #args),
                quote!(Self::arguments(#tool, &args)?),
            )
        }
        None => (quote!(), quote!(::serde_json::Map::new())),
    };
    match m.output {
        Some(output) => {
            let output = format_ident!("{output}");
            quote! {
                #doc
                pub async fn #name(&self #param) -> ::core::result::Result<#output, ToolCallError> {
                    let (content, structured) = self.call(#tool, #arguments).await?;
                    Self::output(#tool, &content, structured)
                }
            }
        }
        None => quote! {
            #doc
            pub async fn #name(&self #param) -> ::core::result::Result<::std::vec::Vec<#content>, ToolCallError> {
                let (content, _) = self.call(#tool, #arguments).await?;
                ::core::result::Result::Ok(content)
            }
        },
    }
}
