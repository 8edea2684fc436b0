//! What the core's integration tests share: a platform whose clock is virtual.

use motet_reactor_core::{Clock, Inbox, Platform};

/// Virtual time: it moves only when the scheduler waits.
pub struct Virtual(pub u64);

impl Clock for Virtual {
    fn now(&self) -> u64 {
        self.0
    }
}

impl Platform for Virtual {
    fn wait(&mut self, _: &Inbox, deadline: Option<u64>) {
        self.0 = deadline.unwrap_or(self.0);
    }
}
