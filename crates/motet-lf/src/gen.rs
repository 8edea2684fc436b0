//! The generator: a loaded [`Model`] becomes the `main.rs` of a Rust crate that declares the
//! program on motet-reactor's `ProgramBuilder` and runs it with its `Runner`, through
//! motet-lf-runtime's reactor-rs names.
//!
//! Each class `C` becomes a struct `R_C` holding its state variables, whose methods are the
//! reaction bodies, verbatim, with reactor-rs's signature (`ctx` and one handle per declared
//! element); an interface struct `I_C` holding its ports' handles; and a function `build_C` that
//! declares one instance (state, ports, timers, actions, contained reactors, connections,
//! reactions) and returns its interface.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::ast::{Expr, Reactor, TriggerRef, Value, VarRef};
use crate::error::LfError;
use crate::load::Model;

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try",
];

/// `name` as a Rust identifier (keywords raw: `r#in`).
pub fn esc(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The module of class `name`, in snake case as reactor-rs names it (`SomethingWithAPreamble`
/// becomes `something_with_a_preamble`), so that bodies' `super::module::item` paths resolve.
pub fn module_name(name: &str) -> String {
    let cs: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in cs.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| cs[j]);
            let next = cs.get(i + 1);
            let split = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(char::is_uppercase) && next.is_some_and(|n| n.is_lowercase()));
            if split {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    esc(&out)
}

/// An error at position `at` of the file that declares class `class`.
fn err_at(model: &Model, class: &str, at: usize, msg: String) -> LfError {
    match model.sources.get(class) {
        Some((path, src)) => LfError::at(path, src, at, msg),
        None => err(model, msg),
    }
}

fn err(model: &Model, msg: String) -> LfError {
    LfError::file(&model.path, msg)
}

/// Rust text for `e`, of type `ty` where known (`Duration` turns a bare `0` into zero time, and
/// `Vec<..>` a list into `vec![..]`).
fn expr(e: &Expr, ty: Option<&str>) -> String {
    let is_time = ty == Some("Duration");
    match e {
        Expr::Literal(l) if is_time && l == "0" => "motet_lf_runtime::Duration::ZERO".into(),
        Expr::Literal(l) if ty == Some("String") && l.starts_with('"') => {
            format!("{l}.to_string()")
        }
        Expr::Literal(l) => l.clone(),
        Expr::Time(n, u) => format!("motet_lf_runtime::delay!({n} {u})"),
        Expr::Ident(s) => format!("{}.clone()", esc(s)),
        Expr::Code(c) => format!("({c})"),
        Expr::List(items) => {
            let inner: Vec<String> = items.iter().map(|i| expr(i, None)).collect();
            if ty.is_some_and(|t| t.starts_with("Vec<")) {
                format!("vec![{}]", inner.join(", "))
            } else {
                format!("[{}]", inner.join(", "))
            }
        }
    }
}

/// The type of an untyped parameter or state variable, from its initializer.
fn infer(e: &Expr, params: &[(String, String)]) -> Option<String> {
    match e {
        Expr::Time(..) => Some("Duration".into()),
        Expr::Ident(s) => params.iter().find(|(n, _)| n == s).map(|(_, t)| t.clone()),
        Expr::Literal(l) if l == "true" || l == "false" => Some("bool".into()),
        Expr::Literal(l) if l.starts_with('"') => Some("&'static str".into()),
        Expr::Literal(l) if l.contains('.') || l.contains('e') => Some("f64".into()),
        Expr::Literal(_) => Some("i32".into()),
        _ => None,
    }
}

fn width(terms: &[Expr]) -> String {
    let parts: Vec<String> = terms
        .iter()
        .map(|t| format!("({}) as usize", expr(t, None)))
        .collect();
    format!("({})", parts.join(" + "))
}

/// Replaces whole-word occurrences of the type parameters in `ty`.
fn subst(ty: &str, map: &[(String, String)]) -> String {
    if map.is_empty() {
        return ty.to_string();
    }
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some((_, v)) = map.iter().find(|(k, _)| k == word) {
            out.push_str(v);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in ty.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

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
        let ty = match (&p.ty, &p.default) {
            (Some(t), _) => t.clone(),
            (None, Some(d)) => infer(d, &params).ok_or_else(|| {
                err(
                    model,
                    format!("parameter `{}` of `{name}` needs a type", p.name),
                )
            })?,
            (None, None) => {
                return Err(err(
                    model,
                    format!("parameter `{}` of `{name}` needs a type", p.name),
                ))
            }
        };
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

/// One element a reaction declares, as its body sees it.
struct Dep {
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

fn emit_class(model: &Model, c: &Class<'_>, out: &mut String) -> Result<(), LfError> {
    let r = c.r;
    let (gd, gu) = (&c.generics_decl, &c.generics_use);
    let gdecl = if gd.is_empty() {
        String::new()
    } else {
        format!("<{gd}>")
    };
    let phantom = format!(
        "std::marker::PhantomData<fn() -> ({})>",
        r.type_params
            .iter()
            .map(|(_, n)| format!("{n},"))
            .collect::<String>()
    );
    // The state struct.
    let mut state_types = Vec::new();
    for s in &r.state {
        let ty = match (&s.ty, &s.init) {
            (Some(t), _) => t.clone(),
            (None, Some(e)) => infer(e, &c.params).ok_or_else(|| {
                err(
                    model,
                    format!("state variable `{}` of `{}` needs a type", s.name, c.name),
                )
            })?,
            (None, None) => {
                return Err(err(
                    model,
                    format!("state variable `{}` of `{}` needs a type", s.name, c.name),
                ))
            }
        };
        state_types.push(ty);
    }
    let _ = writeln!(out, "pub mod {} {{\n#![allow(unused, non_snake_case, non_camel_case_types, clippy::all)]\nuse super::*;\nuse motet_lf_runtime::prelude::*;\nuse motet_lf_runtime::{{Declarable as _, Role}};\nuse motet_lf_runtime::motet::{{ProgramBuilder, ReactorId}};\n", module_name(&c.name));
    for p in &r.preambles {
        let _ = writeln!(out, "// preamble\n{}\n", p.trim());
    }
    let _ = writeln!(
        out,
        "pub struct R_{}{gdecl} {{\n    __phantom: {phantom},",
        c.name
    );
    for (s, ty) in r.state.iter().zip(&state_types) {
        let _ = writeln!(out, "    pub {}: {ty},", esc(&s.name));
    }
    out.push_str("}\n\n");
    // The interface.
    let _ = writeln!(
        out,
        "pub struct I_{}{gdecl} {{\n    __phantom: {phantom},",
        c.name
    );
    for p in &r.ports {
        let kind = if p.width.is_some() {
            "Multiport"
        } else {
            "Port"
        };
        let _ = writeln!(out, "    pub p_{}: {kind}<{}>,", p.name, p.ty);
    }
    out.push_str("}\n\n");
    // Reaction bodies.
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
    // The builder function.
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
    for (s, ty) in r.state.iter().zip(&state_types) {
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
        turbo = if gu.is_empty() {
            String::new()
        } else {
            format!("::{gu}")
        }
    );
    out.push_str("    let __rid = match __parent { Some(p) => __b.child(p, __name, __state), None => __b.reactor(__name, __state) };\n");
    // Ports.
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
        let off = t
            .offset
            .as_ref()
            .map_or("motet_lf_runtime::Duration::ZERO".into(), |e| {
                expr(e, Some("Duration"))
            });
        let per = t
            .period
            .as_ref()
            .map_or("motet_lf_runtime::Duration::ZERO".into(), |e| {
                expr(e, Some("Duration"))
            });
        let _ = writeln!(
            out,
            "    let __h_{n} = Timer(__b.timer(__rid, \"{n}\", {off}, {per}));",
            n = t.name
        );
    }
    for a in &r.actions {
        let ty = a.ty.clone().unwrap_or_else(|| "()".into());
        let d = a
            .min_delay
            .as_ref()
            .map_or("motet_lf_runtime::Duration::ZERO".into(), |e| {
                expr(e, Some("Duration"))
            });
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
    // Contained reactors.
    for inst in &r.instances {
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
        let tmap: Vec<(String, String)> = child
            .r
            .type_params
            .iter()
            .map(|(_, n)| n.clone())
            .zip(inst.type_args.iter().cloned())
            .collect();
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
    // Connections.
    for conn in &r.connections {
        let side = |list: &[crate::ast::PortRef]| -> Result<String, LfError> {
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
    // Reactions.
    for (i, (re, deps)) in r.reactions.iter().zip(&deps_of).enumerate() {
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
    let _ = writeln!(
        out,
        "    I_{}{} {{\n        __phantom: std::marker::PhantomData,",
        c.name,
        if gu.is_empty() {
            String::new()
        } else {
            format!("::{gu}")
        }
    );
    for p in &r.ports {
        let _ = writeln!(out, "        p_{0}: __h_{0}.clone(),", p.name);
    }
    out.push_str("    }\n}\n}\n\n");
    Ok(())
}

/// A contained reactor, its class, and the class's type parameters mapped to the instance's
/// type arguments.
type InstanceOf<'m> = (&'m crate::ast::Instance, Class<'m>, Vec<(String, String)>);

/// The contained reactor named `name`, and its class with the instance's type arguments.
fn instance<'m>(
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
    let tmap = child
        .r
        .type_params
        .iter()
        .map(|(_, n)| n.clone())
        .zip(inst.type_args.iter().cloned())
        .collect();
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

fn reaction_deps(
    model: &Model,
    c: &Class<'_>,
    re: &crate::ast::Reaction,
) -> Result<Vec<Dep>, LfError> {
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
                let kind = if p.width.is_some() {
                    "Multiport"
                } else {
                    "Port"
                };
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
                let kind = if p.width.is_some() {
                    "Multiport"
                } else {
                    "Port"
                };
                Ok(base(
                    param,
                    format!("{kind}<{ty}>"),
                    format!("__c_{ci}.p_{}.clone()", v.name),
                ))
            }
        }
    }
}

/// Types known to be `Copy`, whose ports can be shadowed (see `Port::shadowed`).
const COPY_TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "()", "unit", "Duration",
];

const PARSEABLE: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "String", "Duration",
];

fn emit_main(model: &Model, c: &Class<'_>, out: &mut String) -> Result<(), LfError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            module_name("SomethingWithAPreamble"),
            "something_with_a_preamble"
        );
        assert_eq!(module_name("Source"), "source");
        assert_eq!(module_name("HelloWorld2"), "hello_world2");
        assert_eq!(module_name("In"), "r#in");
        assert_eq!(esc("struct"), "r#struct");
        assert_eq!(esc("x"), "x");
    }

    #[test]
    fn type_arguments_replace_whole_words() {
        let map = vec![("T".to_string(), "u32".to_string())];
        assert_eq!(subst("Vec<T>", &map), "Vec<u32>");
        assert_eq!(subst("Tx<T, [T; 2]>", &map), "Tx<u32, [u32; 2]>");
    }

    #[test]
    fn expressions_follow_their_type() {
        assert_eq!(
            expr(&Expr::Literal("0".into()), Some("Duration")),
            "motet_lf_runtime::Duration::ZERO"
        );
        assert_eq!(expr(&Expr::Literal("0".into()), Some("u32")), "0");
        assert_eq!(
            expr(&Expr::Time("10".into(), "msec".into()), None),
            "motet_lf_runtime::delay!(10 msec)"
        );
        let list = Expr::List(vec![Expr::Literal("1".into()), Expr::Literal("2".into())]);
        assert_eq!(expr(&list, Some("Vec<u32>")), "vec![1, 2]");
        assert_eq!(expr(&list, Some("[u32; 2]")), "[1, 2]");
        assert_eq!(
            expr(&Expr::Literal("\"a\"".into()), Some("String")),
            "\"a\".to_string()"
        );
    }

    #[test]
    fn untyped_state_takes_its_parameter_type() {
        let params = vec![("n".to_string(), "usize".to_string())];
        assert_eq!(
            infer(&Expr::Ident("n".into()), &params).as_deref(),
            Some("usize")
        );
        assert_eq!(
            infer(&Expr::Time("1".into(), "s".into()), &params).as_deref(),
            Some("Duration")
        );
        assert_eq!(infer(&Expr::Code("x".into()), &params), None);
    }
}
