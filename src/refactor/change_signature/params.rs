//! The parameters of a function as change signature reasons about them, in both languages: one
//! [`Param`] per entry of the list (markers such as Python's `*` and `/` included), the list as
//! the author wrote it ([`OldList`]), and the [`Signature`] a call is matched against.

use std::ops::Range;

use super::layout::{Decoration, Item, Layout};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ParamKind {
    /// `a`, `a: int = 1`, `mut a: i32`, `(x, y): (u8, u8)`.
    Regular,
    /// Python `*args`, Rust's C-variadic `...`.
    VarPositional,
    /// Python `**kwargs`.
    VarKeyword,
    /// Python's bare `*`: what follows is keyword-only.
    KeywordMarker,
    /// Python's `/`: what precedes is positional-only.
    PositionalMarker,
}

/// One entry of a parameter list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Param {
    pub kind: ParamKind,
    /// How `new_parameters` spells it: `a`, `*args`, `**kw`, `*`, `/`, `(x, y)`, `...`.
    pub spelled: String,
    /// The bound name (`a`, `args`); the pattern for a Rust pattern parameter; the marker itself.
    pub name: String,
    /// Rust `mut a`: the binding is mutable (kept when the parameter is kept).
    pub mutable: bool,
    pub ty: Option<String>,
    pub default: Option<String>,
    /// As written (old list) or as it will be written (new list), with its comments.
    pub item: Item,
    /// For a new parameter: the index in the old list of the parameter it continues.
    pub old: Option<usize>,
}

impl Param {
    pub fn has_default(&self) -> bool {
        self.default.is_some()
    }

    /// Whether the parameter binds a name a body can use (not a marker).
    pub fn binds(&self) -> bool {
        matches!(
            self.kind,
            ParamKind::Regular | ParamKind::VarPositional | ParamKind::VarKeyword
        ) && self.spelled != "..."
    }
}

/// The parameter list of the definition as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct OldList {
    /// `self`, `&mut self`, `self: Box<Self>` in Rust; `self`/`cls` of a Python method.
    pub receiver: Option<Param>,
    pub params: Vec<Param>,
    pub layout: Layout,
    /// Comment lines after the last parameter.
    pub footer: Vec<Decoration>,
    /// The list with its parentheses.
    pub range: Range<usize>,
}

impl OldList {
    /// The text of every entry (receiver first), without comments.
    pub fn entry_texts(&self) -> Vec<&str> {
        self.receiver
            .iter()
            .chain(&self.params)
            .map(|p| p.item.text.as_str())
            .collect()
    }
}

/// A parameter a call can fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Slot {
    pub name: String,
    pub has_default: bool,
    /// Before Python's `/`: it cannot be passed by keyword.
    pub positional_only: bool,
}

/// What a call of the function must pass (the receiver left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Signature {
    /// Parameters that take positional arguments, in order.
    pub positional: Vec<Slot>,
    /// `*args` (or Rust's `...`), by name: surplus positional arguments are absorbed.
    pub var_positional: Option<String>,
    /// Parameters after `*` / `*args`: only by keyword.
    pub keyword_only: Vec<Slot>,
    /// `**kwargs`: unknown keyword arguments are absorbed.
    pub var_keyword: bool,
}

impl Signature {
    pub fn of(params: &[Param]) -> Signature {
        let mut signature = Signature::default();
        let mut keyword_only = false;
        for param in params {
            match param.kind {
                ParamKind::Regular => {
                    let slot = Slot {
                        name: param.name.clone(),
                        has_default: param.has_default(),
                        positional_only: false,
                    };
                    if keyword_only {
                        signature.keyword_only.push(slot);
                    } else {
                        signature.positional.push(slot);
                    }
                }
                ParamKind::PositionalMarker => {
                    for slot in &mut signature.positional {
                        slot.positional_only = true;
                    }
                }
                ParamKind::VarPositional => {
                    signature.var_positional = Some(param.spelled.clone());
                    keyword_only = true;
                }
                ParamKind::KeywordMarker => keyword_only = true,
                ParamKind::VarKeyword => signature.var_keyword = true,
            }
        }
        signature
    }

    /// Whether a parameter called `name` exists (positional or keyword-only).
    pub fn has_name(&self, name: &str) -> bool {
        self.positional
            .iter()
            .chain(&self.keyword_only)
            .any(|s| s.name == name)
    }

    /// Whether every call of `old` stays a valid call meaning the same thing: the old
    /// parameters are all there, in place and no less optional, and what is new has a default.
    pub fn accepts_every_call_of(&self, old: &Signature) -> bool {
        let same = |a: &Slot, b: &Slot| {
            a.name == b.name
                && a.positional_only == b.positional_only
                && (a.has_default || !b.has_default)
        };
        let positional_kept = self.positional.len() >= old.positional.len()
            && self
                .positional
                .iter()
                .zip(&old.positional)
                .all(|(n, o)| same(n, o))
            && self.positional[old.positional.len()..]
                .iter()
                .all(|s| s.has_default);
        let keywords_kept = old
            .keyword_only
            .iter()
            .all(|o| self.keyword_only.iter().any(|n| same(n, o)))
            && self
                .keyword_only
                .iter()
                .all(|n| n.has_default || old.keyword_only.iter().any(|o| o.name == n.name));
        positional_kept
            && keywords_kept
            && (old.var_positional.is_none() || self.var_positional.is_some())
            && (!old.var_keyword || self.var_keyword)
    }

    /// How many arguments a call takes, for messages: `3`, `2 to 3`, `at least 2`.
    pub fn takes(&self) -> String {
        let required = self
            .positional
            .iter()
            .chain(&self.keyword_only)
            .filter(|s| !s.has_default)
            .count();
        let max = self.positional.len() + self.keyword_only.len();
        if self.var_positional.is_some() || self.var_keyword {
            format!("at least {required}")
        } else if required == max {
            format!("{max}")
        } else {
            format!("{required} to {max}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(kind: ParamKind, name: &str, default: Option<&str>) -> Param {
        Param {
            kind,
            spelled: name.to_string(),
            name: name.to_string(),
            mutable: false,
            ty: None,
            default: default.map(str::to_string),
            item: Item::plain(name),
            old: None,
        }
    }

    #[test]
    fn signature_splits_positional_and_keyword_only() {
        let params = vec![
            param(ParamKind::Regular, "a", None),
            param(ParamKind::PositionalMarker, "/", None),
            param(ParamKind::Regular, "b", Some("1")),
            param(ParamKind::KeywordMarker, "*", None),
            param(ParamKind::Regular, "c", None),
        ];
        let signature = Signature::of(&params);
        assert_eq!(signature.positional.len(), 2);
        assert!(signature.positional[0].positional_only);
        assert!(!signature.positional[1].positional_only);
        assert_eq!(signature.keyword_only[0].name, "c");
        assert!(signature.var_positional.is_none());
        assert_eq!(signature.takes(), "2 to 3");
        assert!(signature.has_name("c") && !signature.has_name("d"));
        let extended = Signature::of(&[
            param(ParamKind::Regular, "a", None),
            param(ParamKind::PositionalMarker, "/", None),
            param(ParamKind::Regular, "b", Some("1")),
            param(ParamKind::Regular, "d", Some("2")),
            param(ParamKind::KeywordMarker, "*", None),
            param(ParamKind::Regular, "c", None),
            param(ParamKind::Regular, "e", Some("3")),
        ]);
        assert!(extended.accepts_every_call_of(&signature));
        assert!(!signature.accepts_every_call_of(&extended));
        let required_b = Signature::of(&[
            param(ParamKind::Regular, "a", None),
            param(ParamKind::PositionalMarker, "/", None),
            param(ParamKind::Regular, "b", None),
            param(ParamKind::KeywordMarker, "*", None),
            param(ParamKind::Regular, "c", None),
        ]);
        assert!(!required_b.accepts_every_call_of(&signature));
        let splat = Signature::of(&[param(ParamKind::VarPositional, "args", None)]);
        assert_eq!(splat.var_positional.as_deref(), Some("args"));
        assert_eq!(splat.takes(), "at least 0");
    }
}
