//! A small CSV reader and writer for the sweep's files: plain fields, no quoting (fields
//! never contain commas: free text has them replaced by `;`).

use std::collections::HashMap;

/// A CSV file read into memory: a header and rows of fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    columns: HashMap<String, usize>,
    /// Column names in order.
    pub header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads `text`: the first line is the header.
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines.next().ok_or("empty CSV")?.split(',').map(|s| s.trim().to_string()).collect();
        let columns = header.iter().enumerate().map(|(i, h)| (h.clone(), i)).collect();
        let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(|s| s.trim().to_string()).collect()).collect();
        for (i, row) in rows.iter().enumerate() {
            if row.len() != header.len() {
                return Err(format!("CSV row {i} has {} fields, the header {}", row.len(), header.len()));
            }
        }
        Ok(Table { columns, header, rows })
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The field of `row` in column `col`, if the column exists.
    pub fn get(&self, row: usize, col: &str) -> Option<&str> {
        self.columns.get(col).and_then(|&c| self.rows.get(row)?.get(c)).map(String::as_str)
    }

    /// The field as a number, `None` if empty, absent or not a number.
    pub fn num(&self, row: usize, col: &str) -> Option<f64> {
        self.get(row, col)?.parse().ok()
    }
}

/// A field of free text made safe for [`Table`]: commas and line breaks become `;` and spaces.
pub fn field(text: &str) -> String {
    text.replace(',', ";").replace(['\n', '\r'], " ")
}

/// A number with `digits` decimals, or an empty field.
pub fn opt(value: Option<f64>, digits: usize) -> String {
    value.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.digits$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_rejects() {
        let t = Table::parse("a,b\n1,x\n2.5,\n").unwrap();
        assert_eq!((t.len(), t.get(0, "b"), t.num(1, "a"), t.num(1, "b")), (2, Some("x"), Some(2.5), None));
        assert!(Table::parse("a,b\n1\n").is_err());
        assert_eq!(Table::parse("a\n").unwrap().len(), 0);
        assert_eq!(field("a, b\nc"), "a; b c");
        assert_eq!((opt(Some(1.234), 1), opt(None, 1), opt(Some(f64::NAN), 1)), ("1.2".into(), "".into(), "".into()));
    }
}
