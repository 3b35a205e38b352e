//! Change signature as rope's argument changers: the old parameter list (as rope reads the
//! definition) and the new one (as candor will write it) become the sequence rope applies to
//! every call — inline the default of a parameter that loses it, remove, reorder, add with a
//! default. What rope cannot express is refused with the reason. Pure.

use serde::{Deserialize, Serialize};

/// A parameter list as the helper parses it: regular parameters (a method's receiver first)
/// with their defaults as written, `*args`, `**kwargs`, and the parameters rope cannot handle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ParamList {
    pub args: Vec<(String, Option<String>)>,
    #[serde(default)]
    pub vararg: Option<String>,
    #[serde(default)]
    pub kwarg: Option<String>,
    #[serde(default)]
    pub positional_only: Vec<String>,
    #[serde(default)]
    pub keyword_only: Vec<String>,
}

/// One of rope's argument changers, as the helper builds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Changer {
    /// `ArgumentDefaultInliner`: calls that omit the parameter pass its old default.
    InlineDefault { index: usize },
    /// `ArgumentRemover`: the parameter and the arguments passed for it go.
    Remove { index: usize },
    /// `ArgumentReorderer`: `order[new position] = old position`.
    Reorder { order: Vec<usize> },
    /// `ArgumentAdder`: a new parameter with a default; calls stay as they are.
    Add {
        index: usize,
        name: String,
        default: String,
    },
}

impl Changer {
    /// For `data.rope_changers`: "remove `b`", "add `d=0` at position 3".
    pub fn describe(&self, old: &ParamList) -> String {
        let name = |i: usize| {
            old.args
                .get(i)
                .map(|(n, _)| n.as_str())
                .unwrap_or("?")
                .to_string()
        };
        match self {
            Changer::InlineDefault { index } => {
                format!(
                    "inline the default of `{}` into the calls that omit it",
                    name(*index)
                )
            }
            Changer::Remove { index } => format!("remove `{}`", name(*index)),
            Changer::Reorder { .. } => "reorder the parameters".to_string(),
            Changer::Add {
                index,
                name,
                default,
            } => format!("add `{name}={default}` at position {}", index + 1),
        }
    }
}

/// The changers that turn `old` into `new` at every call site, or why rope cannot.
pub fn changers(old: &ParamList, new: &ParamList, function: &str) -> Result<Vec<Changer>, String> {
    for (list, which) in [(old, "has"), (new, "would have")] {
        if let Some(name) = list.positional_only.first() {
            return Err(format!(
                "`{function}` {which} positional-only parameters (`{name}` before `/`), which rope's change signature does not handle"
            ));
        }
        if let Some(name) = list.keyword_only.first() {
            return Err(format!(
                "`{function}` {which} keyword-only parameters (`{name}` after `*`), which rope's change signature does not handle"
            ));
        }
    }
    if old.vararg != new.vararg || old.kwarg != new.kwarg {
        return Err(format!(
            "the new list of `{function}` adds, removes or renames `*args` or `**kwargs`, which rope's change signature cannot express"
        ));
    }
    let position = |list: &ParamList, name: &str| list.args.iter().position(|(n, _)| n == name);
    let mut sequence = Vec::new();

    // Defaults that go: calls that relied on them now pass them.
    for (index, (name, default)) in old.args.iter().enumerate() {
        if let Some(j) = position(new, name)
            && default.is_some()
            && new.args[j].1.is_none()
        {
            sequence.push(Changer::InlineDefault { index });
        }
    }
    // Removed parameters, last first so that the indices hold.
    let removed: Vec<usize> = (0..old.args.len())
        .filter(|&i| position(new, &old.args[i].0).is_none())
        .collect();
    sequence.extend(removed.iter().rev().map(|&index| Changer::Remove { index }));
    // The survivors in their new order.
    let survivors: Vec<&str> = old
        .args
        .iter()
        .filter(|(n, _)| position(new, n).is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    let wanted: Vec<&str> = new
        .args
        .iter()
        .filter(|(n, _)| position(old, n).is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    if survivors != wanted {
        let order = wanted
            .iter()
            .map(|n| survivors.iter().position(|s| s == n).unwrap_or(0))
            .collect();
        sequence.push(Changer::Reorder { order });
    }
    // New parameters at their final places, first to last.
    for (index, (name, default)) in new.args.iter().enumerate() {
        if position(old, name).is_some() {
            continue;
        }
        let Some(default) = default else {
            return Err(format!(
                "`{name}` is a new parameter of `{function}` without a default: rope would leave every existing call without an argument for it; give it a default"
            ));
        };
        if let Some(vararg) = &old.vararg {
            return Err(format!(
                "adding `{name}` to `{function}`, which takes `*{vararg}`, would make the extra positional arguments of existing calls fill it; rope cannot express that change"
            ));
        }
        sequence.push(Changer::Add {
            index,
            name: name.clone(),
            default: default.clone(),
        });
    }
    // A kept parameter whose default changes needs nothing at the calls: they pass what they
    // passed, and those that omit it get the new default, as the definition now says.
    Ok(sequence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(args: &[(&str, Option<&str>)]) -> ParamList {
        ParamList {
            args: args
                .iter()
                .map(|(n, d)| (n.to_string(), d.map(str::to_string)))
                .collect(),
            ..ParamList::default()
        }
    }

    /// Applies the changers to the names the way rope applies them to a definition.
    fn replay(old: &ParamList, sequence: &[Changer]) -> Vec<(String, Option<String>)> {
        let mut args = old.args.clone();
        for changer in sequence {
            match changer {
                Changer::InlineDefault { index } => args[*index].1 = None,
                Changer::Remove { index } => {
                    args.remove(*index);
                }
                Changer::Reorder { order } => {
                    args = order.iter().map(|&i| args[i].clone()).collect();
                }
                Changer::Add {
                    index,
                    name,
                    default,
                } => args.insert(*index, (name.clone(), Some(default.clone()))),
            }
        }
        args
    }

    #[test]
    fn remove_add_with_default_and_reorder() {
        let old = list(&[("self", None), ("a", None), ("b", None), ("c", Some("1"))]);
        // `c` loses its default, `b` goes, `c` moves before `a`, `d=0` is new.
        let new = list(&[("self", None), ("c", None), ("a", None), ("d", Some("0"))]);
        let sequence = changers(&old, &new, "f").unwrap();
        assert_eq!(
            sequence,
            vec![
                Changer::InlineDefault { index: 3 },
                Changer::Remove { index: 2 },
                Changer::Reorder {
                    order: vec![0, 2, 1]
                },
                Changer::Add {
                    index: 3,
                    name: "d".into(),
                    default: "0".into()
                },
            ]
        );
        let names: Vec<String> = replay(&old, &sequence)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["self", "c", "a", "d"]);
        assert_eq!(sequence[1].describe(&old), "remove `b`");
    }

    #[test]
    fn every_permutation_with_removals_and_additions_replays_to_the_new_list() {
        let old = list(&[("a", None), ("b", None), ("c", None), ("d", None)]);
        let names = ["a", "b", "c", "d", "x", "y"];
        // All ordered selections of up to 4 of the names.
        let mut lists: Vec<Vec<&str>> = vec![vec![]];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for l in &lists {
                for n in names {
                    if !l.contains(&n) {
                        let mut m = l.clone();
                        m.push(n);
                        longer.push(m);
                    }
                }
            }
            lists.extend(longer);
            lists.sort();
            lists.dedup();
        }
        for wanted in lists {
            let new = ParamList {
                args: wanted
                    .iter()
                    .map(|n| {
                        (
                            n.to_string(),
                            n.starts_with(['x', 'y']).then(|| "0".to_string()),
                        )
                    })
                    .collect(),
                ..ParamList::default()
            };
            let sequence = changers(&old, &new, "f").unwrap();
            let got: Vec<String> = replay(&old, &sequence)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            assert_eq!(got, wanted, "{sequence:?}");
        }
    }

    #[test]
    fn what_rope_cannot_express_is_refused_with_the_reason() {
        let old = list(&[("a", None)]);
        let no_default = changers(&old, &list(&[("a", None), ("b", None)]), "f").unwrap_err();
        assert!(
            no_default.contains("`b` is a new parameter of `f` without a default"),
            "{no_default}"
        );
        let keyword_only = ParamList {
            keyword_only: vec!["k".into()],
            ..list(&[("a", None)])
        };
        assert!(
            changers(&keyword_only, &keyword_only, "f")
                .unwrap_err()
                .contains("keyword-only")
        );
        let positional_only = ParamList {
            positional_only: vec!["a".into()],
            ..list(&[("a", None)])
        };
        assert!(
            changers(&old, &positional_only, "f")
                .unwrap_err()
                .contains("positional-only")
        );
        let star = ParamList {
            vararg: Some("rest".into()),
            ..list(&[("a", None)])
        };
        assert!(changers(&old, &star, "f").unwrap_err().contains("*args"));
        let with_star_added = ParamList {
            args: vec![("a".into(), None), ("b".into(), Some("1".into()))],
            ..star.clone()
        };
        assert!(
            changers(&star, &with_star_added, "f")
                .unwrap_err()
                .contains("extra positional")
        );
        // Removing next to `*args` is fine.
        let star_two = ParamList {
            args: vec![("a".into(), None), ("b".into(), None)],
            ..star.clone()
        };
        assert_eq!(
            changers(&star_two, &star, "f").unwrap(),
            vec![Changer::Remove { index: 1 }]
        );
    }

    #[test]
    fn the_same_list_needs_nothing_and_a_new_default_needs_nothing_at_the_calls() {
        let old = list(&[("a", None), ("b", Some("1"))]);
        assert!(changers(&old, &old, "f").unwrap().is_empty());
        let new = list(&[("a", Some("0")), ("b", Some("2"))]);
        assert!(changers(&old, &new, "f").unwrap().is_empty());
    }
}
