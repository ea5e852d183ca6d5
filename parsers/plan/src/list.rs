//! Spark's printed lists split at their top-level commas: the one splitter
//! every plan reader and the scan predicates use.
//!
//! Spark prints lists with no escaping of their items: operator arguments
//! (`[a#1, b#2], [c#3], Inner, BuildRight`), expression lists
//! (`[sum(x#1, y#2) AS s#3]`), data source filters
//! (`[IsNotNull(a), In(b, [1,2])]`) and schemas
//! (`struct<a:int,b:decimal(15,2),c:array<struct<d:int,e:int>>>`). A comma
//! separates two items only at the top level, where the rules are:
//!
//! - `()`, `[]` and `{}` nest. A closing bracket with nothing open is
//!   literal text (it never makes the depth negative), and any closing
//!   bracket closes the innermost open one, whatever its kind: nesting is
//!   a count, so one odd bracket in a printed value spoils only the item
//!   it is in.
//! - `<` nests only as a type's bracket, right after `struct`, `array` or
//!   `map` (any case): `struct<a:int,b:int>`, `cast(x#1 as map<string,int>)`.
//!   A `>` closes it only while one is open, so the comparisons Spark
//!   prints (`(a#1 < 5)`, `(a#1 <=> b#2)`, `(x#1 > 0)`) never nest.
//! - A backtick quotes a name (`` `a,b` ``): nothing inside it nests or
//!   separates, and Spark's escape of a backtick inside a name (two
//!   backticks) reads as closing and reopening the quote. A backtick that
//!   is never closed is literal text.
//! - `'` and `"` quote nothing: Spark prints string literals raw
//!   (`(c_name#1 = O'Brien, Ltd)`), so a quote is as likely an apostrophe
//!   and would swallow the rest of the list.
//! - Items are trimmed; empty items (`[]`, `a, , b`) are dropped.
//!
//! The space Spark prints after an argument's comma is not required: a
//! relation's columns (`t[a#1,b#2]`) and a source filter's arguments
//! (`EqualTo(a,1)`) have none.

/// The items of a printed list, at its top-level commas (see the
/// [module](self) for the rules). The text is the list's inside: callers
/// strip the list's own brackets first.
///
/// ```
/// use plan::list::split_top_level;
///
/// let items: Vec<&str> = split_top_level("[a#1, b#2], sum(x#3, y#4), struct<c:int,d:int>").collect();
/// assert_eq!(items, ["[a#1, b#2]", "sum(x#3, y#4)", "struct<c:int,d:int>"]);
///
/// // The first argument, and the rest of the arguments unsplit.
/// let mut args = split_top_level("Inner, (a#1 = b#2), false");
/// assert_eq!(args.next(), Some("Inner"));
/// assert_eq!(args.rest(), "(a#1 = b#2), false");
/// ```
pub fn split_top_level(text: &str) -> TopLevel<'_> {
    TopLevel { rest: text }
}

/// The iterator [`split_top_level`] returns.
#[derive(Clone, Debug)]
pub struct TopLevel<'a> {
    rest: &'a str,
}

impl<'a> TopLevel<'a> {
    /// The text after the items read so far, trimmed and not split: the
    /// arguments an operator prints after the ones read positionally.
    pub fn rest(&self) -> &'a str {
        self.rest.trim()
    }
}

impl<'a> Iterator for TopLevel<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        while !self.rest.is_empty() {
            let k = item_len(self.rest, None);
            let (item, rest) = match self.rest.get(k + 1..) {
                Some(rest) => (&self.rest[..k], rest),
                None => (self.rest, ""),
            };
            self.rest = rest;
            let item = item.trim();
            if !item.is_empty() {
                return Some(item);
            }
        }
        None
    }
}

/// Whether the `<` that ends `before` opens a type's brackets.
fn opens_type(before: &[u8]) -> bool {
    ["struct", "array", "map"].iter().any(|w| {
        before.len() >= w.len()
            && before[before.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
    })
}

/// The length of the list item at the start of `s`: the byte index of the
/// first top-level `,` (see the [module](self) for the rules), or of the
/// first top-level `close` (the bracket closing the list `s` is inside,
/// for a parser reading items in place), or the whole length.
pub fn item_len(s: &str, close: Option<u8>) -> usize {
    let b = s.as_bytes();
    let (mut depth, mut angles) = (0usize, 0usize);
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            c if depth == 0 && (c == b',' || Some(c) == close) => return k,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'<' if opens_type(&b[..k]) => {
                depth += 1;
                angles += 1;
            }
            b'>' if angles > 0 => {
                depth = depth.saturating_sub(1);
                angles -= 1;
            }
            b'`' => {
                if let Some(j) = s[k + 1..].find('`') {
                    k += j + 2;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<&str> {
        split_top_level(s).collect()
    }

    #[test]
    fn brackets_of_every_kind_nest() {
        assert_eq!(
            split("[a#1, b#2], (c#3, d#4), {e, f}, g"),
            ["[a#1, b#2]", "(c#3, d#4)", "{e, f}", "g"]
        );
        // Nested: `Expand`'s projections, `Window`'s lists.
        assert_eq!(
            split("[[a#1, null, 0], [b#2, c#3, 1]], [x#4, y#5]"),
            ["[[a#1, null, 0], [b#2, c#3, 1]]", "[x#4, y#5]"]
        );
        assert_eq!(
            split("sum(CASE WHEN (a#1 IN (1,2)) THEN b#2 END) AS s#3, c#4"),
            ["sum(CASE WHEN (a#1 IN (1,2)) THEN b#2 END) AS s#3", "c#4"]
        );
    }

    #[test]
    fn commas_without_a_space_separate() {
        // A relation's columns and a data source filter's arguments.
        assert_eq!(split("a#1,b#2L"), ["a#1", "b#2L"]);
        assert_eq!(
            split("IsNotNull(a), In(b, [1,2]), EqualTo(c,x)"),
            ["IsNotNull(a)", "In(b, [1,2])", "EqualTo(c,x)"]
        );
    }

    #[test]
    fn items_are_trimmed_and_empty_ones_dropped() {
        assert_eq!(split("  a ,  b  "), ["a", "b"]);
        assert_eq!(split("a, , b,"), ["a", "b"]);
        assert!(split("").is_empty());
        assert!(split("  ").is_empty());
    }

    #[test]
    fn a_stray_closing_bracket_is_literal() {
        // Never negative: the commas after it still separate.
        assert_eq!(split("a]b, c), d"), ["a]b", "c)", "d"]);
        // Any closer closes the innermost bracket.
        assert_eq!(split("(a], b), c"), ["(a]", "b)", "c"]);
        // An unclosed bracket holds the rest (a list Spark cut off).
        assert_eq!(
            split("a, (cast(b#1 as int), c..."),
            ["a", "(cast(b#1 as int), c..."]
        );
    }

    #[test]
    fn angles_nest_only_as_types() {
        assert_eq!(
            split("a:int,b:decimal(15,2),c:array<struct<d:int,e:int>>,m:MAP<string,int>,f:string"),
            [
                "a:int",
                "b:decimal(15,2)",
                "c:array<struct<d:int,e:int>>",
                "m:MAP<string,int>",
                "f:string"
            ]
        );
        // Comparisons do not nest.
        assert_eq!(
            split("(a#1 < 5), (b#2 > 3), (c#3 <=> d#4), e#5"),
            ["(a#1 < 5)", "(b#2 > 3)", "(c#3 <=> d#4)", "e#5"]
        );
        assert_eq!(split("a < b, c > d, e"), ["a < b", "c > d", "e"]);
    }

    #[test]
    fn backticks_quote_and_quotes_do_not() {
        assert_eq!(
            split("`a,b`:int,`c``,d`:string"),
            ["`a,b`:int", "`c``,d`:string"]
        );
        assert_eq!(
            split("`default`.`t`, org.apache.Serde"),
            ["`default`.`t`", "org.apache.Serde"]
        );
        // Unclosed: literal.
        assert_eq!(split("a`b, c"), ["a`b", "c"]);
        // String literals are printed raw: a quote is not a delimiter.
        assert_eq!(
            split("(n#1 = O'Brien), (m#2 = x')"),
            ["(n#1 = O'Brien)", "(m#2 = x')"]
        );
        assert_eq!(split("\"a, b\""), ["\"a", "b\""]);
    }

    #[test]
    fn an_item_in_place_ends_at_the_list_closing_bracket() {
        assert_eq!(item_len("a#1, b#2)", Some(b')')), 3);
        assert_eq!(item_len("f(a, b)) AS x", Some(b')')), 7);
        // A stray closer of another kind is literal text (`IN (a]b,c)`).
        assert_eq!(item_len("a]b,c)", Some(b')')), 3);
        assert_eq!(item_len("a]b) x", Some(b')')), 3);
        assert_eq!(item_len("no end", None), 6);
    }

    #[test]
    fn rest_is_the_unsplit_tail() {
        let mut it = split_top_level("[lk#1], [rk#2], Inner, BuildRight, (x#1 > 1), false");
        assert_eq!(it.next(), Some("[lk#1]"));
        assert_eq!(it.next(), Some("[rk#2]"));
        assert_eq!(it.rest(), "Inner, BuildRight, (x#1 > 1), false");
        assert_eq!(it.by_ref().nth(2), Some("(x#1 > 1)"));
        assert_eq!(it.rest(), "false");
        assert_eq!(it.next(), Some("false"));
        assert_eq!((it.next(), it.rest()), (None, ""));
    }
}
