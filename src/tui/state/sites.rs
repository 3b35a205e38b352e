//! The sites list of a preview: the plan as the engine computed it, the user's choice of sites,
//! and the rows the panel shows (a row per file with its counts, then its sites).

use std::collections::BTreeSet;

use crate::refactor::Plan;
use crate::refactor::sites::Site;

/// The user's choice of sites in a preview, over the plan as it was computed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SiteChoice {
    /// The plan as the engine computed it (no choice yet): every choice is made from it.
    pub computed: Plan,
    /// Sites the user left out, by id.
    pub excluded: BTreeSet<String>,
    /// Sites not written by default (possible references) the user chose.
    pub included: BTreeSet<String>,
}

impl SiteChoice {
    pub fn new(computed: Plan) -> SiteChoice {
        SiteChoice {
            computed,
            ..SiteChoice::default()
        }
    }

    /// Whether the user changed anything.
    pub fn is_changed(&self) -> bool {
        !self.excluded.is_empty() || !self.included.is_empty()
    }

    /// Flips the choice of `site` (as the plan on screen has it now).
    pub fn toggle(&mut self, site: &Site) {
        let default = self
            .computed
            .sites
            .iter()
            .find(|s| s.id == site.id)
            .is_some_and(|s| s.chosen);
        let now = !site.chosen;
        self.set(&site.id, default, now);
    }

    /// Writes (`chosen`) or leaves out every one of `sites`.
    pub fn set_all<'a>(&mut self, sites: impl Iterator<Item = &'a Site>, chosen: bool) {
        let sites: Vec<&Site> = sites.collect();
        for site in sites {
            let default = self
                .computed
                .sites
                .iter()
                .find(|s| s.id == site.id)
                .is_some_and(|s| s.chosen);
            self.set(&site.id, default, chosen);
        }
    }

    fn set(&mut self, id: &str, default: bool, chosen: bool) {
        self.excluded.remove(id);
        self.included.remove(id);
        match (default, chosen) {
            (true, false) => {
                self.excluded.insert(id.to_string());
            }
            (false, true) => {
                self.included.insert(id.to_string());
            }
            _ => {}
        }
    }
}

/// One row of the sites list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteRow {
    /// A file: its path, how many of its sites are written, of how many.
    File {
        path: String,
        chosen: usize,
        total: usize,
    },
    /// A site, by index into the plan's sites.
    Site(usize),
}

/// The rows of the sites list of `sites` (sorted by file, as plans keep them).
pub fn rows(sites: &[Site]) -> Vec<SiteRow> {
    let mut rows = Vec::with_capacity(sites.len() + 8);
    let mut i = 0;
    while i < sites.len() {
        let path = &sites[i].file;
        let end = sites[i..]
            .iter()
            .position(|s| &s.file != path)
            .map_or(sites.len(), |n| i + n);
        rows.push(SiteRow::File {
            path: path.clone(),
            chosen: sites[i..end].iter().filter(|s| s.chosen).count(),
            total: end - i,
        });
        rows.extend((i..end).map(SiteRow::Site));
        i = end;
    }
    rows
}
