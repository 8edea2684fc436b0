//! A recursive-descent parser for the LF subset that the Rust target uses (after lingua-franca's
//! `LinguaFranca.xtext`): target properties, imports, preambles, reactors with type parameters,
//! parameters, state, ports and multiports, timers, actions, reactions (triggers, sources,
//! effects, labels, deadlines), contained reactors and banks, and connections.
//!
//! This module holds the parser's state and its token-level steps (peek, eat, expect); each
//! submodule parses one part of the grammar:
//! - `file`: the target and its properties, imports, file preambles, attributes;
//! - `reactor`: a reactor's header and its members;
//! - `reaction`: reactions and references to elements;
//! - `connection`: connections;
//! - `expr`: initializers, types and widths.
//!
//! Tokens come from the [`lexer`](crate::lexer).

mod connection;
mod expr;
mod file;
mod reaction;
mod reactor;

use std::path::{Path, PathBuf};

use crate::ast::File;
use crate::error::LfError;
use crate::lexer::{lex, Tok, Token};

/// LF's time units.
pub const TIME_UNITS: &[&str] = &[
    "ns", "nsec", "nsecs", "us", "usec", "usecs", "ms", "msec", "msecs", "s", "sec", "secs",
    "second", "seconds", "min", "mins", "minute", "minutes", "h", "hour", "hours", "d", "day",
    "days", "week", "weeks",
];

/// Parses the text `src` of file `path`.
///
/// # Errors
/// The first syntax error, with its position.
pub fn parse(path: &Path, src: &str) -> Result<File, LfError> {
    let toks = lex(path, src)?;
    let mut p = Parser {
        file: path.to_path_buf(),
        src,
        toks,
        pos: 0,
    };
    p.file()
}

struct Parser<'s> {
    file: PathBuf,
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
}

type R<T> = Result<T, LfError>;

fn describe(t: Option<&Tok>) -> String {
    match t {
        None => "the end of the file".into(),
        Some(Tok::Ident(s)) => format!("`{s}`"),
        Some(Tok::Int(s) | Tok::Float(s) | Tok::Str(s) | Tok::Char(s)) => format!("`{s}`"),
        Some(Tok::Code(_)) => "a code block".into(),
        Some(Tok::Punct(p)) => format!("`{p}`"),
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }
    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.len(), |t| t.at)
    }
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(LfError::at(&self.file, self.src, self.here(), msg))
    }
    fn expected<T>(&self, what: &str) -> R<T> {
        self.err(format!("expected {what}, found {}", describe(self.peek())))
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == k)
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        if self.is_kw(k) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn punct(&mut self, p: &str) -> R<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }
    fn ident(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.expected("a name"),
        }
    }
    fn code(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Code(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.expected("a code block `{= ... =}`"),
        }
    }
    fn string(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Str(s)) => {
                let s = s[1..s.len() - 1].to_string();
                self.pos += 1;
                Ok(s)
            }
            _ => self.expected("a string"),
        }
    }

    /// Whether a `public preamble` or `private preamble` comes next.
    fn at_visible_preamble(&self) -> bool {
        (self.is_kw("public") || self.is_kw("private"))
            && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s == "preamble")
    }

    /// Items parsed by `item`, separated by commas, up to the punctuation `close` (the opening
    /// one already taken); a comma may follow the last item.
    fn comma_list<T>(&mut self, close: &str, mut item: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = Vec::new();
        while !self.eat_punct(close) {
            out.push(item(self)?);
            if !self.eat_punct(",") {
                self.punct(close)?;
                break;
            }
        }
        Ok(out)
    }

    /// One or more items parsed by `item`, separated by commas.
    fn comma_separated<T>(&mut self, mut item: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = Vec::new();
        loop {
            out.push(item(self)?);
            if !self.eat_punct(",") {
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Expr, Value};

    fn p(s: &str) -> Result<File, LfError> {
        parse(Path::new("t.lf"), s)
    }

    #[test]
    fn a_small_program() {
        let f = p(r#"target Rust { timeout: 1 sec, cargo-features: ["cli"] }
            import A, B as C from "lib/x.lf"
            reactor Src<{= T: Sync =}>(n: usize = 4, d: time = 10 msec) {
              output[n] out: T
              state count: u32
              timer t(0, d)
              logical action a(1 ms): Vec<u32>
              @label("emit")
              reaction(startup, t) a -> out, a {= ctx.schedule(a, Asap); =} deadline(5 ms) {= =}
            }
            main reactor {
              s = new[2] Src<u32>(n = 3)
              k = new Sink()
              (s.out)+ -> interleaved(k.inp) after 2 ms
            }"#)
        .unwrap();
        assert_eq!(f.properties.len(), 2);
        assert_eq!(f.properties[0].1, Value::Time(1, "sec".into()));
        assert_eq!(f.imports[0].names[1], ("B".into(), Some("C".into())));
        let src = &f.reactors[0];
        assert_eq!(src.type_params[0], ("T: Sync".into(), "T".into()));
        assert_eq!(src.params[1].ty.as_deref(), Some("Duration"));
        assert_eq!(src.ports[0].width, Some(vec![Expr::Ident("n".into())]));
        assert_eq!(src.actions[0].ty.as_deref(), Some("Vec<u32>"));
        let r = &src.reactions[0];
        assert_eq!(r.label.as_deref(), Some("emit"));
        assert_eq!(r.triggers.len(), 2);
        assert_eq!(r.sources[0].name, "a");
        assert_eq!(r.effects.len(), 2);
        assert!(r.deadline.is_some());
        let main = &f.reactors[1];
        assert!(main.main && main.name.is_none());
        assert_eq!(main.instances[0].type_args, vec!["u32".to_string()]);
        let c = &main.connections[0];
        assert!(c.broadcast && c.rhs[0].interleaved);
        assert_eq!(c.after, Some(Expr::Time("2".into(), "ms".into())));
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = p("target Rust\nreactor X {\n  input x u32\n}").unwrap_err();
        assert_eq!((e.line, e.col), (3, 11));
        assert!(e.message.contains("expected `:`"), "{}", e.message);
        let shown = e.to_string();
        assert!(shown.starts_with("t.lf:3:11: error:"), "{shown}");
        assert!(shown.contains("  input x u32"), "{shown}");
    }
}
