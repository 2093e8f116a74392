//! The lists a composite merges, and what names their items.

/// The lists a composite merges.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Kind {
    Tools,
    Prompts,
    Resources,
    Templates,
    /// The skills extension's `skills/list`.
    Skills,
}

impl Kind {
    /// All four.
    pub(crate) const ALL: [Self; 4] =
        [Self::Tools, Self::Prompts, Self::Resources, Self::Templates];

    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::Tools => "tools/list",
            Self::Prompts => "prompts/list",
            Self::Resources => "resources/list",
            Self::Templates => "resources/templates/list",
            Self::Skills => "skills/list",
        }
    }

    /// The result's member holding the items.
    pub(crate) fn items(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
            Self::Templates => "resourceTemplates",
            Self::Skills => "skills",
        }
    }

    /// The item's member naming it (and ordering the merged list).
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Tools | Self::Prompts => "name",
            Self::Resources | Self::Skills => "uri",
            Self::Templates => "uriTemplate",
        }
    }

    /// Whether the key is a name the prefix applies to.
    pub(crate) fn prefixed(self) -> bool {
        matches!(self, Self::Tools | Self::Prompts)
    }
}
