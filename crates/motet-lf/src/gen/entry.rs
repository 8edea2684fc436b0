//! The program's `fn main`: the run options from the target properties (`workers`, `fast`,
//! `timeout`), overridable on the command line, and the main reactor's parameters, read from
//! `--NAME VALUE` arguments where their type can be parsed, else their defaults; then the main
//! reactor is built and run.

use std::fmt::Write;

use crate::ast::Value;
use crate::error::LfError;
use crate::load::Model;

use super::expr::expr;
use super::names::{esc, module_name};
use super::{err, Class};

/// Parameter types a main reactor's parameter can take from the command line.
const PARSEABLE: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "String", "Duration",
];

/// Emits `fn main` for the main reactor `c`.
pub(super) fn emit_main(model: &Model, c: &Class<'_>, out: &mut String) -> Result<(), LfError> {
    if !c.r.type_params.is_empty() {
        return Err(err(model, "the main reactor cannot be generic".into()));
    }
    let workers = match model.property("workers") {
        Some(Value::Literal(n)) => n.clone(),
        _ => "1".into(),
    };
    let fast = matches!(model.property("fast"), Some(Value::Literal(b)) if b == "true");
    let timeout = match model.property("timeout") {
        Some(Value::Time(n, u)) => format!("Some(motet_lf_runtime::delay!({n} {u}))"),
        _ => "None".into(),
    };
    let names: String = c.params.iter().map(|(n, _)| format!("{n:?}, ")).collect();
    let _ = writeln!(
        out,
        "fn main() -> std::process::ExitCode {{\n    let mut __config = motet_lf_runtime::Config {{ workers: {workers}, fast: {fast}, timeout: {timeout} }};\n    let __args = match motet_lf_runtime::Args::parse(std::env::args().skip(1), &[{names}], &mut __config) {{\n        Ok(a) => a,\n        Err(e) => {{ eprintln!(\"error: {{e}}\"); return std::process::ExitCode::from(2); }}\n    }};"
    );
    let mut args = String::new();
    for (p, (n, t)) in c.r.params.iter().zip(&c.params) {
        let default = p
            .default
            .as_ref()
            .map_or("Default::default()".into(), |d| expr(d, Some(t)));
        if PARSEABLE.contains(&t.as_str()) {
            let _ = writeln!(
                out,
                "    let {e}: {t} = match __args.param::<{t}>({n:?}) {{ Ok(Some(v)) => v, Ok(None) => {default}, Err(e) => {{ eprintln!(\"error: {{e}}\"); return std::process::ExitCode::from(2); }} }};",
                e = esc(n)
            );
        } else {
            let _ = writeln!(out, "    let {}: {t} = {default};", esc(n));
        }
        let _ = write!(args, ", {}", esc(n));
    }
    let _ = writeln!(
        out,
        "    motet_lf_runtime::run_main(&__config, move |__b, __shared| {{ let _ = reactors::{m}::build_{n}::<()>(__b, __shared, None, {n:?}{args}); }})\n}}",
        n = c.name,
        m = module_name(&c.name)
    );
    Ok(())
}
