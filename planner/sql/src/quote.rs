//! Identifiers and string literals as Spark SQL's lexer reads them
//! (`SqlBaseLexer.g4`: `BACKQUOTED_IDENTIFIER : '`' ( ~'`' | '``' )* '`'`,
//! `STRING_LITERAL : '\'' ( ~('\''|'\\') | ('\\' .) )* '\''`). Every
//! statement writer of lakeaudit quotes through this module.

/// Split a possibly partly backquoted qualified name into its parts.
///
/// `spark_catalog.default.orders` → 3 parts; `` db.`a.b` `` → `db`, `a.b`.
/// A part is quoted only when it *starts* with a backquote; inside it a doubled
/// backquote is one backquote. A backquote elsewhere is part of the name, and
/// an unterminated quote runs to the end of the text.
pub fn split_qualified(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = name.chars().peekable();
    let mut at_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '`' {
                if chars.peek() == Some(&'`') {
                    chars.next();
                    cur.push('`');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '`' if at_start => quoted = true,
            '.' => {
                parts.push(std::mem::take(&mut cur));
                at_start = true;
                continue;
            }
            c => cur.push(c),
        }
        at_start = false;
    }
    parts.push(cur);
    parts
}

/// Backquote one identifier, doubling embedded backquotes.
pub fn quote_ident(part: &str) -> String {
    format!("`{}`", part.replace('`', "``"))
}

/// Backquote every part of a qualified table name.
pub fn quote_table(name: &str) -> String {
    quote_parts(&split_qualified(name))
}

/// Backquote each part and join them with `.`.
pub fn quote_parts<S: AsRef<str>>(parts: &[S]) -> String {
    parts
        .iter()
        .map(|p| quote_ident(p.as_ref()))
        .collect::<Vec<_>>()
        .join(".")
}

/// Backquoted, comma-separated column list.
pub fn quote_columns<S: AsRef<str>>(cols: &[S]) -> String {
    cols.iter()
        .map(|c| quote_ident(c.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A single-quoted string literal: `\` and `'` escaped with a backslash
/// (Spark unescapes `\\` and `\'`; a doubled `''` would instead end the
/// string and start an adjacent one, which Spark concatenates).
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Text for a `--` comment line: line breaks become spaces, so a name
/// cannot end the comment and start a statement.
pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The Spark catalog lakeaudit names in Iceberg `CALL`s when a table's
/// name has no catalog part: Spark's session catalog (Iceberg's
/// `SparkSessionCatalog` takes its place when configured). An Iceberg table
/// in another catalog needs the call's first name changed.
pub const ICEBERG_CATALOG: &str = "spark_catalog";

/// `CALL <catalog>.system.<procedure>(table => '<name>', <args>)`, Iceberg's
/// stored procedures (apache/iceberg `docs/docs/spark-procedures.md`). The
/// catalog is the name's first part when it has three or more, else
/// [`ICEBERG_CATALOG`]; Iceberg parses the `table` string as a multipart
/// identifier, so it holds the backquoted name. `args` are written as given
/// (callers build them from [`string_literal`]).
pub fn iceberg_call(procedure: &str, name: &[String], args: &[(&str, String)]) -> String {
    let (catalog, table) = match name {
        [c, rest @ ..] if rest.len() >= 2 => (c.as_str(), rest),
        _ => (ICEBERG_CATALOG, name),
    };
    let mut s = format!(
        "CALL {}.system.{procedure}(table => {}",
        quote_ident(catalog),
        string_literal(&quote_parts(table))
    );
    for (k, v) in args {
        s.push_str(&format!(", {k} => {v}"));
    }
    s.push(')');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            quote_table("spark_catalog.default.orders"),
            "`spark_catalog`.`default`.`orders`"
        );
        assert_eq!(quote_table("db.`we.ird`"), "`db`.`we.ird`");
        assert_eq!(quote_table("db.`a``b`"), "`db`.`a``b`");
        assert_eq!(quote_ident("x`y"), "`x``y`");
        assert_eq!(
            split_qualified("`unterminated.x"),
            vec!["unterminated.x".to_string()]
        );
        assert_eq!(split_qualified(""), vec![String::new()]);
        assert_eq!(quote_table("db.we`ird"), "`db`.`we``ird`");
    }

    #[test]
    fn strings_escape_backslash_and_quote() {
        assert_eq!(string_literal("it's"), r"'it\'s'");
        assert_eq!(string_literal(r"a\'; DROP"), r"'a\\\'; DROP'");
        assert_eq!(string_literal(""), "''");
    }
}
