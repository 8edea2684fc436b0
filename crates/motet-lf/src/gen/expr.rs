//! Rust text for LF values and types: initializers and delays as Rust expressions of their
//! declared type, the types of untyped parameters and state variables, multiport and bank
//! widths, and type arguments put in for a generic class's type parameters.

use crate::ast::Expr;

use super::names::esc;

/// Rust text for `e`, of type `ty` where known (`Duration` turns a bare `0` into zero time, and
/// `Vec<..>` a list into `vec![..]`).
pub(super) fn expr(e: &Expr, ty: Option<&str>) -> String {
    let is_time = ty == Some("Duration");
    match e {
        Expr::Literal(l) if is_time && l == "0" => "motet_lf_runtime::Duration::ZERO".into(),
        Expr::Literal(l) if ty == Some("String") && l.starts_with('"') => {
            format!("{l}.to_string()")
        }
        Expr::Literal(l) => l.clone(),
        Expr::Time(n, u) => format!("motet_lf_runtime::delay!({n} {u})"),
        Expr::Ident(s) => format!("{}.clone()", esc(s)),
        Expr::Code(c) => format!("({c})"),
        Expr::List(items) => {
            let inner: Vec<String> = items.iter().map(|i| expr(i, None)).collect();
            if ty.is_some_and(|t| t.starts_with("Vec<")) {
                format!("vec![{}]", inner.join(", "))
            } else {
                format!("[{}]", inner.join(", "))
            }
        }
    }
}

/// The type of an untyped parameter or state variable, from its initializer.
pub(super) fn infer(e: &Expr, params: &[(String, String)]) -> Option<String> {
    match e {
        Expr::Time(..) => Some("Duration".into()),
        Expr::Ident(s) => params.iter().find(|(n, _)| n == s).map(|(_, t)| t.clone()),
        Expr::Literal(l) if l == "true" || l == "false" => Some("bool".into()),
        Expr::Literal(l) if l.starts_with('"') => Some("&'static str".into()),
        Expr::Literal(l) if l.contains('.') || l.contains('e') => Some("f64".into()),
        Expr::Literal(_) => Some("i32".into()),
        _ => None,
    }
}

/// The width of a multiport or bank: the sum of its terms, as `usize`.
pub(super) fn width(terms: &[Expr]) -> String {
    let parts: Vec<String> = terms
        .iter()
        .map(|t| format!("({}) as usize", expr(t, None)))
        .collect();
    format!("({})", parts.join(" + "))
}

/// Replaces whole-word occurrences of the type parameters in `ty`.
pub(super) fn subst(ty: &str, map: &[(String, String)]) -> String {
    if map.is_empty() {
        return ty.to_string();
    }
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some((_, v)) = map.iter().find(|(k, _)| k == word) {
            out.push_str(v);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in ty.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Rust text for an optional delay, zero time when absent.
pub(super) fn time_or_zero(e: Option<&Expr>) -> String {
    e.map_or("motet_lf_runtime::Duration::ZERO".into(), |e| {
        expr(e, Some("Duration"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_arguments_replace_whole_words() {
        let map = vec![("T".to_string(), "u32".to_string())];
        assert_eq!(subst("Vec<T>", &map), "Vec<u32>");
        assert_eq!(subst("Tx<T, [T; 2]>", &map), "Tx<u32, [u32; 2]>");
    }

    #[test]
    fn expressions_follow_their_type() {
        assert_eq!(
            expr(&Expr::Literal("0".into()), Some("Duration")),
            "motet_lf_runtime::Duration::ZERO"
        );
        assert_eq!(expr(&Expr::Literal("0".into()), Some("u32")), "0");
        assert_eq!(
            expr(&Expr::Time("10".into(), "msec".into()), None),
            "motet_lf_runtime::delay!(10 msec)"
        );
        let list = Expr::List(vec![Expr::Literal("1".into()), Expr::Literal("2".into())]);
        assert_eq!(expr(&list, Some("Vec<u32>")), "vec![1, 2]");
        assert_eq!(expr(&list, Some("[u32; 2]")), "[1, 2]");
        assert_eq!(
            expr(&Expr::Literal("\"a\"".into()), Some("String")),
            "\"a\".to_string()"
        );
    }

    #[test]
    fn untyped_state_takes_its_parameter_type() {
        let params = vec![("n".to_string(), "usize".to_string())];
        assert_eq!(
            infer(&Expr::Ident("n".into()), &params).as_deref(),
            Some("usize")
        );
        assert_eq!(
            infer(&Expr::Time("1".into(), "s".into()), &params).as_deref(),
            Some("Duration")
        );
        assert_eq!(infer(&Expr::Code("x".into()), &params), None);
    }
}
