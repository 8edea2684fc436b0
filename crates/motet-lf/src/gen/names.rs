//! Rust names for LF names: keywords made raw, and the snake-case module of each class.
//!
//! The generated crate holds one module per class in `crate::reactors`, named as reactor-rs
//! names it, so that reaction bodies written for LF's Rust target find the items they name.

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try",
];

/// `name` as a Rust identifier (keywords raw: `r#in`).
pub fn esc(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The module of class `name`, in snake case as reactor-rs names it (`SomethingWithAPreamble`
/// becomes `something_with_a_preamble`), so that bodies' `super::module::item` paths resolve.
pub fn module_name(name: &str) -> String {
    let cs: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in cs.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| cs[j]);
            let next = cs.get(i + 1);
            let split = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(char::is_uppercase) && next.is_some_and(|n| n.is_lowercase()));
            if split {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    esc(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            module_name("SomethingWithAPreamble"),
            "something_with_a_preamble"
        );
        assert_eq!(module_name("Source"), "source");
        assert_eq!(module_name("HelloWorld2"), "hello_world2");
        assert_eq!(module_name("In"), "r#in");
        assert_eq!(esc("struct"), "r#struct");
        assert_eq!(esc("x"), "x");
    }
}
