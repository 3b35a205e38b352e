//! Unsigned numbers in LEB128 and length-prefixed byte strings: the encoding of the files candor
//! keeps for itself (the index's body and postings, the facts on disk). Pure: bytes in, bytes out.

/// Appends `n` in LEB128.
#[inline]
pub fn put(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends `bytes` after their length.
pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Bytes being read back; every method is `None` past the end or on a malformed value.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    #[inline]
    pub fn num(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    pub fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.num()?).ok()
    }

    /// A byte string written by [`put_bytes`].
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.usize()?;
        self.take(len)
    }

    /// A string written by [`put_bytes`]; `None` when it is not UTF-8.
    pub fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    /// A count of items that each take at least one byte (so a bad count cannot reserve much).
    pub fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    /// Whether every byte was read.
    pub fn is_at_end(&self) -> bool {
        self.at == self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_read_back_as_written_and_a_cut_is_none() {
        let mut out = Vec::new();
        for n in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put(&mut out, n);
        }
        put_bytes(&mut out, "héllo".as_bytes());
        let mut r = Reader::new(&out);
        for n in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(r.num(), Some(n));
        }
        assert_eq!(r.str(), Some("héllo"));
        assert!(r.is_at_end());
        assert_eq!(r.num(), None);
        let mut cut = Reader::new(&out[..out.len() - 1]);
        (0..7).for_each(|_| assert!(cut.num().is_some()));
        assert_eq!(cut.str(), None);
    }
}
