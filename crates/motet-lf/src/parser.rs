//! A recursive-descent parser for the LF subset that the Rust target uses (after lingua-franca's
//! `LinguaFranca.xtext`): target properties, imports, preambles, reactors with type parameters,
//! parameters, state, ports and multiports, timers, actions, reactions (triggers, sources,
//! effects, labels, deadlines), contained reactors and banks, and connections.

use std::path::{Path, PathBuf};

use crate::ast::*;
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

    fn file(&mut self) -> R<File> {
        let mut f = File::default();
        if !self.eat_kw("target") {
            return self.expected("`target`");
        }
        f.target = self.ident()?;
        if self.is_punct("{") {
            f.properties = self.properties()?;
        }
        self.eat_punct(";");
        while self.peek().is_some() {
            if self.eat_kw("import") {
                f.imports.push(self.import()?);
            } else if self.eat_kw("preamble") {
                f.preambles.push(self.code()?);
            } else if (self.is_kw("public") || self.is_kw("private"))
                && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s == "preamble")
            {
                self.pos += 2;
                f.preambles.push(self.code()?);
            } else if self.is_punct("@") {
                self.attribute()?;
            } else {
                f.reactors.push(self.reactor()?);
            }
        }
        Ok(f)
    }

    fn properties(&mut self) -> R<Vec<(String, Value, usize)>> {
        self.punct("{")?;
        let mut out = Vec::new();
        while !self.eat_punct("}") {
            let at = self.here();
            let key = self.dashed_name()?;
            self.punct(":")?;
            let v = self.value()?;
            out.push((key, v, at));
            if !self.eat_punct(",") {
                self.punct("}")?;
                break;
            }
        }
        Ok(out)
    }

    fn dashed_name(&mut self) -> R<String> {
        let mut key = match self.peek() {
            Some(Tok::Str(_)) => return self.string(),
            _ => self.ident()?,
        };
        while self.is_punct("-") {
            self.pos += 1;
            key.push('-');
            key.push_str(&self.ident()?);
        }
        Ok(key)
    }

    fn value(&mut self) -> R<Value> {
        match self.peek().cloned() {
            Some(Tok::Punct("[")) => {
                self.pos += 1;
                let mut items = Vec::new();
                while !self.eat_punct("]") {
                    items.push(self.value()?);
                    if !self.eat_punct(",") {
                        self.punct("]")?;
                        break;
                    }
                }
                Ok(Value::List(items))
            }
            Some(Tok::Punct("{")) => {
                let props = self.properties()?;
                Ok(Value::Dict(
                    props.into_iter().map(|(k, v, _)| (k, v)).collect(),
                ))
            }
            Some(Tok::Int(n)) => {
                self.pos += 1;
                if let Some(Tok::Ident(u)) = self.peek() {
                    if TIME_UNITS.contains(&u.as_str()) {
                        let u = u.clone();
                        self.pos += 1;
                        let n = n.replace('_', "").parse().unwrap_or(0);
                        return Ok(Value::Time(n, u));
                    }
                }
                Ok(Value::Literal(n))
            }
            Some(Tok::Float(n) | Tok::Str(n)) => {
                self.pos += 1;
                Ok(Value::Literal(n))
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                if s == "true" || s == "false" {
                    Ok(Value::Literal(s))
                } else {
                    Ok(Value::Ident(s))
                }
            }
            _ => self.expected("a property value"),
        }
    }

    fn import(&mut self) -> R<Import> {
        let at = self.here();
        let mut names = Vec::new();
        loop {
            let n = self.ident()?;
            let alias = if self.eat_kw("as") {
                Some(self.ident()?)
            } else {
                None
            };
            names.push((n, alias));
            if !self.eat_punct(",") {
                break;
            }
        }
        if !self.eat_kw("from") {
            return self.expected("`from`");
        }
        let path = match self.peek() {
            Some(Tok::Str(_)) => self.string()?,
            _ => return self.err("imports from a library path (`<...>`) are not supported"),
        };
        self.eat_punct(";");
        Ok(Import { names, path, at })
    }

    /// `@name` or `@name(args)`: returns the first string argument (used for `@label`).
    fn attribute(&mut self) -> R<(String, Option<String>)> {
        self.punct("@")?;
        let name = self.ident()?;
        let mut first = None;
        if self.eat_punct("(") {
            let mut depth = 1;
            while depth > 0 {
                match self.peek() {
                    None => return self.expected("`)`"),
                    Some(Tok::Punct("(")) => depth += 1,
                    Some(Tok::Punct(")")) => depth -= 1,
                    Some(Tok::Str(s)) if first.is_none() => {
                        first = Some(s[1..s.len() - 1].to_string())
                    }
                    _ => {}
                }
                self.pos += 1;
            }
        }
        Ok((name, first))
    }

    fn reactor(&mut self) -> R<Reactor> {
        let mut r = Reactor {
            at: self.here(),
            ..Reactor::default()
        };
        loop {
            if self.eat_kw("main") {
                r.main = true;
            } else if self.eat_kw("federated") {
                r.federated = true;
                r.main = true;
            } else if self.eat_kw("realtime") {
            } else {
                break;
            }
        }
        if !self.eat_kw("reactor") {
            return self.expected("`reactor`, `import` or `preamble`");
        }
        if let Some(Tok::Ident(_)) = self.peek() {
            r.name = Some(self.ident()?);
        }
        if self.eat_punct("<") {
            while !self.eat_punct(">") {
                let text = match self.peek() {
                    Some(Tok::Code(_)) => self.code()?.trim().to_string(),
                    _ => {
                        let n = self.ident()?;
                        if self.eat_punct(":") {
                            format!("{n}: {}", self.type_()?)
                        } else {
                            n
                        }
                    }
                };
                let name = text
                    .split(|c: char| c == ':' || c.is_whitespace())
                    .next()
                    .unwrap_or("")
                    .to_string();
                r.type_params.push((text, name));
                if !self.eat_punct(",") {
                    self.punct(">")?;
                    break;
                }
            }
        }
        if self.eat_punct("(") {
            while !self.eat_punct(")") {
                r.params.push(self.param()?);
                if !self.eat_punct(",") {
                    self.punct(")")?;
                    break;
                }
            }
        }
        if self.eat_kw("at") {
            return self.err("`at` (a host for federates) is not supported");
        }
        if self.eat_kw("extends") {
            loop {
                let at = self.here();
                r.extends.push((self.ident()?, at));
                if self.eat_punct("<") {
                    return self.err("type arguments to a base class are not supported");
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.punct("{")?;
        let mut label = None;
        while !self.eat_punct("}") {
            if self.peek().is_none() {
                return self.expected("`}`");
            }
            self.member(&mut r, &mut label)?;
        }
        Ok(r)
    }

    fn param(&mut self) -> R<Param> {
        let at = self.here();
        let name = self.ident()?;
        let ty = if self.eat_punct(":") {
            Some(self.type_()?)
        } else {
            None
        };
        let default = if self.eat_punct("=") {
            Some(self.expr()?)
        } else if self.is_punct("(") {
            Some(self.paren_init()?)
        } else {
            None
        };
        Ok(Param {
            name,
            ty,
            default,
            at,
        })
    }

    /// The old initializer syntax: `(expr)` or `(a, b)` (a list).
    fn paren_init(&mut self) -> R<Expr> {
        self.punct("(")?;
        let mut items = Vec::new();
        while !self.eat_punct(")") {
            items.push(self.expr()?);
            if !self.eat_punct(",") {
                self.punct(")")?;
                break;
            }
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::List(items)
        })
    }

    /// A type as Rust text: `time`, target code, or a path with type arguments.
    fn type_(&mut self) -> R<String> {
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
            let mut args = Vec::new();
            while !self.eat_punct(">") {
                args.push(self.type_()?);
                if !self.eat_punct(",") {
                    self.punct(">")?;
                    break;
                }
            }
            s = format!("{s}<{}>", args.join(", "));
        }
        while self.eat_punct("*") {
            s = format!("*mut {s}");
        }
        Ok(s)
    }

    fn expr(&mut self) -> R<Expr> {
        match self.peek().cloned() {
            Some(Tok::Code(c)) => {
                self.pos += 1;
                Ok(Expr::Code(c.trim().to_string()))
            }
            Some(Tok::Punct("[")) => {
                self.pos += 1;
                let mut items = Vec::new();
                while !self.eat_punct("]") {
                    items.push(self.expr()?);
                    if !self.eat_punct(",") {
                        self.punct("]")?;
                        break;
                    }
                }
                Ok(Expr::List(items))
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

    fn width(&mut self) -> R<Vec<Expr>> {
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

    fn member(&mut self, r: &mut Reactor, label: &mut Option<String>) -> R<()> {
        let at = self.here();
        if self.is_punct("@") {
            let (name, arg) = self.attribute()?;
            if name == "label" {
                *label = arg;
            }
            return Ok(());
        }
        if self.eat_kw("preamble") {
            r.preambles.push(self.code()?);
            return Ok(());
        }
        if (self.is_kw("public") || self.is_kw("private"))
            && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s == "preamble")
        {
            self.pos += 2;
            r.preambles.push(self.code()?);
            return Ok(());
        }
        self.eat_kw("reset");
        if self.eat_kw("state") {
            let name = self.ident()?;
            let ty = if self.eat_punct(":") {
                Some(self.type_()?)
            } else {
                None
            };
            let init = if self.eat_punct("=") {
                Some(self.expr()?)
            } else if self.is_punct("(") {
                Some(self.paren_init()?)
            } else {
                None
            };
            r.state.push(StateVar { name, ty, init, at });
            self.eat_punct(";");
            return Ok(());
        }
        self.eat_kw("mutable");
        if self.is_kw("input") || self.is_kw("output") {
            let input = self.ident()? == "input";
            let width = if self.is_punct("[") {
                Some(self.width()?)
            } else {
                None
            };
            let name = self.ident()?;
            self.punct(":")?;
            let ty = self.type_()?;
            r.ports.push(PortDecl {
                name,
                input,
                ty,
                width,
                at,
            });
            self.eat_punct(";");
            return Ok(());
        }
        if self.eat_kw("timer") {
            let name = self.ident()?;
            let (mut offset, mut period) = (None, None);
            if self.eat_punct("(") {
                if !self.is_punct(")") {
                    offset = Some(self.expr()?);
                    if self.eat_punct(",") {
                        period = Some(self.expr()?);
                    }
                }
                self.punct(")")?;
            }
            r.timers.push(TimerDecl {
                name,
                offset,
                period,
                at,
            });
            self.eat_punct(";");
            return Ok(());
        }
        if self.is_kw("logical") || self.is_kw("physical") {
            let physical = self.ident()? == "physical";
            if !self.eat_kw("action") {
                return self.expected("`action`");
            }
            let name = self.ident()?;
            let (mut min_delay, mut min_spacing, mut policy) = (None, None, None);
            if self.eat_punct("(") {
                if !self.is_punct(")") {
                    min_delay = Some(self.expr()?);
                    if self.eat_punct(",") {
                        min_spacing = Some(self.expr()?);
                        if self.eat_punct(",") {
                            policy = Some(self.string()?);
                        }
                    }
                }
                self.punct(")")?;
            }
            let ty = if self.eat_punct(":") {
                Some(self.type_()?)
            } else {
                None
            };
            r.actions.push(ActionDecl {
                name,
                physical,
                min_delay,
                min_spacing,
                policy,
                ty,
                at,
            });
            self.eat_punct(";");
            return Ok(());
        }
        if self.is_kw("reaction") {
            let mut reaction = self.reaction()?;
            if reaction.label.is_none() {
                reaction.label = label.take();
            }
            *label = None;
            r.reactions.push(reaction);
            return Ok(());
        }
        if self.is_kw("initial") || self.is_kw("mode") {
            r.modes.get_or_insert(at);
            return self.err("modes are not supported by the Rust target nor by motet-lf");
        }
        if self.is_kw("method") || self.is_kw("watchdog") {
            return self.err(format!(
                "{} is not supported by the Rust target",
                describe(self.peek())
            ));
        }
        // An instantiation `name = new ...` or a connection.
        if matches!(self.peek(), Some(Tok::Ident(_)))
            && matches!(self.peek_at(1), Some(Tok::Punct("=")))
        {
            let name = self.ident()?;
            self.punct("=")?;
            if !self.eat_kw("new") {
                return self.expected("`new`");
            }
            let width = if self.is_punct("[") {
                Some(self.width()?)
            } else {
                None
            };
            let class = self.ident()?;
            let mut type_args = Vec::new();
            if self.eat_punct("<") {
                while !self.eat_punct(">") {
                    type_args.push(self.type_()?);
                    if !self.eat_punct(",") {
                        self.punct(">")?;
                        break;
                    }
                }
            }
            self.punct("(")?;
            let mut args = Vec::new();
            while !self.eat_punct(")") {
                let p = self.ident()?;
                let v = if self.eat_punct("=") {
                    self.expr()?
                } else {
                    self.paren_init()?
                };
                args.push((p, v));
                if !self.eat_punct(",") {
                    self.punct(")")?;
                    break;
                }
            }
            r.instances.push(Instance {
                name,
                class,
                type_args,
                width,
                args,
                at,
            });
            self.eat_punct(";");
            return Ok(());
        }
        let c = self.connection()?;
        r.connections.push(c);
        Ok(())
    }

    fn var_ref(&mut self) -> R<VarRef> {
        let at = self.here();
        let first = self.ident()?;
        if self.eat_punct(".") {
            let name = self.ident()?;
            Ok(VarRef {
                container: Some(first),
                name,
                at,
            })
        } else {
            Ok(VarRef {
                container: None,
                name: first,
                at,
            })
        }
    }

    fn port_list(&mut self) -> R<Vec<PortRef>> {
        let mut out = Vec::new();
        loop {
            if self.is_kw("interleaved") && matches!(self.peek_at(1), Some(Tok::Punct("("))) {
                self.pos += 2;
                let var = self.var_ref()?;
                self.punct(")")?;
                out.push(PortRef {
                    var,
                    interleaved: true,
                });
            } else {
                out.push(PortRef {
                    var: self.var_ref()?,
                    interleaved: false,
                });
            }
            if !self.eat_punct(",") {
                return Ok(out);
            }
        }
    }

    fn connection(&mut self) -> R<Connection> {
        let at = self.here();
        let (lhs, broadcast) = if self.eat_punct("(") {
            let l = self.port_list()?;
            self.punct(")")?;
            self.punct("+")?;
            (l, true)
        } else if matches!(self.peek(), Some(Tok::Ident(_))) {
            (self.port_list()?, false)
        } else {
            return self.expected("a declaration, a reaction or a connection");
        };
        let physical = if self.eat_punct("~>") {
            true
        } else if self.eat_punct("->") {
            false
        } else {
            return self.expected("`->` or `~>`");
        };
        let rhs = self.port_list()?;
        let after = if self.eat_kw("after") {
            Some(self.expr()?)
        } else {
            None
        };
        self.eat_punct(";");
        Ok(Connection {
            lhs,
            rhs,
            broadcast,
            physical,
            after,
            at,
        })
    }

    fn reaction(&mut self) -> R<Reaction> {
        let at = self.here();
        self.ident()?; // `reaction`
        let label = match self.peek() {
            Some(Tok::Ident(_)) => Some(self.ident()?),
            _ => None,
        };
        self.punct("(")?;
        let mut triggers = Vec::new();
        while !self.eat_punct(")") {
            let t = if self.eat_kw("startup") {
                TriggerRef::Startup
            } else if self.eat_kw("shutdown") {
                TriggerRef::Shutdown
            } else if self.eat_kw("reset") {
                TriggerRef::Reset
            } else {
                TriggerRef::Var(self.var_ref()?)
            };
            triggers.push(t);
            if !self.eat_punct(",") {
                self.punct(")")?;
                break;
            }
        }
        let mut sources = Vec::new();
        if matches!(self.peek(), Some(Tok::Ident(_))) {
            loop {
                sources.push(self.var_ref()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        let mut effects = Vec::new();
        if self.eat_punct("->") {
            loop {
                effects.push(self.var_ref()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        let body = self.code()?;
        let deadline = if self.eat_kw("deadline") {
            self.punct("(")?;
            let d = self.expr()?;
            self.punct(")")?;
            Some((d, self.code()?))
        } else {
            None
        };
        if self.is_kw("STP") || self.is_kw("stp") {
            return self.err("STP handlers (federated programs) are not supported");
        }
        Ok(Reaction {
            label,
            triggers,
            sources,
            effects,
            body,
            deadline,
            at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn modes_are_refused_with_a_position() {
        let e = p("target Rust\nmain reactor {\n  initial mode A {}\n}").unwrap_err();
        assert_eq!(e.line, 3);
    }
}
