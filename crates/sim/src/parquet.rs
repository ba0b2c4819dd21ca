//! A small Apache Parquet writer for flat tables (the per-packet trace,
//! `crate::trace`), so that a run writes its Parquet file itself instead of
//! text that another program converts.
//!
//! What it writes, after the format's specification (apache/parquet-format:
//! `README.md`, `Encodings.md`, `parquet.thrift`):
//!
//! - the file: `PAR1`, row groups, the footer (`FileMetaData`, Thrift
//!   compact protocol), its length (4 bytes, little-endian), `PAR1`;
//! - per row group and column one column chunk, uncompressed: for a string
//!   column a dictionary page (PLAIN: 4-byte length + bytes per entry) and
//!   one data page (v1) of RLE_DICTIONARY indices (a bit-width byte, then
//!   the RLE/bit-packed hybrid, bit-packed runs of 8 values); for a number
//!   column one data page of PLAIN little-endian values;
//! - optional columns: definition levels (bit width 1) in the RLE/bit-packed
//!   hybrid, RLE runs only, preceded by their 4-byte length (data page v1),
//!   values only for the rows that have one;
//! - the schema: a root group and one leaf per column, REQUIRED or
//!   OPTIONAL; `UINT_64` (logical type INTEGER(64, unsigned)) on unsigned
//!   64-bit columns, `UTF8` (logical type STRING) on strings.
//!
//! No compression, no statistics, no page index: every reader (DuckDB,
//! Arrow, Spark) reads such files; a query filtering on a column scans it.
//! Invariants (tested in `python/tests/test_trace_cli.py` by DuckDB and
//! pyarrow, two independent readers): every row written is read back with
//! its values and nulls, and the columns have the types declared here.
use std::io::{self, Write};

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// DOUBLE, required.
    F64,
    /// INT64 holding unsigned values (UINT_64), required.
    U64,
    /// INT32, optional.
    I32Opt,
    /// INT64, optional.
    I64Opt,
    /// UTF-8 string from a dictionary, required.
    Str,
    /// UTF-8 string from a dictionary, optional.
    StrOpt,
}

/// One column's values for a row group.
pub enum Values<'a> {
    F64(&'a [f64]),
    U64(&'a [u64]),
    /// `None` is null.
    I32(&'a [Option<i32>]),
    /// `None` is null.
    I64(&'a [Option<i64>]),
    /// Indices into `dict`; `u32::MAX` is null (optional columns only).
    Dict {
        idx: &'a [u32],
        dict: &'a [String],
    },
}

/// The null index of a dictionary column.
pub const NULL: u32 = u32::MAX;

struct ChunkMeta {
    kind: Kind,
    num_values: i64,
    size: i64,
    data_page_offset: i64,
    dictionary_page_offset: Option<i64>,
}

struct GroupMeta {
    rows: i64,
    chunks: Vec<ChunkMeta>,
}

/// A Parquet file being written: `new`, `write_group` per row group,
/// `finish`.
pub struct ParquetWriter<W: Write> {
    out: W,
    pos: u64,
    fields: Vec<(String, Kind)>,
    groups: Vec<GroupMeta>,
    page: Vec<u8>,
}

impl<W: Write> ParquetWriter<W> {
    /// Start a file with these columns.
    pub fn new(mut out: W, fields: &[(&str, Kind)]) -> io::Result<Self> {
        out.write_all(b"PAR1")?;
        Ok(ParquetWriter {
            out,
            pos: 4,
            fields: fields.iter().map(|(n, k)| (n.to_string(), *k)).collect(),
            groups: Vec::new(),
            page: Vec::new(),
        })
    }

    /// Write one row group: one `Values` per column, all of `rows` rows.
    pub fn write_group(&mut self, rows: usize, cols: &[Values<'_>]) -> io::Result<()> {
        assert_eq!(cols.len(), self.fields.len(), "one column of values per field");
        let mut chunks = Vec::with_capacity(cols.len());
        for (i, v) in cols.iter().enumerate() {
            let kind = self.fields[i].1;
            let start = self.pos as i64;
            let mut dictionary_page_offset = None;
            self.page.clear();
            match (kind, v) {
                (Kind::F64, Values::F64(x)) => {
                    assert_eq!(x.len(), rows);
                    for f in x.iter() {
                        self.page.extend_from_slice(&f.to_le_bytes());
                    }
                }
                (Kind::U64, Values::U64(x)) => {
                    assert_eq!(x.len(), rows);
                    for f in x.iter() {
                        self.page.extend_from_slice(&f.to_le_bytes());
                    }
                }
                (Kind::I32Opt, Values::I32(x)) => {
                    assert_eq!(x.len(), rows);
                    def_levels(&mut self.page, x.iter().map(|v| v.is_some()));
                    for v in x.iter().flatten() {
                        self.page.extend_from_slice(&v.to_le_bytes());
                    }
                }
                (Kind::I64Opt, Values::I64(x)) => {
                    assert_eq!(x.len(), rows);
                    def_levels(&mut self.page, x.iter().map(|v| v.is_some()));
                    for v in x.iter().flatten() {
                        self.page.extend_from_slice(&v.to_le_bytes());
                    }
                }
                (Kind::Str | Kind::StrOpt, Values::Dict { idx, dict }) => {
                    assert_eq!(idx.len(), rows);
                    let mut d = Vec::new();
                    for s in dict.iter() {
                        d.extend_from_slice(&(s.len() as u32).to_le_bytes());
                        d.extend_from_slice(s.as_bytes());
                    }
                    let mut h = Thrift::default();
                    h.i32(1, 2); // DICTIONARY_PAGE
                    h.i32(2, d.len() as i32);
                    h.i32(3, d.len() as i32);
                    h.begin(7); // dictionary_page_header
                    h.i32(1, dict.len() as i32);
                    h.i32(2, 0); // PLAIN
                    h.end();
                    h.stop();
                    dictionary_page_offset = Some(start);
                    self.emit(&h.buf)?;
                    self.emit(&d)?;
                    if kind == Kind::StrOpt {
                        def_levels(&mut self.page, idx.iter().map(|&i| i != NULL));
                    }
                    let width = bit_width(dict.len().saturating_sub(1) as u32);
                    self.page.push(width);
                    bit_packed(&mut self.page, idx.iter().copied().filter(|&i| i != NULL), width);
                }
                _ => return Err(io::Error::new(io::ErrorKind::InvalidInput, "column values of the wrong kind")),
            }
            let data_page_offset = self.pos as i64;
            let encoding = if matches!(kind, Kind::Str | Kind::StrOpt) { 8 } else { 0 }; // RLE_DICTIONARY / PLAIN
            let mut h = Thrift::default();
            h.i32(1, 0); // DATA_PAGE
            h.i32(2, self.page.len() as i32);
            h.i32(3, self.page.len() as i32);
            h.begin(5); // data_page_header
            h.i32(1, rows as i32);
            h.i32(2, encoding);
            h.i32(3, 3); // definition levels: RLE
            h.i32(4, 3); // repetition levels: RLE (none: no repeated fields)
            h.end();
            h.stop();
            let page = std::mem::take(&mut self.page);
            let r = self.emit(&h.buf).and_then(|_| self.emit(&page));
            self.page = page;
            r?;
            chunks.push(ChunkMeta {
                kind,
                num_values: rows as i64,
                size: self.pos as i64 - start,
                data_page_offset,
                dictionary_page_offset,
            });
        }
        self.groups.push(GroupMeta { rows: rows as i64, chunks });
        Ok(())
    }

    fn emit(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Write the footer; the output, flushed.
    pub fn finish(mut self, created_by: &str) -> io::Result<W> {
        let mut t = Thrift::default();
        t.i32(1, 1); // version
        t.list(2, 12, self.fields.len() + 1); // schema
        t.elem_begin();
        t.binary(4, b"schema");
        t.i32(5, self.fields.len() as i32);
        t.elem_end();
        for (name, kind) in &self.fields {
            t.elem_begin();
            t.i32(1, physical(*kind));
            t.i32(3, if matches!(kind, Kind::I32Opt | Kind::I64Opt | Kind::StrOpt) { 1 } else { 0 });
            t.binary(4, name.as_bytes());
            match kind {
                Kind::U64 => {
                    t.i32(6, 14); // UINT_64
                    t.begin(10); // logicalType
                    t.begin(10); // INTEGER
                    t.byte(1, 64);
                    t.boolean(2, false);
                    t.end();
                    t.end();
                }
                Kind::Str | Kind::StrOpt => {
                    t.i32(6, 0); // UTF8
                    t.begin(10);
                    t.begin(1); // STRING
                    t.end();
                    t.end();
                }
                _ => {}
            }
            t.elem_end();
        }
        let rows: i64 = self.groups.iter().map(|g| g.rows).sum();
        t.i64(3, rows);
        t.list(4, 12, self.groups.len());
        for g in &self.groups {
            t.elem_begin();
            t.list(1, 12, g.chunks.len());
            for (c, (name, _)) in g.chunks.iter().zip(&self.fields) {
                t.elem_begin();
                t.i64(2, c.dictionary_page_offset.unwrap_or(c.data_page_offset)); // file_offset
                t.begin(3); // meta_data
                t.i32(1, physical(c.kind));
                let dict = c.dictionary_page_offset.is_some();
                let encs: &[i32] = if dict { &[0, 3, 8] } else { &[0, 3] };
                t.list(2, 5, encs.len());
                for e in encs {
                    t.varint(zigzag(*e as i64));
                }
                t.list(3, 8, 1);
                t.varint(name.len() as u64);
                t.buf.extend_from_slice(name.as_bytes());
                t.i32(4, 0); // UNCOMPRESSED
                t.i64(5, c.num_values);
                t.i64(6, c.size);
                t.i64(7, c.size);
                t.i64(9, c.data_page_offset);
                if let Some(d) = c.dictionary_page_offset {
                    t.i64(11, d);
                }
                t.end();
                t.elem_end();
            }
            t.i64(2, g.chunks.iter().map(|c| c.size).sum());
            t.i64(3, g.rows);
            t.elem_end();
        }
        t.binary(6, created_by.as_bytes());
        t.stop();
        let meta = t.buf;
        self.emit(&meta)?;
        self.emit(&(meta.len() as u32).to_le_bytes())?;
        self.emit(b"PAR1")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn physical(k: Kind) -> i32 {
    match k {
        Kind::F64 => 5,                // DOUBLE
        Kind::U64 => 2,                // INT64
        Kind::I32Opt => 1,             // INT32
        Kind::I64Opt => 2,             // INT64
        Kind::Str | Kind::StrOpt => 6, // BYTE_ARRAY
    }
}

/// Bits needed for `max` (at least 1).
fn bit_width(max: u32) -> u8 {
    (32 - max.leading_zeros()).max(1) as u8
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Definition levels (0 null, 1 present) as RLE runs, with the 4-byte
/// length prefix of a v1 data page.
fn def_levels(out: &mut Vec<u8>, present: impl Iterator<Item = bool>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut run: Option<(bool, u64)> = None;
    let flush = |out: &mut Vec<u8>, (v, n): (bool, u64)| {
        varint(out, n << 1);
        out.push(v as u8);
    };
    for p in present {
        run = match run {
            Some((v, n)) if v == p => Some((v, n + 1)),
            Some(r) => {
                flush(out, r);
                Some((p, 1))
            }
            None => Some((p, 1)),
        };
    }
    if let Some(r) = run {
        flush(out, r);
    }
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Values of `width` bits as one bit-packed run of the RLE/bit-packed
/// hybrid: groups of 8 values, least significant bit first, the last group
/// padded with zeros.
fn bit_packed(out: &mut Vec<u8>, values: impl Iterator<Item = u32>, width: u8) {
    let vals: Vec<u32> = values.collect();
    let groups = vals.len().div_ceil(8);
    if groups == 0 {
        return;
    }
    varint(out, ((groups as u64) << 1) | 1);
    let (mut acc, mut bits) = (0u64, 0u32);
    for k in 0..groups * 8 {
        acc |= (*vals.get(k).unwrap_or(&0) as u64) << bits;
        bits += width as u32;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
}

/// Thrift compact protocol, the parts the footer and page headers use.
#[derive(Default)]
struct Thrift {
    buf: Vec<u8>,
    last: Vec<i16>,
    cur: i16,
}

impl Thrift {
    fn field(&mut self, id: i16, ty: u8) {
        let d = id - self.cur;
        if d > 0 && d <= 15 {
            self.buf.push(((d as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            varint(&mut self.buf, zigzag(id as i64));
        }
        self.cur = id;
    }
    fn varint(&mut self, v: u64) {
        varint(&mut self.buf, v);
    }
    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, 5);
        self.varint(zigzag(v as i64));
    }
    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, 6);
        self.varint(zigzag(v));
    }
    fn byte(&mut self, id: i16, v: u8) {
        self.field(id, 3);
        self.buf.push(v);
    }
    fn boolean(&mut self, id: i16, v: bool) {
        self.field(id, if v { 1 } else { 2 });
    }
    fn binary(&mut self, id: i16, b: &[u8]) {
        self.field(id, 8);
        self.varint(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    /// A struct field: its fields follow, then `end`.
    fn begin(&mut self, id: i16) {
        self.field(id, 12);
        self.last.push(self.cur);
        self.cur = 0;
    }
    fn end(&mut self) {
        self.buf.push(0);
        self.cur = self.last.pop().expect("a struct to end");
    }
    /// A list field of `n` elements of compact type `elem`.
    fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, 9);
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            self.varint(n as u64);
        }
    }
    /// A struct element of a list: its fields follow, then `elem_end`.
    fn elem_begin(&mut self) {
        self.last.push(self.cur);
        self.cur = 0;
    }
    fn elem_end(&mut self) {
        self.end();
    }
    /// The end of the outermost struct.
    fn stop(&mut self) {
        self.buf.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_protocol_field_headers() {
        let mut t = Thrift::default();
        t.i32(1, -1); // short form: delta 1, type i32, zigzag(-1) = 1
        t.i64(20, 300); // long form: type, zigzag(20) = 40, zigzag(300) = 600
        t.stop();
        assert_eq!(t.buf, vec![0x15, 0x01, 0x06, 40, 0xd8, 0x04, 0x00]);
    }

    #[test]
    fn hybrid_encodings() {
        let mut v = Vec::new();
        let vals = [1u32, 2, 3, 4, 5, 6, 7, 0, 1];
        bit_packed(&mut v, vals.into_iter(), 3);
        // two groups (header (2 << 1) | 1), 3 bytes each; the spec's
        // example (Encodings.md): 0..7 at width 3 packs as 88 C6 FA
        assert_eq!(v[0], 5);
        assert_eq!(v.len(), 1 + 6);
        let bit = |k: usize| (v[1 + k / 8] >> (k % 8)) & 1;
        for (i, x) in vals.iter().enumerate() {
            let got: u32 = (0..3).map(|b| (bit(i * 3 + b) as u32) << b).sum();
            assert_eq!(got, *x);
        }
        let mut e = Vec::new();
        bit_packed(&mut e, 0..8, 3);
        assert_eq!(e, vec![3, 0x88, 0xc6, 0xfa]);
        let mut d = Vec::new();
        def_levels(&mut d, [true, true, true, false].into_iter());
        assert_eq!(d, vec![4, 0, 0, 0, 6, 1, 2, 0]);
        assert_eq!(bit_width(0), 1);
        assert_eq!(bit_width(16), 5);
    }

    #[test]
    fn file_layout() {
        let mut w = ParquetWriter::new(Vec::new(), &[("x", Kind::F64), ("s", Kind::StrOpt)]).unwrap();
        let dict = vec!["a".to_string()];
        w.write_group(2, &[Values::F64(&[1.0, 2.0]), Values::Dict { idx: &[0, NULL], dict: &dict }]).unwrap();
        let b = w.finish("test").unwrap();
        assert_eq!(&b[..4], b"PAR1");
        assert_eq!(&b[b.len() - 4..], b"PAR1");
        let n = u32::from_le_bytes(b[b.len() - 8..b.len() - 4].try_into().unwrap()) as usize;
        assert!(n > 20 && n < b.len());
        assert!(w_err().is_err());
    }

    fn w_err() -> io::Result<()> {
        let mut w = ParquetWriter::new(Vec::new(), &[("x", Kind::F64)])?;
        w.write_group(1, &[Values::U64(&[1])])
    }
}
