//! Spark's printed expression syntax, parsed with nom. (Being written.)

use super::ir::Expr;

/// Parse one expression; text that does not parse becomes [`Expr::Raw`].
pub fn parse_expr(text: &str) -> Expr {
    Expr::Raw(text.trim().to_string())
}

/// Parse a bracketed, comma-separated list `[a#1, b#2L AS c#3]` (the
/// brackets are optional).
pub fn parse_expr_list(text: &str) -> Vec<Expr> {
    let t = text.trim();
    let t = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    if t.trim().is_empty() {
        return Vec::new();
    }
    vec![Expr::Raw(t.to_string())]
}
