//! Rust parameter lists as written: `(&self, mut a: i32, (x, y): (u8, u8))`, its receiver, the
//! `mut` of a binding, and whether a text is one Rust type.

use tree_sitter::Node;

use crate::lang::params::{
    DecorationKind, Item, Param, ParamKind, ParamList, Unreadable, fills_one_parameter, parse_list,
};
use crate::lang::{Language, node_text};
use crate::text::collapse_whitespace;

/// The parameter list node `params` of the Rust function `function`, as written.
pub fn read_list(params: Node<'_>, text: &str) -> Result<ParamList, Unreadable> {
    let parsed = parse_list(
        params,
        text,
        |n| match n.kind() {
            "line_comment" | "block_comment" => Some(DecorationKind::Comment),
            "attribute_item" => Some(DecorationKind::Attribute),
            _ => None,
        },
        |s| s.starts_with("//"),
    );
    let mut receiver = None;
    let mut list = Vec::new();
    for (index, (node, item)) in parsed.items.into_iter().enumerate() {
        let param = match node.kind() {
            "self_parameter" => {
                receiver = Some(receiver_param(item));
                continue;
            }
            "parameter" => {
                let ty = node.child_by_field_name("type");
                let head_end = ty.map_or(node.end_byte(), |t| t.start_byte());
                let head = text
                    .get(node.start_byte()..head_end)
                    .unwrap_or("")
                    .trim_end()
                    .trim_end_matches(':')
                    .trim();
                let (mutable, pattern) = split_mut(head);
                if pattern == "self" && index == 0 {
                    receiver = Some(receiver_param(item));
                    continue;
                }
                let pattern = collapse_whitespace(pattern);
                Param {
                    kind: ParamKind::Regular,
                    spelled: pattern.clone(),
                    name: pattern,
                    mutable,
                    ty: ty.map(|t| node_text(t, text).to_string()),
                    default: None,
                    item,
                    old: None,
                }
            }
            "variadic_parameter" => Param {
                kind: ParamKind::VarPositional,
                spelled: "...".to_string(),
                name: "...".to_string(),
                mutable: false,
                ty: None,
                default: None,
                item,
                old: None,
            },
            _ => return Err(Unreadable::of(node, text)),
        };
        list.push(param);
    }
    Ok(ParamList {
        receiver,
        params: list,
        layout: parsed.layout,
        footer: parsed.footer,
        range: params.byte_range(),
    })
}

/// Why a parameter the user wrote is not one: a bare `a` reads as a type without a name.
pub fn explain_written(unreadable: &Unreadable) -> String {
    let is_type = unreadable.kind.ends_with("_type")
        || matches!(
            unreadable.kind.as_str(),
            "type_identifier" | "scoped_type_identifier"
        );
    if is_type {
        format!(
            "`{}` has no type: Rust parameters need a type: write `name: Type`",
            unreadable.text
        )
    } else {
        format!("`{}` is not a parameter", unreadable.text)
    }
}

fn receiver_param(item: Item) -> Param {
    Param {
        kind: ParamKind::Regular,
        spelled: "self".to_string(),
        name: "self".to_string(),
        mutable: false,
        ty: None,
        default: None,
        item,
        old: None,
    }
}

/// `mut a` → (true, `a`).
pub fn split_mut(head: &str) -> (bool, &str) {
    match head.strip_prefix("mut") {
        Some(rest) if rest.starts_with(char::is_whitespace) => (true, rest.trim_start()),
        _ => (false, head),
    }
}

/// `self`, `&self`, `&mut self`, `&'a self`, `mut self`.
pub fn is_receiver_spelling(name: &str) -> bool {
    let words: Vec<&str> = name
        .split(|c: char| c.is_whitespace() || c == '&')
        .filter(|w| !w.is_empty() && *w != "mut" && !w.starts_with('\''))
        .collect();
    words == ["self"]
}

/// Whether `ty` parses as exactly one Rust type (on one line).
pub fn is_type(ty: &str) -> bool {
    let probe = format!("fn probe(_: {ty}) {{}}\n");
    fills_one_parameter(Language::Rust, &probe, None, "type", ty)
}
