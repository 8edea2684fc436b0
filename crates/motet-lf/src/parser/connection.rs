//! Connections: `a.out -> b.in`, lists of ports on either side, broadcasts `(a)+`, `interleaved`,
//! physical connections `~>` and `after` delays.

use crate::ast::{Connection, PortRef};
use crate::lexer::Tok;

use super::{Parser, R};

impl Parser<'_> {
    /// One side of a connection: ports, each plain or `interleaved(...)`.
    fn port_list(&mut self) -> R<Vec<PortRef>> {
        self.comma_separated(|p| {
            if p.is_kw("interleaved") && matches!(p.peek_at(1), Some(Tok::Punct("("))) {
                p.pos += 2;
                let var = p.var_ref()?;
                p.punct(")")?;
                Ok(PortRef {
                    var,
                    interleaved: true,
                })
            } else {
                Ok(PortRef {
                    var: p.var_ref()?,
                    interleaved: false,
                })
            }
        })
    }

    /// A connection, up to its optional `;`.
    pub(super) fn connection(&mut self) -> R<Connection> {
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
}
