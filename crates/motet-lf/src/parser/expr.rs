//! Values and types inside a reactor: initializers (literals, times, lists, target code, the old
//! parenthesized syntax), types as Rust text, and the widths of multiports and banks.

use crate::ast::Expr;
use crate::lexer::Tok;

use super::{Parser, R, TIME_UNITS};

impl Parser<'_> {
    /// The old initializer syntax: `(expr)` or `(a, b)` (a list).
    pub(super) fn paren_init(&mut self) -> R<Expr> {
        self.punct("(")?;
        let mut items = self.comma_list(")", Self::expr)?;
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::List(items)
        })
    }

    /// A type as Rust text: `time`, target code, or a path with type arguments.
    pub(super) fn type_(&mut self) -> R<String> {
        if let Some(Tok::Code(_)) = self.peek() {
            return Ok(self.code()?.trim().to_string());
        }
        if self.eat_punct("[") {
            let inner = self.type_()?;
            self.punct("]")?;
            return Ok(format!("Vec<{inner}>"));
        }
        let mut s = self.ident()?;
        if s == "time" {
            s = "Duration".into();
        }
        while self.eat_punct("::") {
            s.push_str("::");
            s.push_str(&self.ident()?);
        }
        if self.eat_punct("<") {
            let args = self.comma_list(">", Self::type_)?;
            s = format!("{s}<{}>", args.join(", "));
        }
        while self.eat_punct("*") {
            s = format!("*mut {s}");
        }
        Ok(s)
    }

    /// An initializer or delay.
    pub(super) fn expr(&mut self) -> R<Expr> {
        match self.peek().cloned() {
            Some(Tok::Code(c)) => {
                self.pos += 1;
                Ok(Expr::Code(c.trim().to_string()))
            }
            Some(Tok::Punct("[")) => {
                self.pos += 1;
                Ok(Expr::List(self.comma_list("]", Self::expr)?))
            }
            Some(Tok::Punct("-")) => {
                self.pos += 1;
                match self.expr()? {
                    Expr::Literal(l) => Ok(Expr::Literal(format!("-{l}"))),
                    _ => self.err("`-` applies to numbers only"),
                }
            }
            Some(Tok::Int(n)) => {
                self.pos += 1;
                if let Some(Tok::Ident(u)) = self.peek() {
                    if TIME_UNITS.contains(&u.as_str()) {
                        let u = u.clone();
                        self.pos += 1;
                        return Ok(Expr::Time(n, u));
                    }
                }
                Ok(Expr::Literal(n))
            }
            Some(Tok::Float(n)) => {
                self.pos += 1;
                let n = if n.starts_with('.') {
                    format!("0{n}")
                } else {
                    n
                };
                Ok(Expr::Literal(n))
            }
            Some(Tok::Str(s) | Tok::Char(s)) => {
                self.pos += 1;
                Ok(Expr::Literal(s))
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                if s == "true" || s == "false" {
                    Ok(Expr::Literal(s))
                } else if s == "forever" || s == "never" {
                    Ok(Expr::Code("Duration::MAX".into()))
                } else {
                    Ok(Expr::Ident(s))
                }
            }
            _ => self.expected("a value"),
        }
    }

    /// The width of a multiport or bank: `[a + b]`, a sum of terms.
    pub(super) fn width(&mut self) -> R<Vec<Expr>> {
        self.punct("[")?;
        let mut terms = Vec::new();
        loop {
            terms.push(self.expr()?);
            if !self.eat_punct("+") {
                break;
            }
        }
        self.punct("]")?;
        Ok(terms)
    }
}
