//! Reactions: each reaction's body becomes a method of the state struct `R_C`, verbatim, with
//! reactor-rs's signature (`ctx` and one handle per element the reaction declares); inside
//! `build_C`, each reaction is declared on the builder with its triggers, sources and effects and
//! a closure that calls that method (and its deadline handler, if it has one).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::ast::{Reaction, TriggerRef, VarRef};
use crate::error::LfError;
use crate::load::Model;

use super::connections::instance;
use super::expr::{expr, subst};
use super::names::esc;
use super::{err, err_at, port_kind, Class};

/// One element a reaction declares, as its body sees it.
pub(super) struct Dep {
    /// Parameter name in the body.
    param: String,
    /// Handle type.
    ty: String,
    /// Expression of the handle in `build_C`.
    handle: String,
    effect: bool,
    trigger: bool,
    source: bool,
    /// The name and type of the reactor's own port, for a port.
    own_port: Option<(String, String)>,
}

/// Types known to be `Copy`, whose ports can be shadowed (see `Port::shadowed`).
const COPY_TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "()", "unit", "Duration",
];

/// Emits the `impl` of `R_C` whose methods are the reaction bodies (and deadline handlers) of
/// class `c`; returns, per reaction, the elements it declares.
pub(super) fn emit_bodies(
    model: &Model,
    c: &Class<'_>,
    out: &mut String,
) -> Result<Vec<Vec<Dep>>, LfError> {
    let (r, gu) = (c.r, &c.generics_use);
    let gdecl = c.generics_angle();
    let mut deps_of = Vec::new();
    let _ = writeln!(out, "impl{gdecl} R_{}{gu} {{", c.name);
    for (i, re) in r.reactions.iter().enumerate() {
        let mut deps = reaction_deps(model, c, re)?;
        for d in &mut deps {
            // A port that several reactions of the reactor set may be read back by the later
            // ones (`ctx.get(out)`): their handles keep a copy of what they set.
            if let (Some((name, ty)), true, false, false) =
                (&d.own_port, d.effect, d.trigger, d.source)
            {
                let setters = r
                    .reactions
                    .iter()
                    .filter(|x| {
                        x.effects
                            .iter()
                            .any(|e| e.container.is_none() && &e.name == name)
                    })
                    .count();
                if setters > 1 && COPY_TYPES.contains(&ty.as_str()) {
                    d.handle.push_str(".shadowed()");
                }
            }
        }
        let params: String = deps
            .iter()
            .map(|d| {
                let m = if d.effect { "&mut " } else { "&" };
                format!(", {}: {m}{}", d.param, d.ty)
            })
            .collect();
        let _ = writeln!(
            out,
            "    #[allow(unused)]\n    pub fn __reaction_{i}(&mut self, ctx: &mut ReactionCtx<'_>{params}) {{\n{}\n    }}",
            re.body
        );
        if let Some((_, handler)) = &re.deadline {
            let _ = writeln!(
                out,
                "    #[allow(unused)]\n    fn __deadline_{i}(&mut self, ctx: &mut ReactionCtx<'_>{params}) {{\n{handler}\n    }}"
            );
        }
        deps_of.push(deps);
    }
    out.push_str("}\n\n");
    Ok(deps_of)
}

/// Emits the declarations of the reactions of class `c`, in `build_C`, with `deps_of` (per
/// reaction, the elements it declares; see [`emit_bodies`]).
pub(super) fn emit_reactions(
    model: &Model,
    c: &Class<'_>,
    deps_of: &[Vec<Dep>],
    out: &mut String,
) -> Result<(), LfError> {
    let (r, gu) = (c.r, &c.generics_use);
    for (i, (re, deps)) in r.reactions.iter().zip(deps_of).enumerate() {
        let ctor = if deps.iter().any(|d| d.ty.starts_with("Multiport")) {
            "with_multiports"
        } else {
            "new"
        };
        let label = re
            .label
            .clone()
            .unwrap_or_else(|| format!("reaction_{}", i + 1));
        out.push_str("    {\n");
        for (k, d) in deps.iter().enumerate() {
            let _ = writeln!(out, "        let mut __p{k} = {};", d.handle);
        }
        let _ = writeln!(
            out,
            "        let mut __rb = __b.reaction(__rid, {label:?});"
        );
        for t in &re.triggers {
            match t {
                TriggerRef::Startup => {
                    out.push_str("        __rb = __rb.trigger(motet_lf_runtime::motet::Startup);\n")
                }
                TriggerRef::Shutdown => out
                    .push_str("        __rb = __rb.trigger(motet_lf_runtime::motet::Shutdown);\n"),
                TriggerRef::Reset => {
                    return Err(err(
                        model,
                        "`reset` triggers need modes, which are not supported".into(),
                    ))
                }
                TriggerRef::Var(_) => {}
            }
        }
        for (k, d) in deps.iter().enumerate() {
            for (on, role) in [
                (d.trigger, "Trigger"),
                (d.source, "Source"),
                (d.effect, "Effect"),
            ] {
                if on {
                    let _ = writeln!(out, "        __rb = __p{k}.declare(__rb, Role::{role});");
                }
            }
        }
        let args: String = deps
            .iter()
            .enumerate()
            .map(|(k, d)| {
                if d.effect {
                    format!(", &mut __p{k}")
                } else {
                    format!(", &__p{k}")
                }
            })
            .collect();
        if let Some((d, _)) = &re.deadline {
            out.push_str("        {\n");
            for k in 0..deps.len() {
                let _ = writeln!(out, "            let mut __p{k} = __p{k}.clone();");
            }
            let _ = writeln!(
                out,
                "            let __sh = __shared.clone();\n            __rb = __rb.deadline({}, move |__s: &mut R_{}{gu}, __c| {{ let mut __ctx = ReactionCtx::{ctor}(__c, &__sh); __s.__deadline_{i}(&mut __ctx{args}); }});\n        }}",
                expr(d, Some("Duration")),
                c.name
            );
        }
        let _ = writeln!(
            out,
            "        let __sh = __shared.clone();\n        __rb.body(move |__s: &mut R_{}{gu}, __c| {{ let mut __ctx = ReactionCtx::{ctor}(__c, &__sh); __s.__reaction_{i}(&mut __ctx{args}); }});\n    }}",
            c.name
        );
    }
    Ok(())
}

/// The elements reaction `re` of class `c` declares, each once, with the roles (trigger, source,
/// effect) it has.
fn reaction_deps(model: &Model, c: &Class<'_>, re: &Reaction) -> Result<Vec<Dep>, LfError> {
    let mut deps: Vec<Dep> = Vec::new();
    let mut roles: Vec<(VarRef, u8)> = Vec::new();
    for t in &re.triggers {
        if let TriggerRef::Var(v) = t {
            roles.push((v.clone(), 0));
        }
    }
    for v in &re.sources {
        roles.push((v.clone(), 1));
    }
    for v in &re.effects {
        roles.push((v.clone(), 2));
    }
    let mut index: BTreeMap<(Option<String>, String), usize> = BTreeMap::new();
    for (v, role) in roles {
        let key = (v.container.clone(), v.name.clone());
        let k = match index.get(&key) {
            Some(&k) => k,
            None => {
                let d = dep(model, c, &v)?;
                deps.push(d);
                index.insert(key, deps.len() - 1);
                deps.len() - 1
            }
        };
        match role {
            0 => deps[k].trigger = true,
            1 => deps[k].source = true,
            _ => deps[k].effect = true,
        }
    }
    Ok(deps)
}

/// Element `v`, as a reaction of class `c` sees it (its roles not yet set).
fn dep(model: &Model, c: &Class<'_>, v: &VarRef) -> Result<Dep, LfError> {
    let base = |param: String, ty: String, handle: String| Dep {
        param,
        ty,
        handle,
        effect: false,
        trigger: false,
        source: false,
        own_port: None,
    };
    match &v.container {
        None => {
            let r = c.r;
            let h = format!("__h_{}.clone()", v.name);
            if let Some(p) = r.ports.iter().find(|p| p.name == v.name) {
                let kind = port_kind(p.width.is_some());
                let mut d = base(esc(&v.name), format!("{kind}<{}>", p.ty), h);
                if p.width.is_none() {
                    d.own_port = Some((p.name.clone(), p.ty.clone()));
                }
                return Ok(d);
            }
            if let Some(a) = r.actions.iter().find(|a| a.name == v.name) {
                let ty = a.ty.clone().unwrap_or_else(|| "()".into());
                let kind = if a.physical {
                    "PhysicalActionRef"
                } else {
                    "LogicalAction"
                };
                return Ok(base(esc(&v.name), format!("{kind}<{ty}>"), h));
            }
            if r.timers.iter().any(|t| t.name == v.name) {
                return Ok(base(esc(&v.name), "Timer".into(), h));
            }
            Err(err_at(
                model,
                &c.name,
                v.at,
                format!(
                    "`{}` declares no port, action or timer `{}`",
                    c.name, v.name
                ),
            ))
        }
        Some(ci) => {
            let (inst, child, tmap) = instance(model, c, ci, v)?;
            let p = child
                .r
                .ports
                .iter()
                .find(|p| p.name == v.name)
                .ok_or_else(|| {
                    err_at(
                        model,
                        &c.name,
                        v.at,
                        format!("`{}` has no port `{}`", inst.class, v.name),
                    )
                })?;
            let ty = subst(&p.ty, &tmap);
            let param = format!("{ci}__{}", v.name);
            if inst.width.is_some() {
                Ok(base(
                    param,
                    format!("Multiport<{ty}>"),
                    format!(
                        "Multiport::from_ports(__c_{ci}.iter().flat_map(|x| x.p_{}.channels()).collect())",
                        v.name
                    ),
                ))
            } else {
                let kind = port_kind(p.width.is_some());
                Ok(base(
                    param,
                    format!("{kind}<{ty}>"),
                    format!("__c_{ci}.p_{}.clone()", v.name),
                ))
            }
        }
    }
}
