//! Facts that outlive the process: a fact's value type opts in with [`Lasting`] (a stable type
//! tag and an encoding to bytes, never a tree), and the shell's store may then also keep it on
//! disk (`.candor/index/facts/`) for the next process, keyed by the file's path and content, the
//! question, the tag and [`FORMAT`]. Pure: bytes in, bytes out; a value that does not decode is
//! `None` (the store then computes it again).

use std::marker::PhantomData;
use std::sync::Arc;

use super::sources::{Fact, ParsedFiles};
use crate::lang::refs::{Doubt, Found, Rewrite, Role, TopImport, TopImports, Verdict};
use crate::refactor::{Finding, Severity};
use crate::text::leb128;
pub use crate::text::leb128::Reader;

/// The version of the facts' encodings: part of every key on disk, so a candor that encodes a
/// fact differently never reads another's.
pub const FORMAT: u32 = 1;

/// A fact's value that can be written to disk and read back.
pub trait Lasting: Send + Sync + Sized + 'static {
    /// Names the type on disk (with [`FORMAT`]): two types never share one.
    const TAG: &'static str;
    fn encode(&self, out: &mut Bytes);
    fn decode(from: &mut Reader<'_>) -> Option<Self>;
    /// An estimate of its memory, for the store's bound.
    fn memory(&self) -> usize;
}

/// What the store needs of a [`Lasting`] type without knowing it.
pub trait Codec: Sync {
    fn tag(&self) -> &'static str;
    fn encode(&self, fact: &Fact) -> Option<Vec<u8>>;
    /// The fact and its memory; `None` when the bytes are not this type's.
    fn decode(&self, bytes: &[u8]) -> Option<(Fact, usize)>;
}

struct CodecOf<T>(PhantomData<fn() -> T>);

impl<T: Lasting> Codec for CodecOf<T> {
    fn tag(&self) -> &'static str {
        T::TAG
    }

    fn encode(&self, fact: &Fact) -> Option<Vec<u8>> {
        let value = fact.downcast_ref::<T>()?;
        let mut out = Bytes::default();
        value.encode(&mut out);
        Some(out.0)
    }

    fn decode(&self, bytes: &[u8]) -> Option<(Fact, usize)> {
        let mut reader = Reader::new(bytes);
        let value = T::decode(&mut reader)?;
        // Every byte read: a longer entry is not this value.
        if !reader.is_at_end() {
            return None;
        }
        let memory = value.memory();
        Some((Arc::new(value) as Fact, memory))
    }
}

/// The answer to `question` about the file at `path` with this content: kept by the store (in
/// memory, or on disk from an earlier process), else `make`'s. `question` names everything else
/// the answer depends on, as for [`ParsedFiles::fact`].
pub fn lasting_fact<T: Lasting>(
    store: &dyn ParsedFiles,
    path: &str,
    sha256: &str,
    question: &str,
    make: impl FnOnce() -> T,
) -> Arc<T> {
    lasting_fact_kept_if(store, path, sha256, question, || (make(), true))
}

/// Stands in the store for an answer that was not to be kept: never read as one.
struct Unkept;

/// [`lasting_fact`], where `make` also says whether its answer may be kept (an answer cut short
/// by a cancelled request is used once and not kept).
pub fn lasting_fact_kept_if<T: Lasting>(
    store: &dyn ParsedFiles,
    path: &str,
    sha256: &str,
    question: &str,
    make: impl FnOnce() -> (T, bool),
) -> Arc<T> {
    let mut make = Some(make);
    let mut made: Option<Arc<T>> = None;
    let codec = CodecOf::<T>(PhantomData);
    let fact = store.lasting_fact(path, sha256, question, &codec, &mut || {
        let (value, keep) = (make.take().expect("made once"))();
        let value = Arc::new(value);
        made = Some(value.clone());
        match keep {
            true => {
                let memory = value.memory();
                (value as Fact, memory)
            }
            // Of another type: the codec does not write it, and a later ask makes it again.
            false => (Arc::new(Unkept) as Fact, 0),
        }
    });
    match fact.downcast::<T>() {
        Ok(value) => value,
        Err(_) => made.unwrap_or_else(|| Arc::new((make.take().expect("made once"))().0)),
    }
}

/// `T` decoded from exactly `bytes`.
pub fn decode_all<T: Lasting>(bytes: &[u8]) -> Option<T> {
    let codec = CodecOf::<T>(PhantomData);
    let (fact, _) = codec.decode(bytes)?;
    Arc::try_unwrap(fact.downcast::<T>().ok()?).ok()
}

/// Bytes being written: unsigned numbers and strings, as [`leb128`] writes them.
#[derive(Debug, Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn num(&mut self, n: u64) {
        leb128::put(&mut self.0, n);
    }

    pub fn str(&mut self, s: &str) {
        leb128::put_bytes(&mut self.0, s.as_bytes());
    }
}

const ROLES: [Role; 10] = [
    Role::Definition,
    Role::Override,
    Role::Call,
    Role::Use,
    Role::Import,
    Role::ReExport,
    Role::DunderAll,
    Role::KeywordArgument,
    Role::FieldInit,
    Role::Text,
];

fn role_code(role: Role) -> u64 {
    ROLES.iter().position(|r| *r == role).unwrap_or(0) as u64
}

fn encode_doubt(out: &mut Bytes, doubt: &Doubt) {
    let (code, text) = match doubt {
        Doubt::Receiver(t) => (0, Some(t)),
        Doubt::StarImport(t) => (1, Some(t)),
        Doubt::Macro(t) => (2, Some(t)),
        Doubt::NameString => (3, None),
        Doubt::DocExample => (4, None),
        Doubt::Mixin(t) => (5, Some(t)),
        Doubt::Redefined => (6, None),
        Doubt::ServerOnly => (7, None),
        Doubt::Nesting => (8, None),
    };
    out.num(code);
    if let Some(text) = text {
        out.str(text);
    }
}

fn decode_doubt(from: &mut Reader<'_>) -> Option<Doubt> {
    let text = |from: &mut Reader<'_>| from.str().map(str::to_string);
    Some(match from.num()? {
        0 => Doubt::Receiver(text(from)?),
        1 => Doubt::StarImport(text(from)?),
        2 => Doubt::Macro(text(from)?),
        3 => Doubt::NameString,
        4 => Doubt::DocExample,
        5 => Doubt::Mixin(text(from)?),
        6 => Doubt::Redefined,
        7 => Doubt::ServerOnly,
        8 => Doubt::Nesting,
        _ => return None,
    })
}

fn encode_found(out: &mut Bytes, found: &Found) {
    out.num(found.range.start as u64);
    out.num(found.range.end as u64);
    out.num(found.line as u64);
    out.num(role_code(found.role));
    match &found.verdict {
        Verdict::Certain => out.num(0),
        Verdict::Possible(doubt) => {
            out.num(1);
            encode_doubt(out, doubt);
        }
        Verdict::NotOurs => out.num(2),
    }
    match &found.rewrite {
        Rewrite::Name => out.num(0),
        Rewrite::FieldBeforeShorthand => out.num(1),
        Rewrite::ValueAfterShorthand => out.num(2),
        Rewrite::ModifiedShorthand {
            modifiers,
            field_renamed,
        } => {
            out.num(3);
            out.num(modifiers.start as u64);
            out.num(modifiers.end as u64);
            out.num(u64::from(*field_renamed));
        }
        Rewrite::Keep => out.num(4),
    }
}

fn decode_found(from: &mut Reader<'_>) -> Option<Found> {
    let range = from.usize()?..from.usize()?;
    let line = from.usize()?;
    let role = *ROLES.get(from.usize()?)?;
    let verdict = match from.num()? {
        0 => Verdict::Certain,
        1 => Verdict::Possible(decode_doubt(from)?),
        2 => Verdict::NotOurs,
        _ => return None,
    };
    let rewrite = match from.num()? {
        0 => Rewrite::Name,
        1 => Rewrite::FieldBeforeShorthand,
        2 => Rewrite::ValueAfterShorthand,
        3 => Rewrite::ModifiedShorthand {
            modifiers: from.usize()?..from.usize()?,
            field_renamed: match from.num()? {
                0 => false,
                1 => true,
                _ => return None,
            },
        },
        4 => Rewrite::Keep,
        _ => return None,
    };
    Some(Found {
        range,
        line,
        role,
        verdict,
        rewrite,
    })
}

/// The references engine's verdicts on one file.
impl Lasting for Vec<Found> {
    const TAG: &'static str = "verdicts";

    fn encode(&self, out: &mut Bytes) {
        out.num(self.len() as u64);
        for found in self {
            encode_found(out, found);
        }
    }

    fn decode(from: &mut Reader<'_>) -> Option<Self> {
        let n = from.count()?;
        (0..n).map(|_| decode_found(from)).collect()
    }

    fn memory(&self) -> usize {
        64 + self.len() * std::mem::size_of::<Found>()
    }
}

/// A file's top imports (what the references engine learns re-exports from).
impl Lasting for TopImports {
    const TAG: &'static str = "top-imports";

    fn encode(&self, out: &mut Bytes) {
        out.num(self.0.len() as u64);
        for import in &self.0 {
            out.str(&import.module);
            out.num(u64::from(import.star));
            out.num(import.names.len() as u64);
            for (name, alias) in &import.names {
                out.str(name);
                match alias {
                    Some(alias) => {
                        out.num(1);
                        out.str(alias);
                    }
                    None => out.num(0),
                }
            }
        }
    }

    fn decode(from: &mut Reader<'_>) -> Option<Self> {
        let n = from.count()?;
        let imports = (0..n)
            .map(|_| {
                let module = from.str()?.to_string();
                let star = match from.num()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                let names = (0..from.count()?)
                    .map(|_| {
                        let name = from.str()?.to_string();
                        let alias = match from.num()? {
                            0 => None,
                            1 => Some(from.str()?.to_string()),
                            _ => return None,
                        };
                        Some((name, alias))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(TopImport {
                    module,
                    names,
                    star,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(TopImports(imports))
    }

    fn memory(&self) -> usize {
        64 + self
            .0
            .iter()
            .map(|i| 64 + i.module.len() + i.names.iter().map(|n| 48 + n.0.len()).sum::<usize>())
            .sum::<usize>()
    }
}

/// A finding's kind read back: each distinct kind is kept once for the process (kinds are a
/// few dozen constants).
fn interned(kind: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static KINDS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut kinds = KINDS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(kept) = kinds.get(kind) {
        return kept;
    }
    let kept: &'static str = Box::leak(kind.to_string().into_boxed_str());
    kinds.insert(kept);
    kept
}

/// Findings about one file (the arity cross-check's).
impl Lasting for Vec<Finding> {
    const TAG: &'static str = "findings";

    fn encode(&self, out: &mut Bytes) {
        out.num(self.len() as u64);
        for finding in self {
            out.str(&finding.file);
            out.num(finding.line as u64);
            out.num(match finding.severity {
                Severity::Info => 0,
                Severity::Warning => 1,
                Severity::Error => 2,
            });
            out.str(&finding.message);
            match finding.kind {
                Some(kind) => {
                    out.num(1);
                    out.str(kind);
                }
                None => out.num(0),
            }
        }
    }

    fn decode(from: &mut Reader<'_>) -> Option<Self> {
        let n = from.count()?;
        (0..n)
            .map(|_| {
                let file = from.str()?.to_string();
                let line = from.usize()?;
                let severity = match from.num()? {
                    0 => Severity::Info,
                    1 => Severity::Warning,
                    2 => Severity::Error,
                    _ => return None,
                };
                let message = from.str()?.to_string();
                let kind = match from.num()? {
                    0 => None,
                    1 => Some(interned(from.str()?)),
                    _ => return None,
                };
                let mut finding = Finding::new(file, line, severity, message);
                finding.kind = kind;
                Some(finding)
            })
            .collect()
    }

    fn memory(&self) -> usize {
        64 + self.iter().map(|f| 96 + f.message.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Lasting + PartialEq + std::fmt::Debug>(value: T) {
        let codec = CodecOf::<T>(PhantomData);
        let bytes = codec.encode(&(Arc::new(value) as Fact)).unwrap();
        let (back, _) = codec.decode(&bytes).unwrap();
        let back = back.downcast::<T>().unwrap();
        let again = codec.encode(&(back as Fact)).unwrap();
        assert_eq!(bytes, again);
        // Every shorter prefix and a longer entry are refused, never misread.
        for cut in 0..bytes.len() {
            assert!(
                codec.decode(&bytes[..cut]).is_none(),
                "prefix of {cut} bytes"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(codec.decode(&longer).is_none());
    }

    #[test]
    fn verdicts_and_findings_read_back_as_written_and_a_cut_entry_is_refused() {
        let found = |role, verdict, rewrite| Found {
            range: 300..306,
            line: 1_000_000,
            role,
            verdict,
            rewrite,
        };
        let verdicts = vec![
            found(Role::Call, Verdict::Certain, Rewrite::Name),
            found(
                Role::Use,
                Verdict::Possible(Doubt::Receiver("self.wrapper".into())),
                Rewrite::Keep,
            ),
            found(Role::Text, Verdict::Possible(Doubt::Nesting), Rewrite::Name),
            found(
                Role::FieldInit,
                Verdict::NotOurs,
                Rewrite::ModifiedShorthand {
                    modifiers: 3..9,
                    field_renamed: true,
                },
            ),
            found(
                Role::DunderAll,
                Verdict::Possible(Doubt::Mixin("M".into())),
                Rewrite::ValueAfterShorthand,
            ),
        ];
        let codec = CodecOf::<Vec<Found>>(PhantomData);
        let bytes = codec.encode(&(Arc::new(verdicts.clone()) as Fact)).unwrap();
        let back = codec.decode(&bytes).unwrap().0;
        assert_eq!(back.downcast_ref::<Vec<Found>>(), Some(&verdicts));
        round_trip(verdicts);
        let mut finding = Finding::new("a.py", 7, Severity::Warning, "é `f` takes 2");
        finding.kind = Some("cross.arity");
        round_trip(vec![finding, Finding::new("b.py", 1, Severity::Info, "")]);
        round_trip(Vec::<Found>::new());
        round_trip(TopImports(vec![
            TopImport {
                module: ".pkg".into(),
                names: vec![("f".into(), Some("g".into())), ("h".into(), None)],
                star: false,
            },
            TopImport {
                module: "os".into(),
                names: vec![],
                star: true,
            },
        ]));
    }
}
