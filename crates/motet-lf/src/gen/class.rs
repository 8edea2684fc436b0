//! The skeleton of one class `C`: its module in `crate::reactors`, the state struct `R_C`, the
//! interface struct `I_C` (its ports' handles), and the function `build_C` that declares one
//! instance on the builder: its state, its ports, timers and actions, then (from the sibling
//! modules `connections` and `reactions`) its contained reactors, connections and reactions; it
//! returns the instance's interface.

use std::fmt::Write;

use crate::ast::Expr;
use crate::error::LfError;
use crate::load::Model;

use super::connections::{emit_connections, emit_instances};
use super::expr::{expr, time_or_zero, width};
use super::names::{esc, module_name};
use super::reactions::{emit_bodies, emit_reactions};
use super::{declared_type, port_kind, Class};

/// Emits the module of class `c`.
pub(super) fn emit_class(model: &Model, c: &Class<'_>, out: &mut String) -> Result<(), LfError> {
    let mut state_types = Vec::new();
    for s in &c.r.state {
        let what = format!("state variable `{}` of `{}`", s.name, c.name);
        state_types.push(declared_type(
            model,
            &s.ty,
            s.init.as_ref(),
            &c.params,
            &what,
        )?);
    }
    emit_structs(c, &state_types, out);
    let deps_of = emit_bodies(model, c, out)?;
    emit_builder_state(c, &state_types, out);
    emit_elements(c, out);
    emit_instances(model, c, out)?;
    emit_connections(model, c, out)?;
    emit_reactions(model, c, &deps_of, out)?;
    emit_interface_value(c, out);
    Ok(())
}

/// Emits the head of the module, its preambles, and the structs `R_C` (state variables of
/// types `state_types`) and `I_C`.
fn emit_structs(c: &Class<'_>, state_types: &[String], out: &mut String) {
    let r = c.r;
    let gdecl = c.generics_angle();
    let phantom = format!(
        "std::marker::PhantomData<fn() -> ({})>",
        r.type_params
            .iter()
            .map(|(_, n)| format!("{n},"))
            .collect::<String>()
    );
    let _ = writeln!(out, "pub mod {} {{\n#![allow(unused, non_snake_case, non_camel_case_types, clippy::all)]\nuse super::*;\nuse motet_lf_runtime::prelude::*;\nuse motet_lf_runtime::{{Declarable as _, Role}};\nuse motet_lf_runtime::motet::{{ProgramBuilder, ReactorId}};\n", module_name(&c.name));
    for p in &r.preambles {
        let _ = writeln!(out, "// preamble\n{}\n", p.trim());
    }
    let _ = writeln!(
        out,
        "pub struct R_{}{gdecl} {{\n    __phantom: {phantom},",
        c.name
    );
    for (s, ty) in r.state.iter().zip(state_types) {
        let _ = writeln!(out, "    pub {}: {ty},", esc(&s.name));
    }
    out.push_str("}\n\n");
    let _ = writeln!(
        out,
        "pub struct I_{}{gdecl} {{\n    __phantom: {phantom},",
        c.name
    );
    for p in &r.ports {
        let kind = port_kind(p.width.is_some());
        let _ = writeln!(out, "    pub p_{}: {kind}<{}>,", p.name, p.ty);
    }
    out.push_str("}\n\n");
}

/// Emits the head of `build_C` and the state of the new instance, then declares the reactor.
fn emit_builder_state(c: &Class<'_>, state_types: &[String], out: &mut String) {
    let (r, gd, gu) = (c.r, &c.generics_decl, &c.generics_use);
    let pdecl: String = c
        .params
        .iter()
        .map(|(n, t)| format!(", {}: {t}", esc(n)))
        .collect();
    let bgen = if gd.is_empty() {
        "<__P: 'static>".to_string()
    } else {
        format!("<{gd}, __P: 'static>")
    };
    let _ = writeln!(
        out,
        "pub fn build_{n}{bgen}(__b: &mut ProgramBuilder, __shared: &std::sync::Arc<motet_lf_runtime::Shared>, __parent: Option<ReactorId<__P>>, __name: &str{pdecl}) -> I_{n}{gu} {{",
        n = c.name
    );
    // State.
    out.push_str("    let __state = {\n");
    let generic_names: Vec<&String> = r.type_params.iter().map(|(_, n)| n).collect();
    for (n, t) in &c.params {
        if !generic_names.contains(&t) {
            let _ = writeln!(out, "        let {0} = {0}.clone();", esc(n));
        }
    }
    for (s, ty) in r.state.iter().zip(state_types) {
        let init = match &s.init {
            // The parameters were cloned above (or are moved, for type parameters).
            Some(Expr::Ident(n)) => esc(n),
            Some(e) => expr(e, Some(ty)),
            None => "Default::default()".into(),
        };
        let _ = writeln!(out, "        let {}: {ty} = {init};", esc(&s.name));
    }
    let fields: String = r
        .state
        .iter()
        .map(|s| format!("{}, ", esc(&s.name)))
        .collect();
    let _ = writeln!(
        out,
        "        R_{}{turbo} {{ __phantom: std::marker::PhantomData, {fields}}}\n    }};",
        c.name,
        turbo = c.turbofish()
    );
    out.push_str("    let __rid = match __parent { Some(p) => __b.child(p, __name, __state), None => __b.reactor(__name, __state) };\n");
}

/// Emits the ports, timers and actions of class `c`: `__h_NAME` holds each one's handle.
fn emit_elements(c: &Class<'_>, out: &mut String) {
    let r = c.r;
    for p in &r.ports {
        let dir = if p.input { "input" } else { "output" };
        let line = match &p.width {
            Some(w) => format!(
                "Multiport::{dir}s(__b.{dir}_multiport::<{t}, _>(__rid, \"{n}\", {w}))",
                t = p.ty,
                n = p.name,
                w = width(w)
            ),
            None => format!(
                "Port::{dir}(__b.{dir}::<{t}, _>(__rid, \"{n}\"))",
                t = p.ty,
                n = p.name
            ),
        };
        let _ = writeln!(out, "    let __h_{} = {line};", p.name);
    }
    for t in &r.timers {
        let off = time_or_zero(t.offset.as_ref());
        let per = time_or_zero(t.period.as_ref());
        let _ = writeln!(
            out,
            "    let __h_{n} = Timer(__b.timer(__rid, \"{n}\", {off}, {per}));",
            n = t.name
        );
    }
    for a in &r.actions {
        let ty = a.ty.clone().unwrap_or_else(|| "()".into());
        let d = time_or_zero(a.min_delay.as_ref());
        if a.physical {
            let _ = writeln!(
                out,
                "    let __h_{n} = PhysicalActionRef::<{ty}>::declare(__b, __rid, \"{n}\", {d});",
                n = a.name
            );
        } else {
            let spacing = match &a.min_spacing {
                Some(s) => format!(
                    "Some(({}, motet_lf_runtime::spacing_policy(\"{}\")))",
                    expr(s, Some("Duration")),
                    a.policy.clone().unwrap_or_else(|| "defer".into())
                ),
                None => "None".into(),
            };
            let _ = writeln!(
                out,
                "    let __h_{n} = LogicalAction::<{ty}>::declare(__b, __rid, \"{n}\", {d}, {spacing});",
                n = a.name
            );
        }
    }
}

/// Emits the end of `build_C`: the instance's interface, its value.
fn emit_interface_value(c: &Class<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "    I_{}{} {{\n        __phantom: std::marker::PhantomData,",
        c.name,
        c.turbofish()
    );
    for p in &c.r.ports {
        let _ = writeln!(out, "        p_{0}: __h_{0}.clone(),", p.name);
    }
    out.push_str("    }\n}\n}\n\n");
}
