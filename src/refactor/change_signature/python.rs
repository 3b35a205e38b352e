//! Python's rules for a new parameter list (no required parameter after a defaulted one, one `*`,
//! `**kwargs` last, no name twice, names not keywords), and its entries rendered in PEP 8
//! spacing. Reading the old list is `lang::python::params`; call sites are not this module's
//! business.

use super::params::item_for;
use super::wording as w;
use super::{Resolved, invalid};
use crate::lang::Language;
use crate::lang::params::{Param, ParamKind, ParamList};
use crate::lang::python::params::{is_annotation, is_default, spelled};
use crate::refactor::{NewParameter, RefactorError};
use crate::text::collapse_whitespace;

/// How a `new_parameters` name reads: `*`, `/`, `*args`, `**kw` or a plain name.
fn classify(spelled: &str) -> (ParamKind, &str) {
    match spelled {
        "*" => (ParamKind::KeywordMarker, "*"),
        "/" => (ParamKind::PositionalMarker, "/"),
        _ => {
            if let Some(rest) = spelled.strip_prefix("**") {
                (ParamKind::VarKeyword, rest.trim())
            } else if let Some(rest) = spelled.strip_prefix('*') {
                (ParamKind::VarPositional, rest.trim())
            } else {
                (ParamKind::Regular, spelled)
            }
        }
    }
}

/// Checks the requested list against Python's rules and renders every entry. An omitted `type`
/// or `default` keeps the annotation or default of the old parameter of the same name.
pub(super) fn new_list(
    old: &ParamList,
    wanted: &[NewParameter],
    function: &str,
) -> Result<Resolved, RefactorError> {
    let mut resolved = Resolved::default();
    for (index, request) in wanted.iter().enumerate() {
        let position = index + 1;
        let (kind, name) = classify(request.name.trim());
        let echoed_receiver = old
            .receiver
            .as_ref()
            .filter(|r| index == 0 && kind == ParamKind::Regular && name == r.name);
        if let Some(receiver) = echoed_receiver {
            if request.ty.is_some() || request.default.is_some() {
                resolved
                    .notes
                    .push(w::receiver_kept(&receiver.item.text, function));
            }
            continue;
        }
        let is_marker = matches!(kind, ParamKind::KeywordMarker | ParamKind::PositionalMarker);
        if is_marker {
            if request.ty.is_some() || request.default.is_some() {
                return Err(invalid(w::marker_with_a_type_or_default(name, position)));
            }
        } else {
            Language::Python
                .validate_identifier(name)
                .map_err(|why| invalid(w::parameter_invalid(position, &why)))?;
        }
        let old_index = old
            .params
            .iter()
            .position(|p| p.kind == kind && p.name == name);
        let old_param = old_index.and_then(|i| old.params.get(i));
        let ty = request
            .ty
            .clone()
            .or_else(|| old_param.and_then(|p| p.ty.clone()));
        let default = request
            .default
            .clone()
            .or_else(|| old_param.and_then(|p| p.default.clone()));
        let spelled = spelled(kind, name);
        if let Some(ty) = &ty {
            check_annotation(ty)
                .map_err(|why| invalid(w::type_invalid(&spelled, position, ty, &why)))?;
        }
        if let Some(default) = &default {
            if kind != ParamKind::Regular {
                return Err(invalid(w::marker_with_a_default(&spelled, position)));
            }
            check_default(default)
                .map_err(|why| invalid(w::default_invalid(&spelled, position, default, &why)))?;
        }
        let same = |a: &Option<String>, b: &Option<String>| {
            a.as_deref().map(collapse_whitespace) == b.as_deref().map(collapse_whitespace)
        };
        let unchanged = old_param.is_some_and(|p| same(&p.ty, &ty) && same(&p.default, &default));
        let item = item_for(old_param, unchanged, || {
            render(&spelled, ty.as_deref(), default.as_deref())
        });
        resolved.params.push(Param {
            kind,
            spelled,
            name: name.to_string(),
            mutable: false,
            ty,
            default,
            item,
            old: old_index,
        });
    }
    check_order(old.receiver.as_ref(), &resolved.params)?;
    Ok(resolved)
}

/// `name`, `name: T`, `name=d`, `name: T = d` (PEP 8).
pub(super) fn render(spelled: &str, ty: Option<&str>, default: Option<&str>) -> String {
    match (ty, default) {
        (None, None) => spelled.to_string(),
        (Some(ty), None) => format!("{spelled}: {ty}"),
        (None, Some(default)) => format!("{spelled}={default}"),
        (Some(ty), Some(default)) => format!("{spelled}: {ty} = {default}"),
    }
}

/// The rules Python's parser enforces on a parameter list.
fn check_order(receiver: Option<&Param>, params: &[Param]) -> Result<(), RefactorError> {
    let mut names: Vec<&str> = receiver.iter().map(|r| r.name.as_str()).collect();
    let mut before_slash = receiver.is_some();
    let mut slash = false;
    let mut star: Option<&str> = None;
    let mut bare_star_waiting = false;
    let mut kwargs: Option<&str> = None;
    let mut defaulted: Option<&str> = None;
    for param in params {
        if let Some(kw) = kwargs {
            return Err(invalid(w::must_be_last(kw, &param.spelled)));
        }
        match param.kind {
            ParamKind::PositionalMarker => {
                if slash {
                    return Err(invalid(w::SLASH_TWICE.to_string()));
                }
                if let Some(star) = star {
                    return Err(invalid(w::slash_after_star(star)));
                }
                if !before_slash {
                    return Err(invalid(w::SLASH_FIRST.to_string()));
                }
                slash = true;
            }
            ParamKind::KeywordMarker | ParamKind::VarPositional => {
                if let Some(star) = star {
                    return Err(invalid(w::second_star(&param.spelled, star)));
                }
                star = Some(param.spelled.as_str());
                bare_star_waiting = param.kind == ParamKind::KeywordMarker;
            }
            ParamKind::VarKeyword => {
                if bare_star_waiting {
                    return Err(invalid(w::BARE_STAR_BEFORE_KWARGS.to_string()));
                }
                kwargs = Some(param.spelled.as_str());
            }
            ParamKind::Regular => {
                before_slash = true;
                if star.is_some() {
                    bare_star_waiting = false;
                } else if param.has_default() {
                    defaulted = Some(param.spelled.as_str());
                } else if let Some(previous) = defaulted {
                    return Err(invalid(w::default_order(&param.spelled, previous)));
                }
            }
        }
        if param.binds() {
            if names.contains(&param.name.as_str()) {
                return Err(invalid(w::python_name_twice(&param.name)));
            }
            names.push(param.name.as_str());
        }
    }
    if bare_star_waiting {
        return Err(invalid(w::BARE_STAR_LAST.to_string()));
    }
    Ok(())
}

/// Whether `ty` is one annotation on one line.
fn check_annotation(ty: &str) -> Result<(), String> {
    one_line(ty)?;
    if is_annotation(ty) {
        Ok(())
    } else {
        Err(w::NOT_AN_EXPRESSION.to_string())
    }
}

/// Whether `default` is one expression on one line.
fn check_default(default: &str) -> Result<(), String> {
    one_line(default)?;
    if is_default(default) {
        Ok(())
    } else {
        Err(w::NOT_AN_EXPRESSION.to_string())
    }
}

fn one_line(fragment: &str) -> Result<(), String> {
    if fragment.contains(['\n', '\r']) {
        Err(w::ONE_LINE.to_string())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn old(text: &str, receiver: bool) -> ParamList {
        crate::lang::params::first_list(Language::Python, text, receiver)
    }

    use super::super::tests::params as want;

    fn texts(resolved: &Resolved) -> Vec<&str> {
        resolved
            .params
            .iter()
            .map(|p| p.item.text.as_str())
            .collect()
    }

    #[test]
    fn reads_every_kind_of_parameter() {
        let list = old(
            "def f(self, a, b: int, c=1, d: int = 2, /, *args: str, e, **kw): pass\n",
            true,
        );
        assert_eq!(list.receiver.as_ref().unwrap().name, "self");
        let spelled: Vec<&str> = list.params.iter().map(|p| p.spelled.as_str()).collect();
        assert_eq!(spelled, vec!["a", "b", "c", "d", "/", "*args", "e", "**kw"]);
        assert_eq!(list.params[3].ty.as_deref(), Some("int"));
        assert_eq!(list.params[3].default.as_deref(), Some("2"));
        assert_eq!(list.params[5].ty.as_deref(), Some("str"));
        let no_receiver = old("def f(*args): pass\n", true);
        assert!(no_receiver.receiver.is_none());
    }

    #[test]
    fn renders_pep8_and_keeps_what_is_not_given() {
        let list = old("def f(self, a: int, b = 1): pass\n", true);
        let new = new_list(
            &list,
            &want(&[
                ("self", None, None),
                ("b", None, None),
                ("a", None, Some("0")),
                ("c", Some("str"), Some("''")),
                ("*", None, None),
                ("d", None, None),
            ]),
            "f",
        )
        .unwrap();
        assert_eq!(
            texts(&new),
            vec!["b = 1", "a: int = 0", "c: str = ''", "*", "d"]
        );
        let plain = new_list(
            &list,
            &want(&[("x", None, Some("None")), ("**kw", Some("int"), None)]),
            "f",
        )
        .unwrap();
        assert_eq!(texts(&plain), vec!["x=None", "**kw: int"]);
    }

    #[test]
    fn refuses_what_python_refuses() {
        let list = old("def f(a): pass\n", false);
        let message =
            |items: &[(&str, Option<&str>, Option<&str>)]| match new_list(&list, &want(items), "f")
            {
                Err(RefactorError::InvalidArgument { param, message }) => {
                    assert_eq!(param, "new_parameters");
                    message
                }
                other => panic!("expected a refusal for {items:?}, got {other:?}"),
            };
        assert!(
            message(&[("a", None, Some("1")), ("b", None, None)])
                .contains("has no default but comes after `a`")
        );
        assert!(message(&[("a", None, None), ("a", None, None)]).contains("twice"));
        assert!(message(&[("class", None, None)]).contains("keyword"));
        assert!(message(&[("**kw", None, None), ("b", None, None)]).contains("must be the last"));
        assert!(message(&[("*", None, None)]).contains("bare `*`"));
        assert!(message(&[("*", None, None), ("**kw", None, None)]).contains("bare `*`"));
        assert!(
            message(&[("*args", None, None), ("*", None, None), ("b", None, None)])
                .contains("one `*`")
        );
        assert!(
            message(&[("/", None, None), ("a", None, None)]).contains("at least one parameter")
        );
        assert!(
            message(&[
                ("a", None, None),
                ("*", None, None),
                ("b", None, None),
                ("/", None, None)
            ])
            .contains("before `*`")
        );
        assert!(message(&[("*args", None, Some("1"))]).contains("cannot have a default"));
        assert!(message(&[("b", Some("List[int"), None)]).contains("does not parse"));
        assert!(message(&[("b", None, Some("1, c=2"))]).contains("does not parse"));
        assert!(message(&[("/", Some("int"), None)]).contains("marker"));
        // Keyword-only parameters may mix defaults freely; `/` after the receiver is fine.
        assert!(
            new_list(
                &list,
                &want(&[("a", None, Some("1")), ("*", None, None), ("b", None, None)]),
                "f"
            )
            .is_ok()
        );
        let method = old("def m(self, a): pass\n", true);
        assert!(new_list(&method, &want(&[("/", None, None), ("a", None, None)]), "m").is_ok());
    }
}
