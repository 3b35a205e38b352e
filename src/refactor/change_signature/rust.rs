//! Rust's rules for a new parameter list: every parameter typed, no defaults (a new parameter's
//! `default` is the value its callers pass), no name twice, the receiver kept; and the entries rendered. Reading the old list is `lang::rust::params`; call
//! sites are not this module's business.

use super::params::item_for;
use super::wording as w;
use super::{Resolved, invalid};
use crate::lang::Language;
use crate::lang::params::{Param, ParamKind, ParamList};
use crate::lang::rust::params::{is_receiver_spelling, is_type, split_mut};
use crate::refactor::{NewParameter, RefactorError};
use crate::text::collapse_whitespace;

/// Checks the requested list against Rust's rules and renders every entry. `function` names the
/// function in messages.
pub(super) fn new_list(
    old: &ParamList,
    wanted: &[NewParameter],
    function: &str,
) -> Result<Resolved, RefactorError> {
    let mut resolved = Resolved::default();
    let mut seen: Vec<String> = Vec::new();
    for (index, request) in wanted.iter().enumerate() {
        let position = index + 1;
        let spelled = request.name.trim();
        if is_receiver_spelling(spelled) {
            match &old.receiver {
                Some(receiver) if index == 0 => {
                    let as_written = collapse_whitespace(&receiver.item.text);
                    let given = match &request.ty {
                        Some(ty) => format!("{spelled}: {ty}"),
                        None => spelled.to_string(),
                    };
                    let just_self = spelled == "self" && request.ty.is_none();
                    if !just_self && collapse_whitespace(&given) != as_written {
                        resolved.notes.push(w::receiver_kept_though_given(
                            &as_written,
                            function,
                            &given,
                        ));
                    }
                    continue;
                }
                Some(_) => {
                    return Err(invalid(w::receiver_not_first(spelled, position)));
                }
                None => {
                    return Err(invalid(w::receiver_not_added(function, spelled)));
                }
            }
        }
        let (user_mut, pattern) = split_mut(spelled);
        let old_index = old.params.iter().position(|p| {
            squash(&p.spelled) == squash(pattern)
                && (p.kind == ParamKind::Regular || pattern == "...")
        });
        // A pattern parameter keeps the spelling it was written with.
        let pattern = match old_index.and_then(|i| old.params.get(i)) {
            Some(p) => p.spelled.clone(),
            None => collapse_whitespace(pattern),
        };
        let old_param = old_index.and_then(|i| old.params.get(i));
        if pattern == "..." {
            let Some(variadic) = old_param else {
                return Err(invalid(w::variadic_not_allowed(position, function)));
            };
            if position != wanted.len() {
                return Err(invalid(w::VARIADIC_LAST.to_string()));
            }
            resolved.params.push(Param {
                old: old_index,
                ..variadic.clone()
            });
            continue;
        }
        if old_param.is_none() {
            check_binding_name(&pattern, position)?;
        }
        if is_plain_name(&pattern) && pattern != "_" {
            if seen.contains(&pattern) {
                return Err(invalid(w::rust_name_twice(&pattern)));
            }
            seen.push(pattern.clone());
        }
        // Rust has no default values: on a new parameter, `default` is what calls pass.
        let passed = match (&request.default, old_param) {
            (Some(default), Some(_)) => {
                return Err(invalid(w::rust_default_refused(
                    default, &pattern, position,
                )));
            }
            (Some(default), None)
                if default.trim().is_empty() || default.contains(['\n', '\r']) =>
            {
                return Err(invalid(w::rust_passed_default_invalid(
                    default, &pattern, position,
                )));
            }
            (default, _) => default.as_ref().map(|d| d.trim().to_string()),
        };
        let ty = match (&request.ty, old_param.and_then(|p| p.ty.as_ref())) {
            (Some(ty), _) => {
                check_type(ty)
                    .map_err(|why| invalid(w::type_invalid(&pattern, position, ty, &why)))?;
                ty.clone()
            }
            (None, Some(old_ty)) => old_ty.clone(),
            (None, None) => {
                return Err(invalid(w::new_parameter_needs_a_type(&pattern, function)));
            }
        };
        let mutable = user_mut || old_param.is_some_and(|p| p.mutable);
        let unchanged = old_param.is_some_and(|p| {
            p.ty.as_deref().map(collapse_whitespace) == Some(collapse_whitespace(&ty))
                && p.mutable == mutable
        });
        let item = item_for(old_param, unchanged, || {
            format!("{}{pattern}: {ty}", if mutable { "mut " } else { "" })
        });
        resolved.params.push(Param {
            kind: ParamKind::Regular,
            spelled: pattern.clone(),
            name: pattern,
            mutable,
            ty: Some(ty),
            default: passed,
            item,
            old: old_index,
        });
    }
    Ok(resolved)
}

/// `text` without any whitespace, to compare patterns as Rust reads them.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn is_plain_name(name: &str) -> bool {
    name.chars()
        .all(|c| c == '_' || c == '#' || unicode_ident::is_xid_continue(c))
}

/// A new parameter's name must bind one name: an identifier, `_`, or a raw identifier.
fn check_binding_name(name: &str, position: usize) -> Result<(), RefactorError> {
    if name == "_" {
        return Ok(());
    }
    if let Some(raw) = name.strip_prefix("r#") {
        let plain = Language::Rust.validate_identifier(raw).is_ok()
            || Language::Rust.is_keyword(raw)
                && !matches!(raw, "crate" | "self" | "super" | "Self");
        if plain {
            return Ok(());
        }
    }
    Language::Rust
        .validate_identifier(name)
        .map_err(|why| invalid(w::rust_parameter_invalid(position, &why)))
}

/// Whether `ty` is one Rust type on one line; the error says why not.
pub(super) fn check_type(ty: &str) -> Result<(), String> {
    if ty.contains(['\n', '\r']) {
        return Err(w::ONE_LINE.to_string());
    }
    if is_type(ty) {
        Ok(())
    } else {
        Err(w::NOT_A_RUST_TYPE.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn old(text: &str) -> ParamList {
        crate::lang::params::first_list(Language::Rust, text, false)
    }

    fn want(items: &[(&str, Option<&str>)]) -> Vec<NewParameter> {
        items
            .iter()
            .map(|(name, ty)| NewParameter {
                name: name.to_string(),
                ty: ty.map(str::to_string),
                default: None,
            })
            .collect()
    }

    #[test]
    fn reads_receivers_patterns_and_attributes() {
        let list = old("fn f(&'a mut self, #[cfg(x)] mut a: i32, (x, y): (u8, u8), _: u8) {}");
        assert_eq!(list.receiver.as_ref().unwrap().item.text, "&'a mut self");
        let names: Vec<(&str, bool, Option<&str>)> = list
            .params
            .iter()
            .map(|p| (p.spelled.as_str(), p.mutable, p.ty.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("a", true, Some("i32")),
                ("(x, y)", false, Some("(u8, u8)")),
                ("_", false, Some("u8"))
            ]
        );
        assert_eq!(list.params[0].item.prefix, "#[cfg(x)] ");
        let typed_self = old("fn f(self: Box<Self>, a: i32) {}");
        assert_eq!(typed_self.receiver.unwrap().item.text, "self: Box<Self>");
    }

    #[test]
    fn keeps_old_types_and_mut_by_name() {
        let list = old("fn f(&self, mut a: i32, b: &str) {}");
        let new = new_list(
            &list,
            &want(&[
                ("self", None),
                ("b", None),
                ("a", Some("u64")),
                ("c", Some("impl Fn(u8) -> u8")),
            ]),
            "f",
        )
        .unwrap();
        let texts: Vec<&str> = new.params.iter().map(|p| p.item.text.as_str()).collect();
        assert_eq!(texts, vec!["b: &str", "mut a: u64", "c: impl Fn(u8) -> u8"]);
        assert_eq!(new.params[0].old, Some(1));
        assert!(new.notes.is_empty());
        let pattern = new_list(
            &old("fn f((x, y): (u8, u8)) {}"),
            &want(&[("(x,  y)", None)]),
            "f",
        )
        .unwrap();
        assert_eq!(pattern.params[0].item.text, "(x, y): (u8, u8)");
    }

    #[test]
    fn refuses_what_rust_refuses() {
        let list = old("fn f(a: i32) {}");
        let message = |wanted: Vec<NewParameter>| match new_list(&list, &wanted, "f") {
            Err(RefactorError::InvalidArgument { param, message }) => {
                assert_eq!(param, "new_parameters");
                message
            }
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert!(message(want(&[("a", None), ("c", None)])).contains("needs a Rust type"));
        assert!(message(want(&[("a", None), ("a", Some("u8"))])).contains("twice"));
        assert!(message(want(&[("fn", Some("u8"))])).contains("keyword"));
        assert!(message(want(&[("self", None)])).contains("no `self`"));
        assert!(message(want(&[("b", Some("Vec<u8"))])).contains("does not parse"));
        assert!(message(want(&[("b", Some("u8) {} fn g(x: u8"))])).contains("does not parse"));
        let mut kept_with_default = want(&[("a", Some("u8"))]);
        kept_with_default[0].default = Some("1".into());
        assert!(message(kept_with_default).contains("no default parameter values"));
        let mut new_with_default = want(&[("a", None), ("b", Some("u8"))]);
        new_with_default[1].default = Some("1".into());
        let passed = new_list(&list, &new_with_default, "f").unwrap();
        assert_eq!(passed.params[1].item.text, "b: u8");
        assert_eq!(passed.params[1].default.as_deref(), Some("1"));
        assert!(
            new_list(
                &list,
                &want(&[("r#type", Some("u8")), ("_", Some("u8"))]),
                "f"
            )
            .is_ok()
        );
    }

    #[test]
    fn receiver_spellings() {
        for yes in ["self", "&self", "&mut self", "& 'a mut self", "mut self"] {
            assert!(is_receiver_spelling(yes), "{yes}");
        }
        for no in ["selfish", "&x", "s"] {
            assert!(!is_receiver_spelling(no), "{no}");
        }
    }
}
