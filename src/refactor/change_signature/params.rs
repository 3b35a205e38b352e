//! The parameters of a function as change signature reasons about them: the list as the author
//! wrote it ([`ParamList`], read by the language), the [`Signature`] a call is matched against,
//! and [`parse_parameters`], the parser of a list as the user types it (the TUI's form).

use super::wording as w;
use crate::lang::Language;
use crate::lang::syntax::BrokenList;
use crate::refactor::NewParameter;

use crate::lang::params::Item;
pub use crate::lang::params::{Param, ParamKind, ParamList};

/// A parameter list as the user typed it, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedParameters {
    /// The receiver written first (`&mut self`, `self`, `cls`), left out of `parameters`: the
    /// engine keeps the function's own.
    pub receiver: Option<String>,
    pub parameters: Vec<NewParameter>,
}

/// Reads the parameter list of a function in `lang` as the user writes it, `(a: i32, b: &str)`
/// or `(self, a, b=1)` (the parentheses may be left out); `is_method` says whether a Python
/// `self`/`cls` first parameter is the receiver. The error says what is wrong and where.
pub fn parse_parameters(
    lang: Language,
    text: &str,
    is_method: bool,
) -> Result<ParsedParameters, String> {
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('('), trimmed.ends_with(')')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        (Some(_), false) => return Err(w::LIST_MUST_END.to_string()),
        (None, _) if trimmed.ends_with(')') => {
            return Err(w::LIST_MUST_START.to_string());
        }
        (None, _) => trimmed,
    };
    let list = match lang.syntax().read_written_list(inner) {
        Ok(list) => list,
        Err(BrokenList { column, what }) => {
            return Err(w::list_does_not_parse(column, &what));
        }
    };
    let mut receiver = list.receiver.map(|r| r.item.text);
    let mut parameters: Vec<NewParameter> = Vec::new();
    for (index, param) in list.params.into_iter().enumerate() {
        // A Python method's `self` or `cls` written first is its receiver.
        let python_receiver = lang == Language::Python
            && is_method
            && index == 0
            && param.kind == ParamKind::Regular
            && matches!(param.name.as_str(), "self" | "cls")
            && param.default.is_none();
        if python_receiver {
            receiver = Some(param.item.text);
            continue;
        }
        let position = index + 1 - usize::from(receiver.is_some() && lang == Language::Python);
        if lang == Language::Rust && param.ty.is_none() && param.spelled != "..." {
            return Err(w::typed_list_needs_types(
                position,
                &param.item.text,
                &param.spelled,
            ));
        }
        let name = match (lang, param.mutable) {
            (Language::Rust, true) => format!("mut {}", param.spelled),
            _ => param.spelled.clone(),
        };
        if param.binds()
            && parameters
                .iter()
                .any(|p| p.name.trim_start_matches("mut ") == param.spelled)
        {
            return Err(w::typed_name_twice(&param.spelled));
        }
        parameters.push(NewParameter {
            name,
            ty: param.ty,
            default: param.default,
        });
    }
    Ok(ParsedParameters {
        receiver,
        parameters,
    })
}

/// The written item of a parameter of the new list: the old parameter's as it was when nothing
/// about it changes, else `render`'s text with the old one's comments and attributes kept.
pub(super) fn item_for(
    old: Option<&Param>,
    unchanged: bool,
    render: impl FnOnce() -> String,
) -> Item {
    match old {
        Some(p) if unchanged => p.item.clone(),
        Some(p) => Item {
            text: render(),
            ..p.item.clone()
        },
        None => Item::plain(render()),
    }
}

/// Sets what `slot` continues from its parameter, and moves a Rust default to the calls.
fn continue_slot(lang: Language, slot: &mut Slot, param: Option<&Param>, old: &[Param]) {
    let Some(param) = param else {
        return;
    };
    slot.continues = param.old.and_then(|i| old.get(i)).map(|p| p.name.clone());
    if lang == Language::Rust && slot.continues.is_none() {
        slot.passed_default = param.default.clone();
        slot.has_default = false;
    }
}

/// A parameter a call can fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub name: String,
    pub has_default: bool,
    /// Before Python's `/`: it cannot be passed by keyword.
    pub positional_only: bool,
    /// In a new signature: the old parameter whose argument this one takes (the same name, or
    /// the one it renames).
    pub continues: Option<String>,
    /// In a new Rust signature: the value passed for it by calls that had nothing to pass (the
    /// request's `default`, which Rust cannot write in the list).
    pub passed_default: Option<String>,
}

/// What a call of the function must pass (the receiver left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature {
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
                        continues: None,
                        passed_default: None,
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

    /// The new signature of `new` (a list derived from `old`): each slot knows the old parameter
    /// it continues, by name, or as a rename when it takes the place of an old parameter the new
    /// list drops and has no default of its own; in Rust a new parameter's default is the value
    /// calls pass, not a default of the list.
    pub fn continuing(lang: Language, old: &[Param], new: &[Param]) -> Signature {
        let mut signature = Signature::of(new);
        let old_signature = Signature::of(old);
        let param_of = |name: &str| {
            new.iter()
                .find(|p| p.kind == ParamKind::Regular && p.name == name)
        };
        let kept: Vec<String> = new
            .iter()
            .filter_map(|p| p.old.and_then(|i| old.get(i)))
            .map(|p| p.name.clone())
            .collect();
        for (index, slot) in signature.positional.iter_mut().enumerate() {
            continue_slot(lang, slot, param_of(&slot.name), old);
            let renames = old_signature
                .positional
                .get(index)
                .filter(|o| !kept.contains(&o.name));
            if let (None, false, None, Some(gone)) = (
                &slot.continues,
                slot.has_default,
                &slot.passed_default,
                renames,
            ) {
                slot.continues = Some(gone.name.clone());
            }
        }
        for slot in &mut signature.keyword_only {
            continue_slot(lang, slot, param_of(&slot.name), old);
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
    use crate::lang::params::Item;

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

    #[test]
    fn typed_lists_are_read_as_in_a_definition() {
        let rust = parse_parameters(
            Language::Rust,
            "(&mut self, mut a: i32, b: Vec<(u8, u8)>)",
            true,
        )
        .unwrap();
        assert_eq!(rust.receiver.as_deref(), Some("&mut self"));
        let names: Vec<(&str, Option<&str>)> = rust
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.ty.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![("mut a", Some("i32")), ("b", Some("Vec<(u8, u8)>"))]
        );
        let python = parse_parameters(
            Language::Python,
            "self, a, b: int = 1, *args, c='x, y', **kw",
            true,
        )
        .unwrap();
        assert_eq!(python.receiver.as_deref(), Some("self"));
        let names: Vec<(&str, Option<&str>, Option<&str>)> = python
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.ty.as_deref(), p.default.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("a", None, None),
                ("b", Some("int"), Some("1")),
                ("*args", None, None),
                ("c", None, Some("'x, y'")),
                ("**kw", None, None)
            ]
        );
        assert!(
            parse_parameters(Language::Python, "()", false)
                .unwrap()
                .parameters
                .is_empty()
        );
        // Not a method: `self` is a parameter like any other.
        assert_eq!(
            parse_parameters(Language::Python, "(self, a)", false)
                .unwrap()
                .parameters
                .len(),
            2
        );
    }

    #[test]
    fn mistakes_are_refused_with_where_they_are() {
        assert!(
            parse_parameters(Language::Rust, "(a)", false)
                .unwrap_err()
                .contains("need a type")
        );
        assert!(
            parse_parameters(Language::Python, "(a, a)", false)
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            parse_parameters(Language::Python, "(a, b", false)
                .unwrap_err()
                .contains("end with `)`")
        );
        assert!(
            parse_parameters(Language::Python, "(a=, b)", false)
                .unwrap_err()
                .contains("does not parse")
        );
        assert!(
            parse_parameters(Language::Rust, "(a: i32,, b: u8)", false)
                .unwrap_err()
                .contains("does not parse")
        );
    }
}
