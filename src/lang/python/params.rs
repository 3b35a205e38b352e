//! Python parameter lists as written: `(self, a, b: int = 1, *args, c, **kw)` with its
//! markers, and whether a text is one annotation or one default value.

use tree_sitter::Node;

use crate::lang::params::{
    DecorationKind, Param, ParamKind, ParamList, Unreadable, fills_one_parameter, parse_list,
};
use crate::lang::{Language, node_text};

/// The parameter list node `params` of `function`; `has_receiver` when it is a method whose
/// first parameter is `self`/`cls` (not a `@staticmethod`).
pub fn read_list(
    params: Node<'_>,
    text: &str,
    has_receiver: bool,
) -> Result<ParamList, Unreadable> {
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
                    return Err(Unreadable::of(node, text));
                };
                let (kind, name) = splat(inner, text).ok_or_else(|| Unreadable::of(node, text))?;
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
                let (kind, name) = splat(node, text).ok_or_else(|| Unreadable::of(node, text))?;
                (kind, name, None, None)
            }
            "keyword_separator" => (ParamKind::KeywordMarker, "*".to_string(), None, None),
            "positional_separator" => (ParamKind::PositionalMarker, "/".to_string(), None, None),
            _ => return Err(Unreadable::of(node, text)),
        };
        if name.is_empty() {
            return Err(Unreadable::of(node, text));
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
    Ok(ParamList {
        receiver,
        params: list,
        layout: parsed.layout,
        footer: parsed.footer,
        range: params.byte_range(),
    })
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

pub fn spelled(kind: ParamKind, name: &str) -> String {
    match kind {
        ParamKind::VarPositional => format!("*{name}"),
        ParamKind::VarKeyword => format!("**{name}"),
        _ => name.to_string(),
    }
}

/// Whether `ty` parses as one annotation (on one line).
pub fn is_annotation(ty: &str) -> bool {
    probe(ty, "typed_parameter", "type", |t| {
        format!("def probe(x: {t}):\n    pass\n")
    })
}

/// Whether `default` parses as one expression (on one line).
pub fn is_default(default: &str) -> bool {
    probe(default, "default_parameter", "value", |d| {
        format!("def probe(x={d}):\n    pass\n")
    })
}

fn probe(fragment: &str, kind: &str, field: &str, wrap: impl Fn(&str) -> String) -> bool {
    fills_one_parameter(
        Language::Python,
        &wrap(fragment),
        Some(kind),
        field,
        fragment,
    )
}
