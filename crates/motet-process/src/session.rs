//! Session types (in progress).
