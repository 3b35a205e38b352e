#!/usr/bin/env python3
"""Writes src/text/normalize/tables.rs: the Unicode data candor's NFC/NFKC of identifiers needs
(Python compares identifiers after NFKC, rustc after NFC), from this Python's `unicodedata`.

Only characters an identifier may hold are listed (XID_Continue as Python sees it): candor
normalises names it has already checked are identifiers. Hangul syllables are composed and
decomposed by the algorithm, not listed. Run: python3 scripts/unicode_tables.py
"""

import pathlib
import unicodedata as u

OUT = pathlib.Path(__file__).resolve().parent.parent / "src/text/normalize/tables.rs"
HANGUL = range(0xAC00, 0xAC00 + 11172)


def identifier_char(c):
    return ("a" + c).isidentifier()


def esc(s):
    return "".join(f"\\u{{{ord(ch):x}}}" for ch in s)


def rows(items, per_line):
    lines = []
    for i in range(0, len(items), per_line):
        lines.append("    " + " ".join(items[i : i + per_line]))
    return "\n".join(lines)


canonical, compat = [], []
for cp in range(0x110000):
    c = chr(cp)
    if cp in HANGUL or not identifier_char(c):
        continue
    nfd, nfkd = u.normalize("NFD", c), u.normalize("NFKD", c)
    if nfd != c:
        canonical.append(f'({cp:#x}, "{esc(nfd)}"),')
    if nfkd != nfd:
        compat.append(f'({cp:#x}, "{esc(nfkd)}"),')

ccc = []
for cp in range(0x110000):
    k = u.combining(chr(cp))
    if k:
        ccc.append(f"({cp:#x}, {k}),")

pairs = []
for cp in range(0x110000):
    c = chr(cp)
    d = u.decomposition(c)
    if not d or d.startswith("<") or cp in HANGUL:
        continue
    parts = [int(p, 16) for p in d.split()]
    # A primary composite: NFC keeps it (not excluded, not a singleton).
    if len(parts) == 2 and u.normalize("NFC", c) == c:
        pairs.append((parts[0], parts[1], cp))
pairs.sort()
pair_rows = [f"({a:#x}, {b:#x}, {c:#x})," for a, b, c in pairs]

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(
    f"""//! Unicode {u.unidata_version} data for normalising identifiers, written by
//! `scripts/unicode_tables.py` from Python's `unicodedata` (do not edit by hand): the canonical
//! and compatibility decompositions of identifier characters, the canonical combining classes,
//! and the canonical compositions. Sorted by code point for binary search.

/// Full canonical decomposition (NFD) of each identifier character that has one.
pub(super) const CANONICAL: &[(u32, &str)] = &[
{rows(canonical, 8)}
];

/// Full compatibility decomposition (NFKD) where it differs from the canonical one.
pub(super) const COMPATIBILITY: &[(u32, &str)] = &[
{rows(compat, 8)}
];

/// Canonical combining class of every character whose class is not 0.
pub(super) const COMBINING_CLASS: &[(u32, u8)] = &[
{rows(ccc, 16)}
];

/// (first, second, composite) of every canonical composition NFC performs, sorted by the pair.
pub(super) const COMPOSITIONS: &[(u32, u32, u32)] = &[
{rows(pair_rows, 8)}
];
"""
)
print(f"{OUT}: {len(canonical)} canonical, {len(compat)} compatibility, {len(ccc)} classes, {len(pairs)} compositions")
