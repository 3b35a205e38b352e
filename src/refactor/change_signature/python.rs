//! Python parameter lists: reading `(self, a, b: int = 1, *args, c, **kw)` as written, checking
//! a requested new list against Python's rules (no required parameter after a defaulted one, one
//! `*`, `**kwargs` last, no name twice, names not keywords) and rendering its entries in PEP 8
//! spacing. Call sites are not this module's business.

use tree_sitter::Node;

use super::layout::{DecorationKind, Item, collapse_whitespace, parse_list};
use super::params::{OldList, Param, ParamKind};
use super::{Resolved, invalid};
use crate::lang::{Language, node_text, syntax_errors};
use crate::refactor::{NewParameter, RefactorError};

/// The parameter list node `params` of `function`; `has_receiver` when it is a method whose
/// first parameter is `self`/`cls` (not a `@staticmethod`).
pub(super) fn old_list(
    params: Node<'_>,
    text: &str,
    function: &str,
    has_receiver: bool,
) -> Result<OldList, RefactorError> {
    let parsed = parse_list(
        params,
        text,
        |n| (n.kind() == "comment").then_some(DecorationKind::Comment),
        |s| s.starts_with('#'),
    );
    let mut list: Vec<Param> = Vec::new();
    for (node, item) in parsed.items {
        let field = |name: &str| {
            node.child_by_field_name(name)
                .map(|n| node_text(n, text).to_string())
        };
        let (kind, name, ty, default) = match node.kind() {
            "identifier" => (
                ParamKind::Regular,
                node_text(node, text).to_string(),
                None,
                None,
            ),
            "typed_parameter" => {
                let Some(inner) = node.named_child(0) else {
                    return Err(unreadable(function, node));
                };
                let (kind, name) = splat(inner, text).ok_or_else(|| unreadable(function, node))?;
                (kind, name, field("type"), None)
            }
            "default_parameter" => (
                ParamKind::Regular,
                field("name").unwrap_or_default(),
                None,
                field("value"),
            ),
            "typed_default_parameter" => (
                ParamKind::Regular,
                field("name").unwrap_or_default(),
                field("type"),
                field("value"),
            ),
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                let (kind, name) = splat(node, text).ok_or_else(|| unreadable(function, node))?;
                (kind, name, None, None)
            }
            "keyword_separator" => (ParamKind::KeywordMarker, "*".to_string(), None, None),
            "positional_separator" => (ParamKind::PositionalMarker, "/".to_string(), None, None),
            _ => return Err(unreadable(function, node)),
        };
        if name.is_empty() {
            return Err(unreadable(function, node));
        }
        list.push(Param {
            spelled: spelled(kind, &name),
            kind,
            name,
            mutable: false,
            ty,
            default,
            item,
            old: None,
        });
    }
    let receiver = if has_receiver && list.first().is_some_and(|p| p.kind == ParamKind::Regular) {
        Some(list.remove(0))
    } else {
        None
    };
    Ok(OldList {
        receiver,
        params: list,
        layout: parsed.layout,
        footer: parsed.footer,
        range: params.byte_range(),
    })
}

fn unreadable(function: &str, node: Node<'_>) -> RefactorError {
    RefactorError::Unsupported(format!(
        "the parameter list of `{function}` holds a `{}` (line {}) that the heuristic cannot read; change this signature by hand",
        node.kind(),
        node.start_position().row + 1
    ))
}

/// `name`, `*args` or `**kwargs` as a kind and a bare name.
fn splat(node: Node<'_>, text: &str) -> Option<(ParamKind, String)> {
    match node.kind() {
        "identifier" => Some((ParamKind::Regular, node_text(node, text).to_string())),
        "list_splat_pattern" => Some((
            ParamKind::VarPositional,
            node_text(node.named_child(0)?, text).to_string(),
        )),
        "dictionary_splat_pattern" => Some((
            ParamKind::VarKeyword,
            node_text(node.named_child(0)?, text).to_string(),
        )),
        _ => None,
    }
}

fn spelled(kind: ParamKind, name: &str) -> String {
    match kind {
        ParamKind::VarPositional => format!("*{name}"),
        ParamKind::VarKeyword => format!("**{name}"),
        _ => name.to_string(),
    }
}

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
    old: &OldList,
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
                resolved.notes.push(format!(
                    "the receiver `{}` of `{function}` is kept as it is; change signature does not change receivers",
                    receiver.item.text
                ));
            }
            continue;
        }
        let is_marker = matches!(kind, ParamKind::KeywordMarker | ParamKind::PositionalMarker);
        if is_marker {
            if request.ty.is_some() || request.default.is_some() {
                return Err(invalid(format!(
                    "`{name}` (parameter {position}) is a marker, not a parameter: it takes no type and no default"
                )));
            }
        } else {
            Language::Python
                .validate_identifier(name)
                .map_err(|why| invalid(format!("parameter {position} of new_parameters: {why}")))?;
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
            check_annotation(ty).map_err(|why| {
                invalid(format!(
                    "the type of `{spelled}` (parameter {position}), `{ty}`, {why}"
                ))
            })?;
        }
        if let Some(default) = &default {
            if kind != ParamKind::Regular {
                return Err(invalid(format!(
                    "`{spelled}` (parameter {position}) cannot have a default in Python; remove \"default\""
                )));
            }
            check_default(default).map_err(|why| {
                invalid(format!(
                    "the default of `{spelled}` (parameter {position}), `{default}`, {why}"
                ))
            })?;
        }
        let same = |a: &Option<String>, b: &Option<String>| {
            a.as_deref().map(collapse_whitespace) == b.as_deref().map(collapse_whitespace)
        };
        let item = match old_param {
            Some(p) if same(&p.ty, &ty) && same(&p.default, &default) => p.item.clone(),
            _ => {
                let text = render(&spelled, ty.as_deref(), default.as_deref());
                match old_param {
                    Some(p) => Item {
                        text,
                        ..p.item.clone()
                    },
                    None => Item::plain(text),
                }
            }
        };
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
            return Err(invalid(format!(
                "`{kw}` must be the last parameter, but `{}` follows it",
                param.spelled
            )));
        }
        match param.kind {
            ParamKind::PositionalMarker => {
                if slash {
                    return Err(invalid(
                        "`/` appears twice in new_parameters; Python allows one".to_string(),
                    ));
                }
                if let Some(star) = star {
                    return Err(invalid(format!("`/` must come before `{star}`")));
                }
                if !before_slash {
                    return Err(invalid(
                        "`/` needs at least one parameter before it".to_string(),
                    ));
                }
                slash = true;
            }
            ParamKind::KeywordMarker | ParamKind::VarPositional => {
                if let Some(star) = star {
                    return Err(invalid(format!(
                        "`{}` after `{star}`: Python allows one `*` or `*args` per list",
                        param.spelled
                    )));
                }
                star = Some(param.spelled.as_str());
                bare_star_waiting = param.kind == ParamKind::KeywordMarker;
            }
            ParamKind::VarKeyword => {
                if bare_star_waiting {
                    return Err(invalid(
                        "a bare `*` must be followed by at least one named parameter before `**` parameters".to_string(),
                    ));
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
                    return Err(invalid(format!(
                        "`{}` has no default but comes after `{previous}`, which has one; Python refuses that: give `{}` a default, or move it before `{previous}` (or after a `*`)",
                        param.spelled, param.spelled
                    )));
                }
            }
        }
        if param.binds() {
            if names.contains(&param.name.as_str()) {
                return Err(invalid(format!(
                    "`{}` is in new_parameters twice; Python refuses a duplicate parameter name",
                    param.name
                )));
            }
            names.push(param.name.as_str());
        }
    }
    if bare_star_waiting {
        return Err(invalid(
            "a bare `*` must be followed by at least one named parameter".to_string(),
        ));
    }
    Ok(())
}

/// Whether `ty` parses as one annotation expression.
fn check_annotation(ty: &str) -> Result<(), String> {
    probe(ty, "typed_parameter", "type", |t| {
        format!("def probe(x: {t}):\n    pass\n")
    })
}

/// Whether `default` parses as one expression.
fn check_default(default: &str) -> Result<(), String> {
    probe(default, "default_parameter", "value", |d| {
        format!("def probe(x={d}):\n    pass\n")
    })
}

fn probe(
    fragment: &str,
    kind: &str,
    field: &str,
    wrap: impl Fn(&str) -> String,
) -> Result<(), String> {
    if fragment.contains(['\n', '\r']) {
        return Err("spans several lines; give it on one line".to_string());
    }
    let text = wrap(fragment);
    let tree = Language::Python.parse(&text);
    let parses = syntax_errors(&tree, &text).is_empty()
        && tree.root_node().named_child_count() == 1
        && tree
            .root_node()
            .named_child(0)
            .and_then(|f| f.child_by_field_name("parameters"))
            .filter(|p| p.named_child_count() == 1)
            .and_then(|p| p.named_child(0))
            .filter(|p| p.kind() == kind)
            .and_then(|p| p.child_by_field_name(field))
            .is_some_and(|v| node_text(v, &text) == fragment);
    if parses {
        Ok(())
    } else {
        Err("does not parse as one Python expression".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn old(text: &str, receiver: bool) -> OldList {
        let tree = Language::Python.parse(text);
        let mut params = None;
        crate::lang::walk_tree(&tree, |n| {
            if n.kind() == "parameters" && params.is_none() {
                params = Some(n);
            }
            params.is_none()
        });
        old_list(params.unwrap(), text, "f", receiver).unwrap()
    }

    fn want(items: &[(&str, Option<&str>, Option<&str>)]) -> Vec<NewParameter> {
        items
            .iter()
            .map(|(name, ty, default)| NewParameter {
                name: name.to_string(),
                ty: ty.map(str::to_string),
                default: default.map(str::to_string),
            })
            .collect()
    }

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
