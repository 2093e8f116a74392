//! The serde impls of generated structs, written once as a declarative macro
//! so that each generated struct needs only a short table of its fields.
//!
//! Deserialization streams the map (no buffering): schema properties go to
//! their slots, consts are checked, other keys go to `extra` (or are
//! rejected on closed objects). Serialization writes the consts, the
//! present properties, then `extra`.

/// `struct_serde! { Type, "Type", consts { .. } fields { .. } extra open|closed }`
///
/// - `consts { seen_ident = "key" => const_expr, absent_ok = bool; .. }`: the
///   required consts (not stored; `absent_ok` lets input omit one);
/// - `fields { ident: Type = "key", required|optional|flag(const_expr); .. }`:
///   stored properties; `flag` is an optional const kept as a presence bool;
///   `required_shared` and `optional_shared` are `Arc<T>` properties, read
///   straight into their `Arc` (serde's own impl reads a `Box` first);
/// - `extra open` keeps unknown keys in `self.extra`, `extra closed` rejects
///   them.
#[doc(hidden)]
#[macro_export]
macro_rules! __mcp_struct_serde {
    (
        $ty:ident, $name:literal,
        consts { $( $cid:ident = $ckey:literal => $cval:expr, absent_ok = $absent:literal; )* }
        fields { $( $field:ident : $fty:ty = $key:literal, $kind:ident $( ($flag:expr) )?; )* }
        extra $extra:ident
    ) => {
        impl $crate::__private::serde::Serialize for $ty {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                use $crate::__private::serde::ser::SerializeMap as _;
                let mut map = serializer.serialize_map(::core::option::Option::None)?;
                $( map.serialize_entry($ckey, &$cval)?; )*
                $( $crate::__mcp_struct_serde!(@ser $kind map, self.$field, $key $(, $flag)?); )*
                $crate::__mcp_struct_serde!(
                    @ser_extra $extra map, self, $name, &[$($ckey,)* $($key,)*]
                );
                map.end()
            }
        }

        // `(&Probe(..)).emit`: the borrow picks `WriteJson` before serde.
        #[allow(clippy::needless_borrow)]
        impl $crate::json::WriteJson for $ty {
            fn write_json(
                &self,
                out: &mut ::std::vec::Vec<u8>,
            ) -> ::core::result::Result<(), $crate::__private::serde_json::Error> {
                #[allow(unused_imports)]
                use $crate::json::{Probe, ViaSerde as _, ViaWriteJson as _};
                out.push(b'{');
                #[allow(unused_mut)]
                let mut first = true;
                $( $crate::__mcp_struct_serde!(@write_key out, first, $ckey); (&Probe(&$cval)).emit(out)?; )*
                $( $crate::__mcp_struct_serde!(@write $kind out, first, self.$field, $fty, $key $(, $flag)?); )*
                $crate::__mcp_struct_serde!(
                    @write_extra $extra out, first, self, $name, &[$($ckey,)* $($key,)*]
                );
                out.push(b'}');
                ::core::result::Result::Ok(())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                struct FieldsVisitor;
                impl<'de> $crate::__private::serde::de::Visitor<'de> for FieldsVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(::core::concat!("a ", $name, " object"))
                    }
                    fn visit_map<A: $crate::__private::serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> ::core::result::Result<$ty, A::Error> {
                        $( let mut $cid = false; )*
                        $( let mut $field = $crate::__mcp_struct_serde!(@slot $kind $fty); )*
                        $crate::__mcp_struct_serde!(@extra_slot $extra extra);
                        while let ::core::option::Option::Some(key) =
                            map.next_key::<$crate::__private::Key<'de>>()?
                        {
                            match key.as_str() {
                                $( $ckey => $crate::__private::next_const(&mut map, &mut $cid, $ckey, $cval)?, )*
                                $( $key => $crate::__mcp_struct_serde!(@arm $kind map, $field, $key $(, $flag)?), )*
                                _ => $crate::__mcp_struct_serde!(
                                    @unknown $extra map, extra, key, &[$($ckey,)* $($key,)*]
                                ),
                            }
                        }
                        $( $crate::__private::required_const($cid, $absent, $ckey)?; )*
                        ::core::result::Result::Ok($crate::__mcp_struct_serde!(
                            @build $extra extra, $ty {
                                $( $field: $crate::__mcp_struct_serde!(@take $kind $field, $key) ),*
                            }
                        ))
                    }
                }
                deserializer.deserialize_map(FieldsVisitor)
            }
        }
    };

    (@ser required $map:ident, $value:expr, $key:literal) => {
        $map.serialize_entry($key, &$value)?
    };
    (@ser required_shared $map:ident, $value:expr, $key:literal) => {
        $map.serialize_entry($key, &*$value)?
    };
    (@ser optional_shared $map:ident, $value:expr, $key:literal) => {
        if let ::core::option::Option::Some(value) = &$value {
            $map.serialize_entry($key, &**value)?;
        }
    };
    (@ser optional $map:ident, $value:expr, $key:literal) => {
        if let ::core::option::Option::Some(value) = &$value {
            $map.serialize_entry($key, value)?;
        }
    };
    (@ser flag $map:ident, $value:expr, $key:literal, $flag:expr) => {
        if $value {
            $map.serialize_entry($key, &$flag)?;
        }
    };
    (@ser_extra open $map:ident, $this:expr, $name:literal, $known:expr) => {
        $crate::__private::serialize_extra(&mut $map, &$this.extra, $name, $known)?
    };
    (@ser_extra closed $map:ident, $this:expr, $name:literal, $known:expr) => {};

    (@write_key $out:ident, $first:ident, $key:literal) => {{
        const _: () = ::core::assert!($crate::json::plain_key($key), "a key to escape");
        $crate::json::member($out, &mut $first, ::core::concat!("\"", $key, "\":"));
    }};
    (@write required $out:ident, $first:ident, $value:expr, $fty:ty, $key:literal) => {
        $crate::__mcp_struct_serde!(@write_key $out, $first, $key);
        (&Probe::<$fty>(&$value)).emit($out)?;
    };
    // An `Arc` is written as what it holds, as serde writes it.
    (@write required_shared $($rest:tt)*) => {
        $crate::__mcp_struct_serde!(@write required $($rest)*)
    };
    (@write optional_shared $($rest:tt)*) => {
        $crate::__mcp_struct_serde!(@write optional $($rest)*)
    };
    (@write optional $out:ident, $first:ident, $value:expr, $fty:ty, $key:literal) => {
        if let ::core::option::Option::Some(value) = &$value {
            $crate::__mcp_struct_serde!(@write_key $out, $first, $key);
            (&Probe::<$fty>(value)).emit($out)?;
        }
    };
    (@write flag $out:ident, $first:ident, $value:expr, $fty:ty, $key:literal, $flag:expr) => {
        if $value {
            $crate::__mcp_struct_serde!(@write_key $out, $first, $key);
            (&Probe(&$flag)).emit($out)?;
        }
    };
    (@write_extra open $out:ident, $first:ident, $this:expr, $name:literal, $known:expr) => {
        $crate::json::write_extra($out, &mut $first, &$this.extra, $name, $known, |out, value| {
            (&Probe(value)).emit(out)
        })?
    };
    (@write_extra closed $out:ident, $first:ident, $this:expr, $name:literal, $known:expr) => {};

    (@slot required $fty:ty) => { ::core::option::Option::<$fty>::None };
    (@slot optional $fty:ty) => { ::core::option::Option::<$fty>::None };
    (@slot required_shared $fty:ty) => { ::core::option::Option::<$fty>::None };
    (@slot optional_shared $fty:ty) => { ::core::option::Option::<$fty>::None };
    (@slot flag $fty:ty) => { false };
    (@extra_slot open $extra:ident) => {
        let mut $extra = ::core::default::Default::default();
    };
    (@extra_slot closed $extra:ident) => {};

    (@arm required $map:ident, $slot:ident, $key:literal) => {
        $crate::__private::next_field(&mut $map, &mut $slot, $key)?
    };
    (@arm optional $map:ident, $slot:ident, $key:literal) => {
        $crate::__private::next_field(&mut $map, &mut $slot, $key)?
    };
    (@arm required_shared $map:ident, $slot:ident, $key:literal) => {
        $crate::__private::next_shared_field(&mut $map, &mut $slot, $key)?
    };
    (@arm optional_shared $map:ident, $slot:ident, $key:literal) => {
        $crate::__private::next_shared_field(&mut $map, &mut $slot, $key)?
    };
    (@arm flag $map:ident, $slot:ident, $key:literal, $flag:expr) => {
        $crate::__private::next_const(&mut $map, &mut $slot, $key, $flag)?
    };
    (@unknown open $map:ident, $extra:ident, $key:ident, $known:expr) => {
        $crate::__private::next_extra(&mut $map, &mut $extra, $key)?
    };
    (@unknown closed $map:ident, $extra:ident, $key:ident, $known:expr) => {
        return ::core::result::Result::Err($crate::__private::unknown_key($key, $known))
    };

    (@take required $slot:ident, $key:literal) => {
        $crate::__private::required($slot, $key)?
    };
    (@take optional $slot:ident, $key:literal) => { $slot };
    (@take required_shared $slot:ident, $key:literal) => {
        $crate::__private::required($slot, $key)?
    };
    (@take optional_shared $slot:ident, $key:literal) => { $slot };
    (@take flag $slot:ident, $key:literal) => { $slot };

    (@build open $extra:ident, $ty:ident { $( $field:ident : $value:expr ),* }) => {
        $ty { $( $field: $value, )* $extra }
    };
    (@build closed $extra:ident, $ty:ident { $( $field:ident : $value:expr ),* }) => {
        $ty { $( $field: $value, )* }
    };
}
