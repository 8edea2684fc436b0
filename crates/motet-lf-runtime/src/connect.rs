//! Connections as LF writes them: lists of channels on both sides (ports, multiports, banks,
//! `interleaved(...)`), plain, `after` a delay, physical (`~>`), or broadcast (`(x)+`).

use std::time::Duration;

use motet_reactor::{Connection, Ports, ProgramBuilder};

use crate::handles::Port;

/// The channels of `banks` interleaved: channel 0 of every member, then channel 1, ...
/// (LF's `interleaved(bank.port)`).
pub fn interleaved<T: Send + Sync + 'static>(banks: Vec<Vec<Port<T>>>) -> Vec<Port<T>> {
    let max = banks.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for c in 0..max {
        for b in &banks {
            if let Some(p) = b.get(c) {
                out.push(*p);
            }
        }
    }
    out
}

fn list<T: Send + Sync + 'static>(ports: &[Port<T>]) -> Ports<T> {
    ports.iter().fold(Ports::new(), |acc, p| acc.and(p.ports()))
}

/// A plain connection (`->`), or a broadcast one (`(from)+ -> to`).
pub fn connect<T: Send + Sync + 'static>(
    b: &mut ProgramBuilder,
    from: &[Port<T>],
    to: &[Port<T>],
    broadcast: bool,
) {
    if broadcast {
        b.connect_broadcast(list(from), list(to));
    } else {
        b.connect(list(from), list(to));
    }
}

/// A delayed (`after`) or physical (`~>`) connection, possibly broadcast.
pub fn connect_delayed<T: Clone + Send + Sync + 'static>(
    b: &mut ProgramBuilder,
    from: &[Port<T>],
    to: &[Port<T>],
    after: Option<Duration>,
    physical: bool,
    broadcast: bool,
) {
    let mut c = Connection::new();
    if let Some(d) = after {
        c = c.after(d);
    }
    if physical {
        c = c.physical();
    }
    if broadcast {
        c = c.broadcast();
    }
    b.connect_with(list(from), list(to), c);
}
