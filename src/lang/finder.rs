//! Nodes by byte range without a walk from the root each time: lookups made in order of
//! position (the mentions of a name, its call sites) reuse the path of the previous one, so
//! `f(f(f(..)))` nested thousands deep stays linear where `Node::descendant_for_byte_range` and
//! `Node::parent` (each a walk down from the root) would make it quadratic or worse.

use std::ops::Range;

use tree_sitter::{Node, Tree, TreeCursor};

/// The path (root first) of the last lookup, kept for the next one, with a cursor standing on
/// its last node (the cursor steps to a following sibling in constant time, where a scan of the
/// children from the first would make a lookup cost the position in a long block).
pub struct NodeFinder<'t> {
    path: Vec<Node<'t>>,
    cursor: TreeCursor<'t>,
}

/// Whether `node` is the kind of node a lookup of the non-empty `start..end` descends into.
fn spans(node: Node<'_>, start: usize, end: usize) -> bool {
    node.start_byte() <= start && end <= node.end_byte() && node.byte_range() != (start..start)
}

impl<'t> NodeFinder<'t> {
    pub fn new(tree: &'t Tree) -> NodeFinder<'t> {
        NodeFinder {
            path: vec![tree.root_node()],
            cursor: tree.walk(),
        }
    }

    /// Goes to the smallest node spanning the non-empty range `start..end` (the one
    /// `descendant_for_byte_range` finds) and returns how many nodes of the previous path were
    /// kept (at least the root). Lookups in order of position cost, together, one walk of the
    /// tree: the path is climbed only as far as needed, and from a node that ends before the
    /// range the search goes on with its following siblings.
    pub fn seek(&mut self, start: usize, end: usize) -> usize {
        let mut kept = self.path.len();
        while self.path.len() > 1 {
            let Some(&node) = self.path.last() else {
                break;
            };
            if node.start_byte() <= start && end <= node.end_byte() {
                break;
            }
            kept = kept.min(self.path.len() - 1);
            if node.end_byte() <= start && self.forward_to_spanning_sibling(start, end) {
                break;
            }
            self.cursor.goto_parent();
            self.path.pop();
            kept = kept.min(self.path.len());
        }
        self.descend(start, end);
        kept
    }

    /// From the cursor's node, which ends before `start`, on along its following siblings to
    /// one that spans the range (it replaces the path's last node); `false`, the cursor left on
    /// some sibling, when none does.
    fn forward_to_spanning_sibling(&mut self, start: usize, end: usize) -> bool {
        while self.cursor.goto_next_sibling() {
            let sibling = self.cursor.node();
            if spans(sibling, start, end) {
                if let Some(last) = self.path.last_mut() {
                    *last = sibling;
                }
                return true;
            }
            if sibling.end_byte() > start {
                return false;
            }
        }
        false
    }

    /// From the path's last node, which spans the range, down to the smallest node spanning it.
    fn descend(&mut self, start: usize, end: usize) {
        'down: while self.cursor.goto_first_child() {
            loop {
                let child = self.cursor.node();
                if spans(child, start, end) {
                    self.path.push(child);
                    continue 'down;
                }
                // Children come in order: none after this one starts early enough.
                if child.start_byte() > start || !self.cursor.goto_next_sibling() {
                    break;
                }
            }
            self.cursor.goto_parent();
            break;
        }
    }

    /// The parents of the nodes on the last lookup's path, in constant time per step from its
    /// end (`Node::parent` walks down from the root, through every earlier sibling on the way).
    pub fn parents(&self) -> Parents<'_, 't> {
        Parents { path: &self.path }
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

/// The parent of a node, read off a lookup's path when the node is on it (else `Node::parent`).
#[derive(Clone, Copy)]
pub struct Parents<'p, 't> {
    path: &'p [Node<'t>],
}

impl<'t> Parents<'_, 't> {
    /// Parents of no path: `Node::parent` for every node.
    pub fn none() -> Parents<'static, 't> {
        Parents { path: &[] }
    }

    pub fn of(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.path.iter().rposition(|n| n.id() == node.id()) {
            Some(0) => None,
            Some(i) => self.path.get(i - 1).copied(),
            None => node.parent(),
        }
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
    fn parents_on_the_path_are_the_trees_own() {
        let text = "def f():\n    x = 1\n    y = g(h(x))\n";
        let tree = Language::Python.parse(text);
        let mut finder = NodeFinder::new(&tree);
        let at = text.find("h(x)").unwrap();
        let call = finder.exact(&(at..at + 4), "call").unwrap();
        let parents = finder.parents();
        let mut node = call;
        while let Some(parent) = parents.of(node) {
            assert_eq!(Some(parent), node.parent());
            node = parent;
        }
        assert_eq!(node, tree.root_node());
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
