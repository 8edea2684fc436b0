//! motet-savina: the Savina benchmarks.
pub mod bench;
pub mod params;
