//! The generator: a loaded [`Model`] becomes the `main.rs` of a Rust crate that declares the
//! program on motet-reactor's `ProgramBuilder` and runs it with its `Runner`, through
//! motet-lf-runtime's reactor-rs names.
//!
//! Each class `C` becomes a struct `R_C` holding its state variables, whose methods are the
//! reaction bodies, verbatim, with reactor-rs's signature (`ctx` and one handle per declared
//! element); an interface struct `I_C` holding its ports' handles; and a function `build_C` that
//! declares one instance (state, ports, timers, actions, contained reactors, connections,
//! reactions) and returns its interface.
//!
//! This module writes the program's frame (header, preambles, included modules, the
//! `reactors` module) and resolves each class's parameters and generics; the parts are written
//! by its submodules:
//! - `names`: Rust names for LF names;
//! - `expr`: Rust text for values, delays, widths and types;
//! - `class`: a class's module, structs and the skeleton of its `build_C`;
//! - `connections`: contained reactors and connections;
//! - `reactions`: reaction bodies and their declarations;
//! - `entry`: the program's `fn main`.

mod class;
mod connections;
mod entry;
mod expr;
mod names;
mod reactions;

use std::fmt::Write;

use crate::ast::{Expr, Reactor, Value};
use crate::error::LfError;
use crate::load::Model;

use class::emit_class;
use entry::emit_main;
use expr::infer;
pub use names::{esc, module_name};

/// An error at position `at` of the file that declares class `class`.
fn err_at(model: &Model, class: &str, at: usize, msg: String) -> LfError {
    match model.sources.get(class) {
        Some((path, src)) => LfError::at(path, src, at, msg),
        None => err(model, msg),
    }
}

/// An error about the program as a whole, at its main file.
fn err(model: &Model, msg: String) -> LfError {
    LfError::file(&model.path, msg)
}

/// A class, with its parameters' types and its generics resolved.
struct Class<'m> {
    name: String,
    r: &'m Reactor,
    /// Type parameters with the bounds the runtime needs.
    generics_decl: String,
    /// `<T, U>` or empty.
    generics_use: String,
    /// Parameter names and types.
    params: Vec<(String, String)>,
}

impl Class<'_> {
    /// `<T: ..., U: ...>` (the declared type parameters, bounded) or empty.
    fn generics_angle(&self) -> String {
        if self.generics_decl.is_empty() {
            String::new()
        } else {
            format!("<{}>", self.generics_decl)
        }
    }

    /// `::<T, U>` or empty: the type arguments of a use in expression position.
    fn turbofish(&self) -> String {
        if self.generics_use.is_empty() {
            String::new()
        } else {
            format!("::{}", self.generics_use)
        }
    }
}

/// The class `name` of `model`, resolved.
fn class<'m>(model: &'m Model, name: &str) -> Result<Class<'m>, LfError> {
    let r = model
        .classes
        .get(name)
        .ok_or_else(|| err(model, format!("unknown reactor class `{name}`")))?;
    let decls: Vec<String> = r
        .type_params
        .iter()
        .map(|(text, _)| {
            if text.contains(':') {
                format!("{text} + Send + Sync + 'static")
            } else {
                format!("{text}: Send + Sync + 'static")
            }
        })
        .collect();
    let uses: Vec<String> = r.type_params.iter().map(|(_, n)| n.clone()).collect();
    let mut params = Vec::new();
    for p in &r.params {
        let what = format!("parameter `{}` of `{name}`", p.name);
        let ty = declared_type(model, &p.ty, p.default.as_ref(), &params, &what)?;
        params.push((p.name.clone(), ty));
    }
    Ok(Class {
        name: name.to_string(),
        r,
        generics_decl: decls.join(", "),
        generics_use: if uses.is_empty() {
            String::new()
        } else {
            format!("<{}>", uses.join(", "))
        },
        params,
    })
}

/// The type of `what` (a parameter or state variable): `ty` as declared, else inferred from its
/// initializer `init` (`known`: the parameters typed so far, which it may name).
fn declared_type(
    model: &Model,
    ty: &Option<String>,
    init: Option<&Expr>,
    known: &[(String, String)],
    what: &str,
) -> Result<String, LfError> {
    ty.clone()
        .or_else(|| init.and_then(|e| infer(e, known)))
        .ok_or_else(|| err(model, format!("{what} needs a type")))
}

/// The handle type of a port: `Multiport` for a multiport, else `Port`.
fn port_kind(multiport: bool) -> &'static str {
    if multiport {
        "Multiport"
    } else {
        "Port"
    }
}

/// The files and folders of the `rust-include` target property, as written.
pub fn rust_includes(model: &Model) -> Vec<String> {
    let unquote = |v: &Value| match v {
        Value::Literal(s) => Some(s.trim_matches('"').to_string()),
        _ => None,
    };
    match model.property("rust-include") {
        Some(Value::List(items)) => items.iter().filter_map(unquote).collect(),
        Some(v) => unquote(v).into_iter().collect(),
        None => Vec::new(),
    }
}

/// Generates the `main.rs` of the program.
///
/// # Errors
/// References to undeclared elements or classes, and constructs motet-lf does not support.
pub fn generate(model: &Model) -> Result<String, LfError> {
    let main = model
        .main
        .clone()
        .ok_or_else(|| err(model, "the file has no main reactor".into()))?;
    let mut out = String::new();
    out.push_str("// Generated by motet-lf; do not edit.\n#![allow(unused, non_snake_case, non_camel_case_types, clippy::all)]\n\n");
    out.push_str("use motet_lf_runtime::prelude::*;\n\n");
    for p in &model.preambles {
        let _ = writeln!(out, "// preamble\n{}\n", p.trim());
    }
    // Bodies may name reactor-rs's crate: it is this runtime.
    out.push_str(
        "#[macro_use]\nextern crate log;\nextern crate motet_lf_runtime as reactor_rt;\n\n",
    );
    for inc in rust_includes(model) {
        let stem = inc.trim_end_matches('/').trim_end_matches(".rs");
        let stem = stem.rsplit('/').next().unwrap_or(stem);
        let _ = writeln!(out, "mod {stem};\n");
    }
    // As in LF's Rust target, the classes' modules live in `crate::reactors`.
    out.push_str("pub mod reactors {\nuse super::*;\n\n");
    let mut names: Vec<&String> = model.classes.keys().collect();
    names.sort();
    for n in names {
        let c = class(model, n)?;
        emit_class(model, &c, &mut out)?;
    }
    out.push_str("}\n\n");
    emit_main(model, &class(model, &main)?, &mut out)?;
    Ok(out)
}
