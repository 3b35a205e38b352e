//! What the inlining of one call asks about its surroundings that is the same for every call
//! in the same caller or the same file, worked out once: thousands of calls in one function
//! then cost one walk of that function, not one walk per call.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;

/// The names of one caller scope (a function body, or a module's top level).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScopeNames {
    /// Names the scope binds (its parameters included).
    pub bound: BTreeSet<String>,
    /// Names the scope reads (its parameters included).
    pub read: BTreeSet<String>,
    /// Where each name occurs outside nested scopes: `(byte, line)` in order of position.
    pub occurrences: BTreeMap<String, Vec<(usize, usize)>>,
    /// The line of the caller's parameter list, for its parameter names.
    pub parameters: BTreeMap<String, usize>,
}

impl ScopeNames {
    /// The line of the first occurrence of `name` outside `skip` (a parameter first).
    pub fn first_outside(&self, name: &str, skip: &Range<usize>) -> Option<usize> {
        if let Some(line) = self.parameters.get(name) {
            return Some(*line);
        }
        self.occurrences
            .get(name)?
            .iter()
            .find(|(at, _)| !skip.contains(at))
            .map(|(_, line)| *line)
    }
}

/// The per-scope and per-file answers of one file, filled as the calls ask.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memo {
    scopes: RefCell<HashMap<usize, Rc<ScopeNames>>>,
    file_warnings: OnceCell<Vec<String>>,
    fresh_names: RefCell<HashMap<String, String>>,
}

impl Memo {
    /// The names of the scope whose node id is `id`, computed by `compute` the first time.
    pub fn scope(&self, id: usize, compute: impl FnOnce() -> ScopeNames) -> Rc<ScopeNames> {
        if let Some(known) = self.scopes.borrow().get(&id) {
            return Rc::clone(known);
        }
        let names = Rc::new(compute());
        self.scopes.borrow_mut().insert(id, Rc::clone(&names));
        names
    }

    /// The warnings every inlined call of this file carries (names and traits it lacks).
    pub fn file_warnings(&self, compute: impl FnOnce() -> Vec<String>) -> &[String] {
        self.file_warnings.get_or_init(compute)
    }

    /// A name based on `base` that the file does not use, computed by `compute` the first time.
    pub fn fresh_name(&self, base: &str, compute: impl FnOnce() -> String) -> String {
        if let Some(known) = self.fresh_names.borrow().get(base) {
            return known.clone();
        }
        let fresh = compute();
        self.fresh_names
            .borrow_mut()
            .insert(base.to_string(), fresh.clone());
        fresh
    }
}
