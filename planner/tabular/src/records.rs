//! Columns from records ([`columns`]): each field of a serializable
//! struct becomes a column, typed by its values, without going through
//! JSON text. A field's values are collected as [`Cell`]s by a serde
//! serializer; the column's type is the type of its first non-null value.
//!
//! - integers are [`Col::Int`], floats [`Col::Float`] (a float that is
//!   not finite is null, as in JSON), booleans [`Col::Bool`];
//! - text and unit enum variants are [`Col::Str`];
//! - a list of names (`partition_columns`) is `;`-joined text, as
//!   `--table-stats` reads it; any other nested value is its JSON text.
//!
//! ```
//! use serde::Serialize;
//! use tabular::{records::columns, Col};
//!
//! #[derive(Serialize)]
//! struct Row { table: &'static str, files: u64, keys: Vec<&'static str>, ratio: Option<f64> }
//! let rows = [Row { table: "orders", files: 3, keys: vec!["a", "b"], ratio: None }];
//! let cols = columns(&rows, &["table", "files", "keys", "ratio"]).unwrap();
//! assert!(matches!(&cols[1], Col::Int("files", v) if v == &[Some(3)]));
//! assert!(matches!(&cols[2], Col::Str("keys", v) if v == &[Some("a;b".to_string())]));
//! assert!(matches!(&cols[3], Col::Str("ratio", v) if v == &[None]));
//! ```

use crate::{Col, Error, Result};
use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};

/// One value of a record's field.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// No value (`None`, or a float that is not finite).
    Null,
    /// A whole number that fits an `i64`.
    Int(i64),
    /// A whole number above `i64::MAX`.
    Big(u64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// Text (strings, unit enum variants, `;`-joined lists of names,
    /// the JSON text of other nested values).
    Text(String),
}

impl Cell {
    fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(i) => Some(*i),
            Cell::Big(u) => Some(*u as f64 as i64),
            Cell::Float(f) => Some(*f as i64),
            _ => None,
        }
    }

    fn float(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Big(u) => Some(*u as f64),
            Cell::Float(f) => Some(*f),
            _ => None,
        }
    }

    fn text(self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Int(i) => Some(i.to_string()),
            Cell::Big(u) => Some(u.to_string()),
            Cell::Float(f) => Some(serde_json::Value::from(f).to_string()),
            Cell::Bool(b) => Some(b.to_string()),
            Cell::Text(s) => Some(s),
        }
    }
}

/// The columns `names` of `rows`, in that order: each must be the record's
/// field of that place (an internal error otherwise, so a list of columns
/// cannot drift from the record it documents).
pub fn columns<T: Serialize>(rows: &[T], names: &[&'static str]) -> Result<Vec<Col>> {
    let mut cells: Vec<Vec<Cell>> = names
        .iter()
        .map(|_| Vec::with_capacity(rows.len()))
        .collect();
    for r in rows {
        let fields = r.serialize(RecordSerializer::default())?;
        for (i, &name) in names.iter().enumerate() {
            match fields.get(i) {
                Some((field, cell)) if *field == name => cells[i].push(cell.clone()),
                other => {
                    return Err(Error::Internal(format!(
                        "column {name} is {:?} in the records",
                        other.map(|(f, _)| *f)
                    )))
                }
            }
        }
    }
    Ok(names
        .iter()
        .zip(cells)
        .map(
            |(&name, vals)| match vals.iter().find(|c| **c != Cell::Null) {
                Some(Cell::Float(_)) => Col::Float(name, vals.iter().map(Cell::float).collect()),
                Some(Cell::Int(_) | Cell::Big(_)) => {
                    Col::Int(name, vals.iter().map(Cell::int).collect())
                }
                Some(Cell::Bool(_)) => Col::Bool(
                    name,
                    vals.iter()
                        .map(|c| match c {
                            Cell::Bool(b) => Some(*b),
                            _ => None,
                        })
                        .collect(),
                ),
                _ => Col::Str(name, vals.into_iter().map(Cell::text).collect()),
            },
        )
        .collect())
}

/// Not a record, or a field that cannot be a cell.
#[derive(Debug)]
pub struct NotARecord(String);

impl std::fmt::Display for NotARecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotARecord {}

impl ser::Error for NotARecord {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        NotARecord(msg.to_string())
    }
}

impl From<NotARecord> for Error {
    fn from(e: NotARecord) -> Self {
        Error::Internal(format!("not a record: {e}"))
    }
}

/// Serializes a struct into its (field, cell) pairs.
#[derive(Default)]
struct RecordSerializer {
    fields: Vec<(&'static str, Cell)>,
}

impl SerializeStruct for RecordSerializer {
    type Ok = Vec<(&'static str, Cell)>;
    type Error = NotARecord;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> std::result::Result<(), NotARecord> {
        let cell = match value.serialize(CellSerializer) {
            Ok(c) => c,
            // A nested value: a list of names is `;`-joined, anything
            // else is its JSON text.
            Err(NotARecord(_)) => {
                match serde_json::to_value(value).map_err(|e| NotARecord(e.to_string()))? {
                    serde_json::Value::Array(a) if a.iter().all(|x| x.is_string()) => Cell::Text(
                        a.iter()
                            .filter_map(|x| x.as_str())
                            .collect::<Vec<_>>()
                            .join(";"),
                    ),
                    other => Cell::Text(other.to_string()),
                }
            }
        };
        self.fields.push((key, cell));
        Ok(())
    }

    fn end(self) -> std::result::Result<Self::Ok, NotARecord> {
        Ok(self.fields)
    }
}

macro_rules! not_a_record {
    ($($f:ident($($t:ty),*) -> $ok:ty;)*) => {$(
        fn $f(self, $(_: $t),*) -> std::result::Result<$ok, NotARecord> {
            Err(NotARecord(concat!("a record is a struct, not ", stringify!($f)).into()))
        }
    )*};
}

/// A serializer method for whole numbers that always fit an `i64`.
macro_rules! whole_numbers {
    ($($f:ident($t:ty)),* $(,)?) => {$(
        fn $f(self, v: $t) -> std::result::Result<Cell, NotARecord> {
            Ok(Cell::Int(v.into()))
        }
    )*};
}

impl Serializer for RecordSerializer {
    type Ok = Vec<(&'static str, Cell)>;
    type Error = NotARecord;
    type SerializeSeq = Impossible<Self::Ok, NotARecord>;
    type SerializeTuple = Impossible<Self::Ok, NotARecord>;
    type SerializeTupleStruct = Impossible<Self::Ok, NotARecord>;
    type SerializeTupleVariant = Impossible<Self::Ok, NotARecord>;
    type SerializeMap = Impossible<Self::Ok, NotARecord>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<Self::Ok, NotARecord>;

    fn serialize_struct(self, _: &'static str, _: usize) -> std::result::Result<Self, NotARecord> {
        Ok(self)
    }

    fn serialize_some<V: Serialize + ?Sized>(
        self,
        _: &V,
    ) -> std::result::Result<Self::Ok, NotARecord> {
        Err(NotARecord("a record is a struct".into()))
    }

    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &V,
    ) -> std::result::Result<Self::Ok, NotARecord> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> std::result::Result<Self::Ok, NotARecord> {
        Err(NotARecord("a record is a struct".into()))
    }

    not_a_record! {
        serialize_bool(bool) -> Self::Ok;
        serialize_i8(i8) -> Self::Ok;
        serialize_i16(i16) -> Self::Ok;
        serialize_i32(i32) -> Self::Ok;
        serialize_i64(i64) -> Self::Ok;
        serialize_u8(u8) -> Self::Ok;
        serialize_u16(u16) -> Self::Ok;
        serialize_u32(u32) -> Self::Ok;
        serialize_u64(u64) -> Self::Ok;
        serialize_f32(f32) -> Self::Ok;
        serialize_f64(f64) -> Self::Ok;
        serialize_char(char) -> Self::Ok;
        serialize_str(&str) -> Self::Ok;
        serialize_bytes(&[u8]) -> Self::Ok;
        serialize_none() -> Self::Ok;
        serialize_unit() -> Self::Ok;
        serialize_unit_struct(&'static str) -> Self::Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> Self::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

/// Serializes one scalar field into a [`Cell`]; a nested value is an
/// error, which the record serializer turns into text.
struct CellSerializer;

impl Serializer for CellSerializer {
    type Ok = Cell;
    type Error = NotARecord;
    type SerializeSeq = Impossible<Cell, NotARecord>;
    type SerializeTuple = Impossible<Cell, NotARecord>;
    type SerializeTupleStruct = Impossible<Cell, NotARecord>;
    type SerializeTupleVariant = Impossible<Cell, NotARecord>;
    type SerializeMap = Impossible<Cell, NotARecord>;
    type SerializeStruct = Impossible<Cell, NotARecord>;
    type SerializeStructVariant = Impossible<Cell, NotARecord>;

    fn serialize_bool(self, v: bool) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Bool(v))
    }
    whole_numbers! {
        serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
        serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
    }
    fn serialize_u64(self, v: u64) -> std::result::Result<Cell, NotARecord> {
        Ok(i64::try_from(v).map_or(Cell::Big(v), Cell::Int))
    }
    fn serialize_f32(self, v: f32) -> std::result::Result<Cell, NotARecord> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<Cell, NotARecord> {
        Ok(if v.is_finite() {
            Cell::Float(v)
        } else {
            Cell::Null
        })
    }
    fn serialize_char(self, v: char) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_none(self) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Null)
    }
    fn serialize_some<V: Serialize + ?Sized>(self, v: &V) -> std::result::Result<Cell, NotARecord> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<Cell, NotARecord> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &V,
    ) -> std::result::Result<Cell, NotARecord> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> std::result::Result<Cell, NotARecord> {
        Err(NotARecord("nested".into()))
    }

    not_a_record! {
        serialize_bytes(&[u8]) -> Cell;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        DeltaLake,
    }

    #[derive(serde::Serialize)]
    struct Row {
        name: String,
        kind: Kind,
        n: Option<u64>,
        ratio: f64,
        ok: bool,
        parts: Vec<String>,
        pairs: Vec<(u32, u32)>,
    }

    #[test]
    fn fields_become_typed_columns_in_their_order() {
        let rows = [
            Row {
                name: "a,b".into(),
                kind: Kind::DeltaLake,
                n: None,
                ratio: f64::NAN,
                ok: true,
                parts: vec!["x".into(), "y".into()],
                pairs: vec![(1, 2)],
            },
            Row {
                name: "c".into(),
                kind: Kind::DeltaLake,
                n: Some(7),
                ratio: 0.5,
                ok: false,
                parts: vec![],
                pairs: vec![],
            },
        ];
        let names = ["name", "kind", "n", "ratio", "ok", "parts", "pairs"];
        let cols = columns(&rows, &names).unwrap();
        let mut csv = Vec::new();
        crate::write_csv(&cols, &mut csv, true).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "name,kind,n,ratio,ok,parts,pairs\n\"a,b\",delta_lake,,,true,x;y,\"[[1,2]]\"\nc,delta_lake,7,0.5,false,\"\",\"\"\n"
        );
        let wrong = columns(&rows, &["name", "n"]).unwrap_err();
        assert!(wrong.to_string().contains("column n"), "{wrong}");
    }
}
