//! A project in memory whose store keeps facts and counts how often each was made and asked:
//! the unit tests' stand-in for the shell's warm store (`workspace/store.rs`).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::{Fact, MemorySources, Mentioning, ParsedFiles, SourceError, Sources};

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

impl Sources for KeptFacts {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.files.file(path)
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        self.files.files_mentioning(lang, word)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.files.dir_exists(path)
    }

    fn parsed(&self) -> &dyn ParsedFiles {
        self
    }
}

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
