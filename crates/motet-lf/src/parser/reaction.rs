//! Reactions (label, triggers, sources, effects, body, deadline) and the references to a
//! reactor's elements (`name` or `container.name`) that reactions and connections make.

use crate::ast::{Reaction, TriggerRef, VarRef};
use crate::lexer::Tok;

use super::{Parser, R};

impl Parser<'_> {
    /// A reference to an element: `name` or `container.name`.
    pub(super) fn var_ref(&mut self) -> R<VarRef> {
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

    /// A reaction, at `reaction`.
    pub(super) fn reaction(&mut self) -> R<Reaction> {
        let at = self.here();
        self.ident()?; // `reaction`
        let label = match self.peek() {
            Some(Tok::Ident(_)) => Some(self.ident()?),
            _ => None,
        };
        self.punct("(")?;
        let triggers = self.comma_list(")", |p| {
            Ok(if p.eat_kw("startup") {
                TriggerRef::Startup
            } else if p.eat_kw("shutdown") {
                TriggerRef::Shutdown
            } else if p.eat_kw("reset") {
                TriggerRef::Reset
            } else {
                TriggerRef::Var(p.var_ref()?)
            })
        })?;
        let sources = if matches!(self.peek(), Some(Tok::Ident(_))) {
            self.comma_separated(Self::var_ref)?
        } else {
            Vec::new()
        };
        let effects = if self.eat_punct("->") {
            self.comma_separated(Self::var_ref)?
        } else {
            Vec::new()
        };
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
