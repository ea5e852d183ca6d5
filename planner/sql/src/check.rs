//! A checker of the statements lakeaudit writes: a script splits into
//! statements at `;` outside strings, quoted names and comments, and each
//! statement must be one of the forms below, whole, or the check fails.
//! The check reports every table a statement names, so a caller can assert
//! that a statement touches only its own table.
//!
//! The lexer follows Spark's `SqlBaseLexer.g4` (and the same tokens in
//! Delta's `DeltaSqlBase.g4` and Iceberg's `IcebergSqlExtensions.g4`):
//! `--` and nested `/* */` comments, `'…'`/`"…"` strings with backslash
//! escapes, backquoted identifiers with doubled backquotes, numbers with
//! the `L S Y D F BD` suffixes. The rules were written from these grammars
//! (Spark 4.0 `SqlBaseParser.g4`; delta-io/delta
//! `spark/src/main/antlr4/io/delta/sql/parser/DeltaSqlBase.g4`;
//! apache/iceberg `spark/v3.5/spark-extensions/src/main/antlr/.../IcebergSqlExtensions.g4`,
//! whose v4.0 grammar leaves `CALL` to Spark 4.0's own parser), restricted
//! to what lakeaudit emits:
//!
//! | statement | rule |
//! | --- | --- |
//! | `ALTER TABLE t CLUSTER BY (c, …)` | Spark `alterClusterBy`; Delta `alterTableClusterBy` |
//! | `OPTIMIZE t [FULL] [WHERE p] [ZORDER BY …]` | Delta `optimizeTable` |
//! | `REORG TABLE t [WHERE p] APPLY (PURGE)` | Delta `reorgTable` |
//! | `CONVERT TO DELTA t [NO STATISTICS]` | Delta `convert` |
//! | `CREATE OR REPLACE TABLE t USING f CLUSTER BY (c, …) AS SELECT * FROM t` | Spark `replaceTable` with `clusterBySpec` and a query |
//! | `ANALYZE TABLE t COMPUTE STATISTICS [NOSCAN \| FOR ALL COLUMNS \| FOR COLUMNS c, …]` | Spark `analyze` |
//! | `ALTER TABLE t SET TBLPROPERTIES ('k' = 'v', …)` | Spark `setTableProperties` |
//! | `ALTER TABLE t WRITE [LOCALLY] ORDERED BY f [ASC\|DESC] [NULLS FIRST\|LAST], …` | Iceberg `setWriteDistributionAndOrdering` |
//! | `ALTER TABLE t ADD PARTITION FIELD x [AS n]`, `… DROP PARTITION FIELD x` | Iceberg `addPartitionField`, `dropPartitionField` |
//! | `CALL cat.system.proc(name => const, …)` | Iceberg `call` / Spark 4.0 `call`; the table is the `table` argument, parsed as a multipart identifier, in the procedure's catalog |
//!
//! A predicate `p` (Delta's `predicateToken`, Iceberg's `where` argument:
//! both handed to Spark's expression parser) is checked as `conj (OR
//! conj)*`, `conj := atom (AND atom)*`, with `atom := name = literal |
//! name IN (literal, …) | name IS [NOT] NULL | (p)` (the maintenance plan
//! names several partitions in one statement: `p IN (…)`, or `(a = 1 AND
//! b = 2) OR (…)`).

use crate::error::{Error, Result};

/// What a checked statement does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ALTER TABLE … CLUSTER BY (…)`.
    AlterClusterBy,
    /// `OPTIMIZE …`.
    Optimize,
    /// `REORG TABLE … APPLY (PURGE)`.
    ReorgPurge,
    /// `CONVERT TO DELTA …`.
    ConvertToDelta,
    /// `CREATE OR REPLACE TABLE … CLUSTER BY (…) AS SELECT * FROM …`.
    ReplaceClustered,
    /// `ANALYZE TABLE … COMPUTE STATISTICS …`.
    Analyze,
    /// `ALTER TABLE … SET TBLPROPERTIES (…)`.
    SetProperties,
    /// Iceberg `ALTER TABLE … WRITE … ORDERED BY …`.
    WriteOrderedBy,
    /// Iceberg `ALTER TABLE … ADD PARTITION FIELD …`.
    AddPartitionField,
    /// Iceberg `ALTER TABLE … DROP PARTITION FIELD …`.
    DropPartitionField,
    /// `CALL catalog.system.<procedure>(…)`.
    Call {
        /// The procedure's last name part, lower case.
        procedure: String,
    },
}

/// One checked statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// What it does.
    pub kind: Kind,
    /// Every table it names, each as its name parts.
    pub tables: Vec<Vec<String>>,
    /// Its text (without the `;`).
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// An unquoted identifier or keyword.
    Word(String),
    /// A backquoted identifier, unquoted.
    Quoted(String),
    /// A string literal's value.
    Str(String),
    Num(String),
    Sym(&'static str),
}

struct Lexed {
    tok: Tok,
    start: usize,
    end: usize,
}

fn syntax(index: usize, reason: impl Into<String>, near: &str) -> Error {
    Error::Syntax {
        index,
        reason: reason.into(),
        near: near.chars().take(60).collect(),
    }
}

fn lex(src: &str, index: usize) -> Result<Vec<Lexed>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0usize;
            loop {
                if i + 1 >= b.len() {
                    return Err(syntax(index, "unterminated comment", &src[start..]));
                }
                if b[i] == b'/' && b[i + 1] == b'*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b[i + 1] == b'/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            continue;
        }
        let tok = match c {
            b'\'' | b'"' => {
                let mut s = String::new();
                let mut chars = src[i + 1..].char_indices();
                let mut closed = None;
                while let Some((k, ch)) = chars.next() {
                    if ch == '\\' {
                        let Some((_, e)) = chars.next() else { break };
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            'b' => '\u{8}',
                            '0' => '\0',
                            'Z' => '\u{1a}',
                            e => e,
                        });
                    } else if ch as u32 == u32::from(c) {
                        closed = Some(i + 1 + k + 1);
                        break;
                    } else {
                        s.push(ch);
                    }
                }
                let Some(end) = closed else {
                    return Err(syntax(index, "unterminated string", &src[start..]));
                };
                i = end;
                Tok::Str(s)
            }
            b'`' => {
                let mut s = String::new();
                let mut j = i + 1;
                loop {
                    let Some(k) = src[j..].find('`') else {
                        return Err(syntax(index, "unterminated quoted name", &src[start..]));
                    };
                    s.push_str(&src[j..j + k]);
                    j += k + 1;
                    if b.get(j) == Some(&b'`') {
                        s.push('`');
                        j += 1;
                    } else {
                        break;
                    }
                }
                i = j;
                Tok::Quoted(s)
            }
            c if c.is_ascii_digit()
                || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let mut dotted = false;
                if b.get(j) == Some(&b'.') {
                    dotted = true;
                    j += 1;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                if matches!(b.get(j), Some(b'e' | b'E')) {
                    let mut k = j + 1;
                    if matches!(b.get(k), Some(b'+' | b'-')) {
                        k += 1;
                    }
                    if b.get(k).is_some_and(u8::is_ascii_digit) {
                        while k < b.len() && b[k].is_ascii_digit() {
                            k += 1;
                        }
                        j = k;
                    }
                }
                if b.get(j..j + 2)
                    .is_some_and(|s| s.eq_ignore_ascii_case(b"bd"))
                {
                    j += 2;
                } else if matches!(
                    b.get(j).map(u8::to_ascii_uppercase),
                    Some(b'L' | b'S' | b'Y' | b'D' | b'F')
                ) {
                    j += 1;
                }
                if b.get(j).copied().is_some_and(word) {
                    // `1abc` is an identifier (IDENTIFIER allows a leading digit).
                    if dotted {
                        return Err(syntax(index, "malformed number", &src[start..]));
                    }
                    let mut k = i;
                    while k < b.len() && word(b[k]) {
                        k += 1;
                    }
                    i = k;
                    Tok::Word(src[start..k].to_string())
                } else {
                    i = j;
                    Tok::Num(src[start..j].to_string())
                }
            }
            c if word(c) => {
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                Tok::Word(src[start..i].to_string())
            }
            _ => {
                let sym = if src[i..].starts_with("=>") {
                    "=>"
                } else {
                    match c {
                        b'(' => "(",
                        b')' => ")",
                        b',' => ",",
                        b'.' => ".",
                        b';' => ";",
                        b'=' => "=",
                        b'*' => "*",
                        b'-' => "-",
                        b'+' => "+",
                        _ => return Err(syntax(index, "unrecognized character", &src[start..])),
                    }
                };
                i += sym.len();
                Tok::Sym(sym)
            }
        };
        out.push(Lexed { tok, start, end: i });
    }
    Ok(out)
}

/// Split `script` into statements and check each. An empty script (only
/// comments) has none; an empty statement between two `;` is an error.
pub fn check_script(script: &str) -> Result<Vec<Statement>> {
    let toks = lex(script, 1)?;
    let mut out = Vec::new();
    let mut begin = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.tok == Tok::Sym(";") {
            let index = out.len() + 1;
            if k == begin {
                return Err(syntax(index, "empty statement", &script[t.start..]));
            }
            out.push(parse(script, &toks[begin..k], index)?);
            begin = k + 1;
        }
    }
    if begin < toks.len() {
        let index = out.len() + 1;
        out.push(parse(script, &toks[begin..], index)?);
    }
    Ok(out)
}

/// Check that `text` is exactly one statement (a trailing `;` allowed).
pub fn check_statement(text: &str) -> Result<Statement> {
    let mut all = check_script(text)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        0 => Err(syntax(1, "no statement", text)),
        n => Err(syntax(
            2,
            format!("{n} statements where one was expected"),
            text,
        )),
    }
}

struct P<'a> {
    src: &'a str,
    toks: &'a [Lexed],
    i: usize,
    index: usize,
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn near(&self) -> &'a str {
        match self.toks.get(self.i) {
            Some(t) => &self.src[t.start..],
            None => "",
        }
    }
    fn err<T>(&self, reason: impl Into<String>) -> Result<T> {
        Err(syntax(self.index, reason, self.near()))
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
    }
    fn kw(&mut self, kw: &str) -> bool {
        let hit = self.is_kw(kw);
        self.i += usize::from(hit);
        hit
    }
    fn expect_kw(&mut self, kw: &str) -> Result<()> {
        if self.kw(kw) {
            Ok(())
        } else {
            self.err(format!("expected {kw}"))
        }
    }
    fn sym(&mut self, s: &str) -> bool {
        let hit = matches!(self.peek(), Some(Tok::Sym(x)) if *x == s);
        self.i += usize::from(hit);
        hit
    }
    fn expect_sym(&mut self, s: &str) -> Result<()> {
        if self.sym(s) {
            Ok(())
        } else {
            self.err(format!("expected '{s}'"))
        }
    }
    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Tok::Word(w) | Tok::Quoted(w)) => {
                self.i += 1;
                Ok(w.clone())
            }
            _ => self.err("expected a name"),
        }
    }
    fn multipart(&mut self) -> Result<Vec<String>> {
        let mut parts = vec![self.ident()?];
        while self.sym(".") {
            parts.push(self.ident()?);
        }
        Ok(parts)
    }
    fn name_list(&mut self) -> Result<Vec<Vec<String>>> {
        let mut v = vec![self.multipart()?];
        while self.sym(",") {
            v.push(self.multipart()?);
        }
        Ok(v)
    }
    fn string(&mut self) -> Result<String> {
        let mut s = match self.peek() {
            Some(Tok::Str(s)) => s.clone(),
            _ => return self.err("expected a string"),
        };
        self.i += 1;
        // Adjacent strings are one literal (`STRING+`).
        while let Some(Tok::Str(more)) = self.peek() {
            s.push_str(more);
            self.i += 1;
        }
        Ok(s)
    }
    fn number(&mut self) -> Result<()> {
        self.sym("-");
        match self.peek() {
            Some(Tok::Num(_)) => {
                self.i += 1;
                Ok(())
            }
            _ => self.err("expected a number"),
        }
    }
    /// A literal: number, string, boolean, `NULL`, or `DATE`/`TIMESTAMP…` string.
    fn literal(&mut self) -> Result<()> {
        match self.peek() {
            Some(Tok::Num(_) | Tok::Sym("-")) => self.number(),
            Some(Tok::Str(_)) => self.string().map(drop),
            Some(Tok::Word(w))
                if ["TRUE", "FALSE", "NULL"]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k)) =>
            {
                self.i += 1;
                Ok(())
            }
            Some(Tok::Word(w))
                if ["DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ"]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k)) =>
            {
                self.i += 1;
                self.string().map(drop)
            }
            _ => self.err("expected a literal"),
        }
    }
    fn predicate(&mut self) -> Result<()> {
        self.conjunction()?;
        while self.kw("OR") {
            self.conjunction()?;
        }
        Ok(())
    }
    fn conjunction(&mut self) -> Result<()> {
        self.atom()?;
        while self.kw("AND") {
            self.atom()?;
        }
        Ok(())
    }
    fn atom(&mut self) -> Result<()> {
        if self.sym("(") {
            self.predicate()?;
            return self.expect_sym(")");
        }
        self.multipart()?;
        if self.sym("=") {
            return self.literal();
        }
        if self.kw("IN") {
            self.expect_sym("(")?;
            self.literal()?;
            while self.sym(",") {
                self.literal()?;
            }
            return self.expect_sym(")");
        }
        self.expect_kw("IS")?;
        self.kw("NOT");
        self.expect_kw("NULL")
    }
    /// Iceberg `transform`: a column, or `name(arg, …)`.
    fn transform(&mut self) -> Result<()> {
        if matches!(
            self.toks.get(self.i + 1).map(|t| &t.tok),
            Some(Tok::Sym("("))
        ) {
            self.ident()?;
            self.expect_sym("(")?;
            loop {
                match self.peek() {
                    Some(Tok::Num(_) | Tok::Str(_) | Tok::Sym("-")) => self.literal()?,
                    _ => drop(self.multipart()?),
                }
                if !self.sym(",") {
                    break;
                }
            }
            return self.expect_sym(")");
        }
        self.multipart().map(drop)
    }
    fn order_field(&mut self) -> Result<()> {
        self.transform()?;
        let _ = self.kw("ASC") || self.kw("DESC");
        if self.kw("NULLS") && !(self.kw("FIRST") || self.kw("LAST")) {
            return self.err("expected FIRST or LAST");
        }
        Ok(())
    }
    /// Iceberg `constant`, `stringMap`, `stringArray`.
    fn call_value(&mut self) -> Result<Option<String>> {
        if (self.is_kw("MAP") || self.is_kw("ARRAY"))
            && matches!(
                self.toks.get(self.i + 1).map(|t| &t.tok),
                Some(Tok::Sym("("))
            )
        {
            self.i += 2;
            loop {
                self.literal()?;
                if !self.sym(",") {
                    break;
                }
            }
            self.expect_sym(")")?;
            return Ok(None);
        }
        if let Some(Tok::Str(_)) = self.peek() {
            return self.string().map(Some);
        }
        self.literal().map(|()| None)
    }
    fn done(&self) -> Result<()> {
        if self.i == self.toks.len() {
            Ok(())
        } else {
            self.err("unexpected text after the statement")
        }
    }
}

/// Parse a string's value as a multipart identifier or a predicate, as the
/// procedures do with their `table` and `where` arguments.
fn sub_parse<T>(text: &str, index: usize, f: impl FnOnce(&mut P<'_>) -> Result<T>) -> Result<T> {
    let toks = lex(text, index)?;
    let mut p = P {
        src: text,
        toks: &toks,
        i: 0,
        index,
    };
    let v = f(&mut p)?;
    p.done()?;
    Ok(v)
}

fn parse(src: &str, toks: &[Lexed], index: usize) -> Result<Statement> {
    let mut p = P {
        src,
        toks,
        i: 0,
        index,
    };
    let text = match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => src[a.start..b.end].to_string(),
        _ => String::new(),
    };
    let (kind, tables) = statement(&mut p)?;
    p.done()?;
    Ok(Statement { kind, tables, text })
}

fn statement(p: &mut P<'_>) -> Result<(Kind, Vec<Vec<String>>)> {
    if p.kw("ALTER") {
        p.expect_kw("TABLE")?;
        let t = p.multipart()?;
        let kind = if p.kw("CLUSTER") {
            p.expect_kw("BY")?;
            p.expect_sym("(")?;
            p.name_list()?;
            p.expect_sym(")")?;
            Kind::AlterClusterBy
        } else if p.kw("WRITE") {
            p.kw("LOCALLY");
            p.expect_kw("ORDERED")?;
            p.expect_kw("BY")?;
            let paren = p.sym("(");
            p.order_field()?;
            while p.sym(",") {
                p.order_field()?;
            }
            if paren {
                p.expect_sym(")")?;
            }
            Kind::WriteOrderedBy
        } else if p.kw("ADD") || p.is_kw("DROP") {
            let add = !p.kw("DROP");
            p.expect_kw("PARTITION")?;
            p.expect_kw("FIELD")?;
            p.transform()?;
            if add {
                if p.kw("AS") {
                    p.ident()?;
                }
                Kind::AddPartitionField
            } else {
                Kind::DropPartitionField
            }
        } else if p.kw("SET") {
            p.expect_kw("TBLPROPERTIES")?;
            p.expect_sym("(")?;
            loop {
                p.string()?;
                p.expect_sym("=")?;
                p.literal()?;
                if !p.sym(",") {
                    break;
                }
            }
            p.expect_sym(")")?;
            Kind::SetProperties
        } else {
            return p.err("expected CLUSTER BY, WRITE ORDERED BY, ADD/DROP PARTITION FIELD or SET TBLPROPERTIES");
        };
        return Ok((kind, vec![t]));
    }
    if p.kw("OPTIMIZE") {
        let t = p.multipart()?;
        p.kw("FULL");
        if p.kw("WHERE") {
            p.predicate()?;
        }
        if p.kw("ZORDER") {
            p.expect_kw("BY")?;
            let paren = p.sym("(");
            p.name_list()?;
            if paren {
                p.expect_sym(")")?;
            }
        }
        return Ok((Kind::Optimize, vec![t]));
    }
    if p.kw("REORG") {
        p.expect_kw("TABLE")?;
        let t = p.multipart()?;
        if p.kw("WHERE") {
            p.predicate()?;
        }
        p.expect_kw("APPLY")?;
        p.expect_sym("(")?;
        p.expect_kw("PURGE")?;
        p.expect_sym(")")?;
        return Ok((Kind::ReorgPurge, vec![t]));
    }
    if p.kw("CONVERT") {
        p.expect_kw("TO")?;
        p.expect_kw("DELTA")?;
        let t = p.multipart()?;
        if p.kw("NO") {
            p.expect_kw("STATISTICS")?;
        }
        return Ok((Kind::ConvertToDelta, vec![t]));
    }
    if p.kw("CREATE") {
        p.expect_kw("OR")?;
        p.expect_kw("REPLACE")?;
        p.expect_kw("TABLE")?;
        let t = p.multipart()?;
        p.expect_kw("USING")?;
        p.ident()?;
        p.expect_kw("CLUSTER")?;
        p.expect_kw("BY")?;
        p.expect_sym("(")?;
        p.name_list()?;
        p.expect_sym(")")?;
        p.expect_kw("AS")?;
        p.expect_kw("SELECT")?;
        p.expect_sym("*")?;
        p.expect_kw("FROM")?;
        let from = p.multipart()?;
        return Ok((Kind::ReplaceClustered, vec![t, from]));
    }
    if p.kw("ANALYZE") {
        p.expect_kw("TABLE")?;
        let t = p.multipart()?;
        p.expect_kw("COMPUTE")?;
        p.expect_kw("STATISTICS")?;
        if p.kw("FOR") {
            if p.kw("ALL") {
                p.expect_kw("COLUMNS")?;
            } else {
                p.expect_kw("COLUMNS")?;
                p.name_list()?;
            }
        } else {
            p.kw("NOSCAN");
        }
        return Ok((Kind::Analyze, vec![t]));
    }
    if p.kw("CALL") {
        let proc_name = p.multipart()?;
        p.expect_sym("(")?;
        let mut table = None;
        if !p.sym(")") {
            loop {
                let named = matches!(p.toks.get(p.i + 1).map(|t| &t.tok), Some(Tok::Sym("=>")));
                let name = if named {
                    let n = p.ident()?;
                    p.expect_sym("=>")?;
                    Some(n.to_ascii_lowercase())
                } else {
                    None
                };
                let at = p.i;
                let value = p.call_value()?;
                match (name.as_deref(), value) {
                    (Some("table"), Some(v)) => {
                        table = Some(sub_parse(&v, p.index, |q| q.multipart())?);
                    }
                    (Some("table"), None) => {
                        p.i = at;
                        return p.err("the table argument must be a string");
                    }
                    (Some("where"), Some(v)) => sub_parse(&v, p.index, |q| q.predicate())?,
                    _ => {}
                }
                if !p.sym(",") {
                    break;
                }
            }
            p.expect_sym(")")?;
        }
        let Some(mut table) = table else {
            return p.err("a CALL that names no table argument");
        };
        // `catalog.system.proc`: the table lives in the procedure's catalog.
        if proc_name.len() >= 3 {
            table.insert(0, proc_name[0].clone());
        }
        let procedure = proc_name
            .last()
            .map(|s| s.to_ascii_lowercase())
            .unwrap_or_default();
        return Ok((Kind::Call { procedure }, vec![table]));
    }
    p.err("not a statement lakeaudit writes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(sql: &str) -> Statement {
        match check_statement(sql) {
            Ok(s) => s,
            Err(e) => panic!("{sql}: {e}"),
        }
    }

    fn parts(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn the_forms_lakeaudit_writes() {
        let s = one("ALTER TABLE `db`.`t` CLUSTER BY (`a`, `b``c`);");
        assert_eq!(
            (s.kind, s.tables),
            (Kind::AlterClusterBy, vec![parts(&["db", "t"])])
        );
        let s = one("OPTIMIZE `db`.`t` FULL");
        assert_eq!(s.kind, Kind::Optimize);
        one("OPTIMIZE `t` WHERE `p` = 1 AND `d` = DATE'2024-01-01' AND `s` = 'x\\'y' AND `n` IS NULL");
        one("OPTIMIZE t WHERE (p = -1.5D)");
        one("REORG TABLE `t` APPLY (PURGE)");
        one("CONVERT TO DELTA `spark_catalog`.`default`.`lineitem`");
        let s =
            one("CREATE OR REPLACE TABLE `t` USING delta CLUSTER BY (`k`) AS SELECT * FROM `t`");
        assert_eq!(s.tables, vec![parts(&["t"]), parts(&["t"])]);
        one("ANALYZE TABLE `t` COMPUTE STATISTICS FOR ALL COLUMNS");
        one("ALTER TABLE `t` SET TBLPROPERTIES ('self-optimizing.enabled' = 'true')");
        one("ALTER TABLE `shop`.`web_events` WRITE ORDERED BY `e_custkey` ASC NULLS FIRST, `x`");
        one("ALTER TABLE t WRITE LOCALLY ORDERED BY (bucket(16, id), days(ts) DESC)");
        one("ALTER TABLE t ADD PARTITION FIELD days(ts) AS ts_day");
        one("ALTER TABLE t DROP PARTITION FIELD ts_day");
        let s = one("CALL `spark_catalog`.system.rewrite_data_files(table => '`shop`.`web_events`', strategy => 'sort', sort_order => '`e_custkey` ASC NULLS FIRST', options => map('rewrite-all', 'true'), where => '`p` = \\'x\\'')");
        assert_eq!(
            (s.kind, s.tables),
            (
                Kind::Call {
                    procedure: "rewrite_data_files".into()
                },
                vec![parts(&["spark_catalog", "shop", "web_events"])]
            )
        );
    }

    #[test]
    fn anything_else_fails() {
        // The hostile partition value, as it used to be written.
        let script = "OPTIMIZE intpart WHERE p = 1; DROP TABLE prod.payments; --";
        let e = check_script(script);
        assert!(matches!(e, Err(Error::Syntax { index: 2, .. })), "{e:?}");
        assert!(check_statement("OPTIMIZE a; OPTIMIZE b").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p = 1 OR 1 = 1").is_err());
        one("OPTIMIZE t WHERE `p` IN ('a', 'b\\'c') OR `p` IS NULL");
        one("OPTIMIZE t WHERE (`a` = 1 AND `b` = 'x') OR (`a` = 2 AND `b` IS NULL)");
        one("CALL c.system.rewrite_data_files(table => 'a', where => '`p` IN (\\'x\\', \\'y\\')')");
        assert!(check_statement("OPTIMIZE t WHERE p IN ()").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p IN (q)").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p IN (1, 2").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p IN (1) OR").is_err());
        assert!(
            check_statement("OPTIMIZE t WHERE p = 'a''b'").is_ok(),
            "adjacent strings"
        );
        assert!(check_statement("OPTIMIZE t WHERE p = ''x''").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p = 'x").is_err());
        assert!(check_statement("OPTIMIZE `t").is_err());
        assert!(check_statement("OPTIMIZE t WHERE FULL").is_err());
        assert!(check_statement("OPTIMIZE t WHERE p = 1 FULL").is_err());
        assert!(
            check_statement("CALL c.system.rewrite_data_files(table => 'a; DROP TABLE b')")
                .is_err()
        );
        assert!(check_statement(
            "CALL c.system.rewrite_data_files(table => 'a', where => '1 = 1; x')"
        )
        .is_err());
        assert!(check_statement("CALL c.system.expire_snapshots(older_than => 1)").is_err());
        assert!(check_statement("-- only a comment").is_err());
        assert!(check_script("OPTIMIZE a;; OPTIMIZE b").is_err());
    }
}
