//! The tokens of LF: identifiers, numbers, strings, code blocks `{= ... =}` (kept verbatim),
//! and punctuation; comments (`//`, `#`, `/* */`) are skipped. Each token keeps its byte offset
//! for error messages.

use std::path::Path;

use crate::error::LfError;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal (digits as written).
    Int(String),
    /// A floating-point literal (as written).
    Float(String),
    /// A string literal, with its quotes (as written).
    Str(String),
    /// A character literal, with its quotes.
    Char(String),
    /// Target code between `{=` and `=}`.
    Code(String),
    /// Punctuation: `->`, `~>`, `::`, or one character.
    Punct(&'static str),
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Byte offset in the source.
    pub at: usize,
}

const PUNCT: &[&str] = &[
    "->", "~>", "::", "(", ")", "{", "}", "[", "]", "<", ">", ",", ";", ":", "=", ".", "+", "-",
    "*", "/", "@", "&", "!", "|", "?", "'",
];

/// Splits `src` into tokens.
///
/// # Errors
/// An unterminated comment, string or code block, or a character LF does not use.
pub fn lex(file: &Path, src: &str) -> Result<Vec<Token>, LfError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = src[i + 2..]
                .find("*/")
                .ok_or_else(|| LfError::at(file, src, i, "unterminated comment"))?;
            i = i + 2 + end + 2;
            continue;
        }
        let start = i;
        if c == b'{' && b.get(i + 1) == Some(&b'=') {
            let end = src[i + 2..]
                .find("=}")
                .ok_or_else(|| LfError::at(file, src, i, "unterminated code block (no `=}`)"))?;
            out.push(Token {
                tok: Tok::Code(src[i + 2..i + 2 + end].to_string()),
                at: start,
            });
            i = i + 2 + end + 2;
            continue;
        }
        if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= b.len() {
                return Err(LfError::at(file, src, start, "unterminated string"));
            }
            i += 1;
            out.push(Token {
                tok: Tok::Str(src[start..i].to_string()),
                at: start,
            });
            continue;
        }
        if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            out.push(Token {
                tok: Tok::Char(src[i..i + 3].to_string()),
                at: start,
            });
            i += 3;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let mut float = false;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            if i < b.len() && b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = src[start..i].to_string();
            out.push(Token {
                tok: if float {
                    Tok::Float(text)
                } else {
                    Tok::Int(text)
                },
                at: start,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(src[start..i].to_string()),
                at: start,
            });
            continue;
        }
        match PUNCT.iter().find(|p| src[i..].starts_with(**p)) {
            Some(p) => {
                out.push(Token {
                    tok: Tok::Punct(p),
                    at: start,
                });
                i += p.len();
            }
            None => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(LfError::at(
                    file,
                    src,
                    i,
                    format!("unexpected character `{ch}`"),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(Path::new("t.lf"), s)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn numbers_code_and_comments() {
        assert_eq!(
            toks("a -> b // x\n{= x + 1 =} 1.5e3 .5 -2 /* c */ 10 msec"),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("->"),
                Tok::Ident("b".into()),
                Tok::Code(" x + 1 ".into()),
                Tok::Float("1.5e3".into()),
                Tok::Float(".5".into()),
                Tok::Punct("-"),
                Tok::Int("2".into()),
                Tok::Int("10".into()),
                Tok::Ident("msec".into()),
            ]
        );
    }

    #[test]
    fn unterminated_code_points_at_its_start() {
        let e = lex(Path::new("t.lf"), "target Rust\n  {= oops").unwrap_err();
        assert_eq!((e.line, e.col), (2, 3));
    }
}
