//! A reactor declaration: its header (modifiers, name, type parameters, parameters, base
//! classes) and its members: preambles, state variables, ports, timers, actions, reactions,
//! contained reactors and connections.

use crate::ast::{ActionDecl, Instance, Param, PortDecl, Reactor, StateVar, TimerDecl};
use crate::lexer::Tok;

use super::{describe, Parser, R};

impl Parser<'_> {
    /// A reactor declaration, from its modifiers to its closing brace.
    pub(super) fn reactor(&mut self) -> R<Reactor> {
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
            r.type_params = self.comma_list(">", |p| {
                let text = match p.peek() {
                    Some(Tok::Code(_)) => p.code()?.trim().to_string(),
                    _ => {
                        let n = p.ident()?;
                        if p.eat_punct(":") {
                            format!("{n}: {}", p.type_()?)
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
                Ok((text, name))
            })?;
        }
        if self.eat_punct("(") {
            r.params = self.comma_list(")", Self::param)?;
        }
        if self.eat_kw("at") {
            return self.err("`at` (a host for federates) is not supported");
        }
        if self.eat_kw("extends") {
            r.extends = self.comma_separated(|p| {
                let at = p.here();
                let base = p.ident()?;
                if p.eat_punct("<") {
                    return p.err("type arguments to a base class are not supported");
                }
                Ok((base, at))
            })?;
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

    /// A parameter: `name: type = default`.
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

    /// One member of reactor `r`; `label` holds an `@label` for the next reaction.
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
        if self.at_visible_preamble() {
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
            let type_args = if self.eat_punct("<") {
                self.comma_list(">", Self::type_)?
            } else {
                Vec::new()
            };
            self.punct("(")?;
            let args = self.comma_list(")", |p| {
                let name = p.ident()?;
                let v = if p.eat_punct("=") {
                    p.expr()?
                } else {
                    p.paren_init()?
                };
                Ok((name, v))
            })?;
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
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::parse;

    #[test]
    fn modes_are_refused_with_a_position() {
        let e = parse(
            Path::new("t.lf"),
            "target Rust\nmain reactor {\n  initial mode A {}\n}",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
    }
}
