//! The structured result of a schema diff: what changed, where, and what it
//! means for a Rust user of the generated types and for the wire.

/// A semantic changelog between two schemas, in the names the generated
/// Rust code uses. Built by [`diff_schemas`](super::diff_schemas); rendered
/// by [`SchemaDiff::to_markdown`]. The types of this module are
/// `#[non_exhaustive]`: later versions may report more.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaDiff {
    /// Label of the old schema (a revision name or a file path).
    pub old: String,
    /// Label of the new schema.
    pub new: String,
    /// Methods added or removed, ordered by method name.
    pub methods: Vec<MethodChange>,
    /// Type-level changes, ordered by type name, then field / value.
    pub changes: Vec<Change>,
    /// Types and fields whose description text changed (not listed).
    pub doc_changes: usize,
}

impl SchemaDiff {
    /// Whether the two schemas generate the same Rust API (doc text aside).
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty() && self.changes.is_empty()
    }

    /// The number of changes tagged breaking for a Rust user.
    pub fn breaking_count(&self) -> usize {
        self.methods.iter().filter(|m| m.breaking()).count()
            + self.changes.iter().filter(|c| c.breaking).count()
    }

    /// The changes of one type, in order.
    pub fn changes_of<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = &'a Change> + 'a {
        self.changes.iter().filter(move |c| c.ty == ty)
    }
}

/// Request or notification (by the name of the type that carries the method).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MethodKind {
    /// A `…Request` type (or any other type with a `method` constant).
    Request,
    /// A `…Notification` type.
    Notification,
}

/// A JSON-RPC method that one side has and the other has not.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MethodChange {
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// Request or notification.
    pub kind: MethodKind,
    /// Whether the method was added (else removed).
    pub added: bool,
    /// The types whose `method` constant is this method.
    pub types: Vec<String>,
    /// For an added method: a removed method carried by the same type
    /// name (it looks renamed); for a removed one, the added method.
    pub renamed: Option<String>,
}

impl MethodChange {
    /// A removed method is breaking (its types are gone or changed);
    /// an added one is not.
    pub fn breaking(&self) -> bool {
        !self.added
    }
}

/// The shape a named type is emitted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeShape {
    /// A struct with public fields.
    Struct,
    /// An enum with one variant per member of an `anyOf`.
    Union,
    /// A unit-variant enum of strings.
    StringEnum,
    /// A `pub type` alias.
    Alias,
}

impl TypeShape {
    /// A short word for the Markdown.
    pub fn word(self) -> &'static str {
        match self {
            TypeShape::Struct => "struct",
            TypeShape::Union => "union enum",
            TypeShape::StringEnum => "string enum",
            TypeShape::Alias => "alias",
        }
    }
}

/// A field as the generated struct has it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldInfo {
    /// The JSON key.
    pub json_name: String,
    /// The Rust field name.
    pub rust_name: String,
    /// The Rust type as written in the struct (`Option<…>` when optional),
    /// or `const "value"` for a constant.
    pub rust_type: String,
    /// Whether the schema requires the key.
    pub required: bool,
    /// Whether it is a constant (not stored when required; a `bool`
    /// presence flag when optional).
    pub is_const: bool,
}

/// What changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A new type.
    TypeAdded {
        /// Its shape.
        shape: TypeShape,
        /// Inline types (hoisted from it) that came with it.
        inline: Vec<String>,
        /// A removed type with exactly the same fields, if any.
        looks_renamed_from: Option<String>,
    },
    /// A type that is gone.
    TypeRemoved {
        /// Its shape.
        shape: TypeShape,
        /// Inline types (hoisted from it) that went with it.
        inline: Vec<String>,
    },
    /// Same name, another shape (e.g. a struct that became a union).
    ShapeChanged {
        /// Old shape.
        from: TypeShape,
        /// New shape.
        to: TypeShape,
    },
    /// A struct field added.
    FieldAdded(FieldInfo),
    /// A struct field removed.
    FieldRemoved(FieldInfo),
    /// A field whose Rust type changed (required-ness unchanged).
    FieldTypeChanged {
        /// The field before.
        from: FieldInfo,
        /// The field after.
        to: FieldInfo,
    },
    /// A required field turned optional (`T` → `Option<T>`).
    RequiredToOptional {
        /// The field before.
        from: FieldInfo,
        /// The field after.
        to: FieldInfo,
    },
    /// An optional field turned required (`Option<T>` → `T`).
    OptionalToRequired {
        /// The field before.
        from: FieldInfo,
        /// The field after.
        to: FieldInfo,
    },
    /// Unknown keys kept in `extra` or rejected, or `extra` of another type.
    ExtraChanged {
        /// `extra`'s type before, `None` when unknown keys were rejected.
        from: Option<String>,
        /// `extra`'s type after.
        to: Option<String>,
    },
    /// A string enum value added.
    EnumValueAdded(String),
    /// A string enum value removed.
    EnumValueRemoved(String),
    /// A union variant added.
    VariantAdded {
        /// Variant name.
        name: String,
        /// Payload type.
        rust_type: String,
    },
    /// A union variant removed.
    VariantRemoved {
        /// Variant name.
        name: String,
        /// Payload type.
        rust_type: String,
    },
    /// A union variant whose payload type changed.
    VariantTypeChanged {
        /// Variant name.
        name: String,
        /// Old payload type.
        from: String,
        /// New payload type.
        to: String,
    },
    /// An alias that stands for another type.
    AliasChanged {
        /// Old target.
        from: String,
        /// New target.
        to: String,
    },
}

/// One change of one type, with its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// The type's Rust name.
    pub ty: String,
    /// What changed.
    pub kind: ChangeKind,
    /// Whether Rust code using the generated types may stop compiling or
    /// change meaning (semver-major).
    pub breaking: bool,
    /// Why, for a Rust user, in one line.
    pub rust: String,
    /// What it means on the wire between peers of the two revisions, when
    /// that differs from the Rust verdict.
    pub wire: Option<String>,
}
