//! Nodes by byte range without a walk from the root each time: lookups made in order of
//! position (the mentions of a name, its call sites) reuse the path of the previous one, so
//! `f(f(f(..)))` nested thousands deep stays linear where `Node::descendant_for_byte_range` and
//! `Node::parent` (each a walk down from the root) would make it quadratic or worse.

use std::ops::Range;

use tree_sitter::{Node, Tree};

/// The path (root first) of the last lookup, kept for the next one.
pub struct NodeFinder<'t> {
    path: Vec<Node<'t>>,
}

impl<'t> NodeFinder<'t> {
    pub fn new(tree: &'t Tree) -> NodeFinder<'t> {
        NodeFinder {
            path: vec![tree.root_node()],
        }
    }

    /// Goes to the smallest node spanning the non-empty range `start..end` (the one
    /// `descendant_for_byte_range` finds) and returns how many nodes of the previous path were kept (at least the root).
    pub fn seek(&mut self, start: usize, end: usize) -> usize {
        while self.path.len() > 1
            && self
                .path
                .last()
                .is_some_and(|n| !(n.start_byte() <= start && end <= n.end_byte()))
        {
            self.path.pop();
        }
        let kept = self.path.len();
        while let Some(&node) = self.path.last() {
            let mut cursor = node.walk();
            let child = node.children(&mut cursor).find(|c| {
                c.start_byte() <= start && end <= c.end_byte() && c.byte_range() != (start..start)
            });
            match child {
                Some(child) => self.path.push(child),
                None => break,
            }
        }
        kept
    }

    /// The node found by the last [`seek`](Self::seek) and its ancestors: root first, the node
    /// last.
    pub fn path(&self) -> &[Node<'t>] {
        &self.path
    }

    /// The node of `kind` spanning exactly `range`: the smallest node spanning it, or an
    /// ancestor with the same range.
    pub fn exact(&mut self, range: &Range<usize>, kind: &str) -> Option<Node<'t>> {
        self.seek(range.start, range.end);
        self.path
            .iter()
            .rev()
            .take_while(|n| range.start <= n.start_byte() && n.end_byte() <= range.end)
            .find(|n| n.byte_range() == *range && n.kind() == kind)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn finds_what_descendant_for_byte_range_finds_in_any_order() {
        for (lang, text) in [
            (
                Language::Python,
                "def f(a):\n    return g(a, [h(x) for x in a]) + 'g(s)'\n\n\nprint(f(f(1)))\n",
            ),
            (
                Language::Rust,
                "/// f\nfn f(a: i32) -> i32 { g(a, |x| h(x)) }\nfn main() { let s = \"f(1)\"; f(f(1)); m!(f(2)); }\n",
            ),
        ] {
            finds_in_any_order(lang, text);
        }
    }

    fn finds_in_any_order(lang: Language, text: &str) {
        let tree = lang.parse(text);
        let mut finder = NodeFinder::new(&tree);
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (i, _) in text.char_indices() {
            for len in [1, 2, 4, 9] {
                if i + len <= text.len() {
                    ranges.push((i, i + len));
                }
            }
        }
        // In order, then backwards: the path is climbed back as far as needed either way.
        let backwards: Vec<(usize, usize)> = ranges.iter().rev().copied().collect();
        for (start, end) in ranges.into_iter().chain(backwards) {
            let expected = tree.root_node().descendant_for_byte_range(start, end);
            finder.seek(start, end);
            assert_eq!(finder.path().last().copied(), expected, "{start}..{end}");
        }
    }

    #[test]
    fn exact_finds_the_node_of_a_kind_with_that_range() {
        let text = "x = f(f(1))\n";
        let tree = Language::Python.parse(text);
        let mut finder = NodeFinder::new(&tree);
        let inner = text.find("f(1)").unwrap();
        let node = finder.exact(&(inner..inner + 4), "call").unwrap();
        assert_eq!(node.byte_range(), inner..inner + 4);
        assert!(finder.exact(&(inner..inner + 4), "identifier").is_none());
        let outer = text.find("f(f").unwrap();
        assert_eq!(
            finder
                .exact(&(outer..outer + 7), "call")
                .map(|n| n.start_byte()),
            Some(outer)
        );
    }
}
