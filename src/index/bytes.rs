//! The byte encoding of persisted indexes: little-endian numbers and length-prefixed arrays,
//! written into a buffer and read back with every length checked against what is left, so a
//! truncated or foreign file is an error (with the field it broke at), never a panic or a huge
//! allocation.

/// Appends values to a byte buffer.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        self.bytes.reserve(v.len() * 4);
        for x in v {
            self.bytes.extend_from_slice(&x.to_le_bytes());
        }
    }

    pub(crate) fn f32s(&mut self, v: &[f32]) {
        self.u64(v.len() as u64);
        self.bytes.reserve(v.len() * 4);
        for x in v {
            self.bytes.extend_from_slice(&x.to_le_bytes());
        }
    }

    pub(crate) fn i8s(&mut self, v: &[i8]) {
        self.u64(v.len() as u64);
        self.bytes.extend(v.iter().map(|&x| x as u8));
    }
}

/// Reads values back; each error names the field and what was wrong.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

pub(crate) type Read<T> = std::result::Result<T, String>;

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub(crate) fn is_at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn take(&mut self, n: usize, what: &str) -> Read<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "{what}: expected {n} more bytes at offset {}, found {}",
                self.at,
                self.bytes.len() - self.at
            ));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Read<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u32(&mut self, what: &str) -> Read<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Read<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length prefix of items of `size` bytes, checked against the bytes left.
    fn len(&mut self, size: usize, what: &str) -> Read<usize> {
        let n = self.u64(what)?;
        let left = (self.bytes.len() - self.at) / size.max(1);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| format!("{what}: expected at most {left} items, found a length of {n}"))
    }

    pub(crate) fn str(&mut self, what: &str) -> Read<String> {
        let n = self.len(1, what)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("{what}: expected UTF-8 text"))
    }

    pub(crate) fn u32s(&mut self, what: &str) -> Read<Vec<u32>> {
        let n = self.len(4, what)?;
        let b = self.take(n * 4, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub(crate) fn f32s(&mut self, what: &str) -> Read<Vec<f32>> {
        let n = self.len(4, what)?;
        let b = self.take(n * 4, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub(crate) fn i8s(&mut self, what: &str) -> Read<Vec<i8>> {
        let n = self.len(1, what)?;
        Ok(self.take(n, what)?.iter().map(|&x| x as i8).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_and_truncation_is_an_error() {
        let mut w = Writer::default();
        w.u8(7);
        w.u32(1 << 30);
        w.str("ünï");
        w.u32s(&[1, 2, 3]);
        w.f32s(&[0.5, -1.25]);
        w.i8s(&[-128, 127]);
        let mut r = Reader::new(&w.bytes);
        assert_eq!(r.u8("a").unwrap(), 7);
        assert_eq!(r.u32("b").unwrap(), 1 << 30);
        assert_eq!(r.str("c").unwrap(), "ünï");
        assert_eq!(r.u32s("d").unwrap(), vec![1, 2, 3]);
        assert_eq!(r.f32s("e").unwrap(), vec![0.5, -1.25]);
        assert_eq!(r.i8s("f").unwrap(), vec![-128, 127]);
        assert!(r.is_at_end());
        for cut in 0..w.bytes.len() {
            let mut r = Reader::new(&w.bytes[..cut]);
            let all = (|| -> Read<()> {
                r.u8("a")?;
                r.u32("b")?;
                r.str("c")?;
                r.u32s("d")?;
                r.f32s("e")?;
                r.i8s("f")?;
                Ok(())
            })();
            assert!(all.is_err(), "cut at {cut} read whole");
        }
    }

    #[test]
    fn a_huge_length_is_refused_before_allocating() {
        let mut w = Writer::default();
        w.u64(u64::MAX);
        let err = Reader::new(&w.bytes).u32s("links").unwrap_err();
        assert!(err.starts_with("links: expected at most 0 items"), "{err}");
    }
}
