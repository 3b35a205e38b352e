//! A project in memory whose store keeps facts and counts how often each was made and asked:
//! the unit tests' stand-in for the shell's warm store (`workspace/store.rs`).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::refactor::{Fact, MemorySources, ParsedFiles};

/// (sha256 and question, path) → (the fact, times made, times asked).
type Facts = HashMap<(String, String), (Fact, usize, usize)>;

pub(crate) struct KeptFacts {
    pub files: MemorySources,
    pub facts: Mutex<Facts>,
    /// (path, question) of each fact made, in the order they were made.
    pub made: Mutex<Vec<(String, String)>>,
}

impl KeptFacts {
    pub fn new(files: MemorySources) -> KeptFacts {
        KeptFacts {
            files,
            facts: Mutex::default(),
            made: Mutex::default(),
        }
    }
}

/// Implements [`Sources`] for a test double that holds its project in a `files:
/// MemorySources` field and is its own store (it implements [`ParsedFiles`] itself).
macro_rules! sources_in_memory_with_own_store {
    ($double:ty) => {
        impl $crate::refactor::Sources for $double {
            fn file(
                &self,
                path: &str,
            ) -> Result<Option<$crate::edit::SourceFile>, $crate::refactor::SourceError> {
                $crate::refactor::Sources::file(&self.files, path)
            }

            fn files_mentioning(
                &self,
                lang: $crate::lang::Language,
                word: &str,
            ) -> Result<$crate::refactor::Mentioning, $crate::refactor::SourceError> {
                $crate::refactor::Sources::files_mentioning(&self.files, lang, word)
            }

            fn dir_exists(&self, path: &str) -> bool {
                $crate::refactor::Sources::dir_exists(&self.files, path)
            }

            fn parsed(&self) -> &dyn $crate::refactor::ParsedFiles {
                self
            }
        }
    };
}
pub(crate) use sources_in_memory_with_own_store;

sources_in_memory_with_own_store!(KeptFacts);

impl ParsedFiles for KeptFacts {
    fn fact(
        &self,
        path: &str,
        sha256: &str,
        question: &str,
        make: &mut dyn FnMut() -> (Fact, usize),
    ) -> Fact {
        let key = (format!("{sha256} {question}"), path.to_string());
        // Not locked while making: a verdict's maker asks for locals.
        let kept = self.facts.lock().unwrap().get(&key).map(|e| e.0.clone());
        let fact = kept.unwrap_or_else(|| make().0);
        let mut facts = self.facts.lock().unwrap();
        let entry = facts.entry(key).or_insert_with(|| (fact, 0, 0));
        if entry.2 == 0 {
            entry.1 += 1;
            let made = (path.to_string(), question.to_string());
            self.made.lock().unwrap().push(made);
        }
        entry.2 += 1;
        entry.0.clone()
    }
}
