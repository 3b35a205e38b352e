//! The one local a `let`'s value borrows from, when the source says so: a chain of field
//! reads, `&` and method calls with literal arguments, rooted at a name (`self.as_str().split('.')`).

use tree_sitter::Node;

use crate::lang::node_text;

/// The name the value of the `let` that binds the identifier at byte `at` is rooted at
/// (`self`, `rhs`), or `None` when the value is anything else (a call of a function, an
/// argument that names a local, an index, a block).
pub fn let_value_root<'t>(root: Node<'t>, text: &'t str, at: usize) -> Option<&'t str> {
    let name = root.descendant_for_byte_range(at, at + 1)?;
    let mut holder = name.parent()?;
    if holder.kind() == "mut_pattern" {
        holder = holder.parent()?;
    }
    if holder.kind() != "let_declaration" || holder.child_by_field_name("alternative").is_some() {
        return None;
    }
    let pattern = holder.child_by_field_name("pattern")?;
    if !(pattern.start_byte() <= at && at < pattern.end_byte()) {
        return None;
    }
    chain_root(holder.child_by_field_name("value")?, text)
}

/// The name a field / method / `&` chain starts from.
fn chain_root<'t>(mut expr: Node<'t>, text: &'t str) -> Option<&'t str> {
    // A loop, not recursion: a chain or a nest of parentheses can be thousands deep.
    loop {
        expr = match expr.kind() {
            "identifier" | "self" => return Some(node_text(expr, text)),
            "field_expression" => expr.child_by_field_name("value")?,
            "reference_expression" | "parenthesized_expression" => {
                expr.named_children(&mut expr.walk()).last()?
            }
            "call_expression" => {
                let function = expr.child_by_field_name("function")?;
                let arguments = expr.child_by_field_name("arguments")?;
                let literal_arguments = arguments
                    .named_children(&mut arguments.walk())
                    .all(|a| a.kind().ends_with("_literal") || a.kind() == "line_comment");
                if function.kind() != "field_expression" || !literal_arguments {
                    return None;
                }
                function.child_by_field_name("value")?
            }
            _ => return None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_of(text: &str, name: &str) -> Option<String> {
        let tree = crate::lang::Language::Rust.parse_incremental(text, None);
        let at = text.find(&format!(" {name} = "))? + 1;
        let_value_root(tree.root_node(), text, at).map(str::to_string)
    }

    #[test]
    fn chains_of_fields_methods_and_borrows_with_literal_arguments() {
        let text = "fn f(&self, rhs: &Self, n: usize) {\n    let a = self.as_str().split('.');\n    let mut b = rhs.as_str().split('.');\n    let c = &rhs.parts[..];\n    let d = &rhs.name;\n    let e = rhs.get(n);\n    let g = make(rhs);\n    let h = (&rhs.name).trim();\n}\n";
        assert_eq!(root_of(text, "a").as_deref(), Some("self"));
        assert_eq!(root_of(text, "b").as_deref(), Some("rhs"));
        assert_eq!(root_of(text, "c"), None);
        assert_eq!(root_of(text, "d").as_deref(), Some("rhs"));
        assert_eq!(root_of(text, "e"), None);
        assert_eq!(root_of(text, "g"), None);
        assert_eq!(root_of(text, "h").as_deref(), Some("rhs"));
    }
}
