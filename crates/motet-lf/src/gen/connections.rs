//! Contained reactors and connections, inside a class's `build_C`: each instance (or bank of
//! instances) is built by its class's `build_` function with its parameters' values and type
//! arguments, and each connection joins the channels of the ports it names, plain or delayed.

use std::fmt::Write;

use crate::ast::{Instance, PortRef, VarRef};
use crate::error::LfError;
use crate::load::Model;

use super::expr::{expr, subst, width};
use super::names::module_name;
use super::{class, err, err_at, Class};

/// Emits the contained reactors of class `c`: `__c_NAME` holds an instance's interface, or a
/// vector of them for a bank.
pub(super) fn emit_instances(
    model: &Model,
    c: &Class<'_>,
    out: &mut String,
) -> Result<(), LfError> {
    for inst in &c.r.instances {
        if !model.classes.contains_key(&inst.class) {
            return Err(err_at(
                model,
                &c.name,
                inst.at,
                format!("unknown reactor class `{}`", inst.class),
            ));
        }
        let child = class(model, &inst.class)?;
        if child.r.main {
            return Err(err(
                model,
                format!("`{}` instantiates a main reactor", inst.name),
            ));
        }
        if child.r.type_params.len() != inst.type_args.len() {
            return Err(err(
                model,
                format!(
                    "`{}`: class `{}` takes {} type arguments",
                    inst.name,
                    inst.class,
                    child.r.type_params.len()
                ),
            ));
        }
        let tmap = type_map(&child, inst);
        let mut args = String::new();
        for (cp, (pname, pty)) in child.r.params.iter().zip(&child.params) {
            let pty = subst(pty, &tmap);
            let v = if let Some((_, e)) = inst.args.iter().find(|(n, _)| n == pname) {
                expr(e, Some(&pty))
            } else if pname == "bank_index" && inst.width.is_some() {
                "bank_index".into()
            } else if let Some(d) = &cp.default {
                expr(d, Some(&pty))
            } else {
                return Err(err(
                    model,
                    format!(
                        "`{}` gives no value to parameter `{pname}` of `{}`",
                        inst.name, inst.class
                    ),
                ));
            };
            let _ = write!(args, ", {{ let __v: {pty} = {v}; __v }}");
        }
        for (n, _) in &inst.args {
            if !child.params.iter().any(|(p, _)| p == n) {
                return Err(err(
                    model,
                    format!("`{}` has no parameter `{n}`", inst.class),
                ));
            }
        }
        let targs: String = inst.type_args.iter().map(|t| format!("{t}, ")).collect();
        let call = format!(
            "super::{}::build_{}::<{targs}_>(__b, __shared, Some(__rid), ",
            module_name(&inst.class),
            inst.class
        );
        match &inst.width {
            None => {
                let _ = writeln!(
                    out,
                    "    let __c_{n} = {call}\"{n}\"{args});",
                    n = inst.name
                );
            }
            Some(w) => {
                let _ = writeln!(
                    out,
                    "    let mut __c_{n} = Vec::new();\n    for bank_index in 0..{w} {{ __c_{n}.push({call}&format!(\"{n}[{{bank_index}}]\"){args})); }}",
                    n = inst.name,
                    w = width(w)
                );
            }
        }
    }
    Ok(())
}

/// Emits the connections of class `c`.
pub(super) fn emit_connections(
    model: &Model,
    c: &Class<'_>,
    out: &mut String,
) -> Result<(), LfError> {
    for conn in &c.r.connections {
        let side = |list: &[PortRef]| -> Result<String, LfError> {
            let mut s = String::from("{ let mut __v = Vec::new(); ");
            for pr in list {
                let e = channels(model, c, &pr.var, pr.interleaved)?;
                let _ = write!(s, "__v.extend({e}); ");
            }
            s.push_str("__v }");
            Ok(s)
        };
        let (l, rr) = (side(&conn.lhs)?, side(&conn.rhs)?);
        if conn.after.is_some() || conn.physical {
            let after = conn.after.as_ref().map_or("None".into(), |e| {
                format!("Some({})", expr(e, Some("Duration")))
            });
            let _ = writeln!(
                out,
                "    motet_lf_runtime::connect_delayed(__b, &{l}, &{rr}, {after}, {}, {});",
                conn.physical, conn.broadcast
            );
        } else {
            let _ = writeln!(
                out,
                "    motet_lf_runtime::connect(__b, &{l}, &{rr}, {});",
                conn.broadcast
            );
        }
    }
    Ok(())
}

/// A contained reactor, its class, and the class's type parameters mapped to the instance's
/// type arguments.
pub(super) type InstanceOf<'m> = (&'m Instance, Class<'m>, Vec<(String, String)>);

/// The contained reactor named `name`, and its class with the instance's type arguments.
pub(super) fn instance<'m>(
    model: &'m Model,
    c: &Class<'_>,
    name: &str,
    at: &VarRef,
) -> Result<InstanceOf<'m>, LfError> {
    let r = model.classes.get(&c.name).expect("class exists");
    let inst = r.instances.iter().find(|i| i.name == name).ok_or_else(|| {
        err_at(
            model,
            &c.name,
            at.at,
            format!("`{}` has no contained reactor `{name}`", c.name),
        )
    })?;
    let child = class(model, &inst.class)?;
    let tmap = type_map(&child, inst);
    Ok((inst, child, tmap))
}

/// Rust text for the channels (`Vec<Port<T>>`) of a port reference in a connection.
fn channels(
    model: &Model,
    c: &Class<'_>,
    v: &VarRef,
    interleaved: bool,
) -> Result<String, LfError> {
    match &v.container {
        None => {
            if !c.r.ports.iter().any(|p| p.name == v.name) {
                return Err(err_at(
                    model,
                    &c.name,
                    v.at,
                    format!("`{}` has no port `{}`", c.name, v.name),
                ));
            }
            Ok(format!("__h_{}.channels()", v.name))
        }
        Some(ci) => {
            let (inst, child, _) = instance(model, c, ci, v)?;
            if !child.r.ports.iter().any(|p| p.name == v.name) {
                return Err(err_at(
                    model,
                    &c.name,
                    v.at,
                    format!("`{}` has no port `{}`", inst.class, v.name),
                ));
            }
            Ok(match (inst.width.is_some(), interleaved) {
                (false, _) => format!("__c_{ci}.p_{}.channels()", v.name),
                (true, false) => format!(
                    "__c_{ci}.iter().flat_map(|x| x.p_{}.channels()).collect::<Vec<_>>()",
                    v.name
                ),
                (true, true) => format!(
                    "motet_lf_runtime::interleaved(__c_{ci}.iter().map(|x| x.p_{}.channels()).collect())",
                    v.name
                ),
            })
        }
    }
}

/// The type parameters of `child`, the class of `inst`, mapped to the instance's type arguments.
fn type_map(child: &Class<'_>, inst: &Instance) -> Vec<(String, String)> {
    child
        .r
        .type_params
        .iter()
        .map(|(_, n)| n.clone())
        .zip(inst.type_args.iter().cloned())
        .collect()
}
