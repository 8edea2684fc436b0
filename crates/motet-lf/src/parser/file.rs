//! The top level of a file: the target and its properties, imports, file preambles and
//! attributes; each reactor is parsed by `reactor`.

use crate::ast::{File, Import, Value};

use super::{Parser, R, TIME_UNITS};
use crate::lexer::Tok;

impl Parser<'_> {
    /// A whole file.
    pub(super) fn file(&mut self) -> R<File> {
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
            } else if self.at_visible_preamble() {
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

    /// `{ key: value, ... }`: target properties, or a dictionary value.
    fn properties(&mut self) -> R<Vec<(String, Value, usize)>> {
        self.punct("{")?;
        self.comma_list("}", |p| {
            let at = p.here();
            let key = p.dashed_name()?;
            p.punct(":")?;
            let v = p.value()?;
            Ok((key, v, at))
        })
    }

    /// A property name: `a-b-c` or a string.
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

    /// A property value: a list, a dictionary, a time, a literal or a name.
    fn value(&mut self) -> R<Value> {
        match self.peek().cloned() {
            Some(Tok::Punct("[")) => {
                self.pos += 1;
                Ok(Value::List(self.comma_list("]", Self::value)?))
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

    /// `import A, B as C from "path"`, after `import`.
    fn import(&mut self) -> R<Import> {
        let at = self.here();
        let names = self.comma_separated(|p| {
            let n = p.ident()?;
            let alias = if p.eat_kw("as") {
                Some(p.ident()?)
            } else {
                None
            };
            Ok((n, alias))
        })?;
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
    pub(super) fn attribute(&mut self) -> R<(String, Option<String>)> {
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
}
