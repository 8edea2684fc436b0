//! motet-lf: Lingua Franca (LF) programs of the Rust target on motet.
//!
//! A `.lf` file is parsed ([`parser`]), loaded with its imports and inheritance resolved
//! ([`load`]), and turned into a Rust crate ([`gen`], [`project`]) that declares the program on
//! motet-reactor's builder and runs it on motet's schedulers; the reaction bodies are copied
//! verbatim and compile against motet-lf-runtime, which gives them reactor-rs's names. The
//! `motet-lf` command builds, runs and tests such programs ([`suite`] runs a folder of them as
//! LF's test harness does).
//!
//! ```
//! use std::path::Path;
//! let file = motet_lf::parser::parse(Path::new("hello.lf"), r#"
//!     target Rust
//!     main reactor {
//!         reaction(startup) {= println!("Hello"); =}
//!     }"#).unwrap();
//! assert!(file.reactors[0].main);
//! ```
#![warn(missing_docs)]

pub mod ast;
pub mod error;
pub mod gen;
pub mod lexer;
pub mod load;
pub mod parser;
pub mod project;
pub mod suite;
