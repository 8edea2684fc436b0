//! Loom models (in progress).
