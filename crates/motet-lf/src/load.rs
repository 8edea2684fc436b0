//! Loading a program: the main file, the files it imports (transitively), and the classes they
//! declare, with inheritance (`extends`) resolved by copying each base class's members before the
//! class's own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::ast::{File, Reactor, Value};
use crate::error::LfError;
use crate::parser::parse;

/// A loaded program.
#[derive(Debug)]
pub struct Model {
    /// The main file.
    pub path: PathBuf,
    /// The main file's target properties.
    pub properties: Vec<(String, Value, usize)>,
    /// Preambles of every file, in load order.
    pub preambles: Vec<String>,
    /// Classes by name, inheritance resolved.
    pub classes: BTreeMap<String, Reactor>,
    /// The main reactor's class name (`None` for a library file).
    pub main: Option<String>,
    /// Whether the main reactor is federated.
    pub federated: bool,
    /// The file and text each class was declared in, for error messages.
    pub sources: BTreeMap<String, (PathBuf, std::sync::Arc<str>)>,
}

impl Model {
    /// The value of target property `name`.
    pub fn property(&self, name: &str) -> Option<&Value> {
        self.properties
            .iter()
            .find(|(k, _, _)| k == name)
            .map(|(_, v, _)| v)
    }
}

/// Reads and parses `path`.
///
/// # Errors
/// An unreadable file or a syntax error.
pub fn parse_file(path: &Path) -> Result<(File, String), LfError> {
    let src = std::fs::read_to_string(path)
        .map_err(|e| LfError::file(path, format!("cannot read: {e}")))?;
    let f = parse(path, &src)?;
    Ok((f, src))
}

/// Loads the program whose main file is `path`.
///
/// # Errors
/// Syntax errors, missing imports, unknown base classes, a target other than Rust.
pub fn load(path: &Path) -> Result<Model, LfError> {
    let (file, src) = parse_file(path)?;
    if !file.target.eq_ignore_ascii_case("Rust") {
        return Err(LfError::at(
            path,
            &src,
            0,
            format!(
                "target `{}`: motet-lf takes programs of the Rust target",
                file.target
            ),
        ));
    }
    let mut model = Model {
        path: path.to_path_buf(),
        properties: file.properties.clone(),
        preambles: Vec::new(),
        classes: BTreeMap::new(),
        main: None,
        federated: false,
        sources: BTreeMap::new(),
    };
    let mut seen = Vec::new();
    add_file(&mut model, path, file, &src, &mut seen, true)?;
    resolve_inheritance(&mut model)?;
    Ok(model)
}

fn add_file(
    model: &mut Model,
    path: &Path,
    file: File,
    src: &str,
    seen: &mut Vec<PathBuf>,
    is_main: bool,
) -> Result<(), LfError> {
    let canon = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if seen.contains(&canon) {
        return Ok(());
    }
    seen.push(canon);
    let text: std::sync::Arc<str> = src.into();
    for imp in &file.imports {
        let ipath = path.parent().unwrap_or(Path::new(".")).join(&imp.path);
        if !ipath.exists() {
            return Err(LfError::at(
                path,
                src,
                imp.at,
                format!("imported file `{}` not found", ipath.display()),
            ));
        }
        let (ifile, isrc) = parse_file(&ipath)?;
        let classes: Vec<Reactor> = ifile.reactors.clone();
        add_file(model, &ipath, ifile, &isrc, seen, false)?;
        for (name, alias) in &imp.names {
            let Some(class) = classes.iter().find(|r| r.name.as_deref() == Some(name)) else {
                return Err(LfError::at(
                    path,
                    src,
                    imp.at,
                    format!("`{name}` is not declared in `{}`", imp.path),
                ));
            };
            if let Some(a) = alias {
                let mut c = class.clone();
                c.name = Some(a.clone());
                let origin = model.sources.get(name).cloned();
                if let Some(o) = origin {
                    model.sources.insert(a.clone(), o);
                }
                model.classes.insert(a.clone(), c);
            }
        }
    }
    for p in file.preambles {
        if !model.preambles.contains(&p) {
            model.preambles.push(p);
        }
    }
    for r in file.reactors {
        if r.main {
            if !is_main {
                continue;
            }
            model.federated = r.federated;
            let name = r.name.clone().unwrap_or_else(|| {
                path.file_stem()
                    .map_or("Main".into(), |s| s.to_string_lossy().into_owned())
            });
            model.main = Some(name.clone());
            model
                .sources
                .insert(name.clone(), (path.to_path_buf(), text.clone()));
            let mut r = r;
            r.name = Some(name.clone());
            model.classes.insert(name, r);
        } else if let Some(n) = r.name.clone() {
            model
                .sources
                .entry(n.clone())
                .or_insert_with(|| (path.to_path_buf(), text.clone()));
            model.classes.entry(n).or_insert(r);
        }
    }
    Ok(())
}

fn resolve_inheritance(model: &mut Model) -> Result<(), LfError> {
    let names: Vec<String> = model.classes.keys().cloned().collect();
    for n in names {
        let mut chain = Vec::new();
        let flat = flatten(model, &n, &mut chain)?;
        model.classes.insert(n, flat);
    }
    Ok(())
}

fn flatten(model: &Model, name: &str, chain: &mut Vec<String>) -> Result<Reactor, LfError> {
    let r = model.classes[name].clone();
    if r.extends.is_empty() {
        return Ok(r);
    }
    if chain.iter().any(|c| c == name) {
        return Err(LfError::file(
            &model.path,
            format!("class `{name}` extends itself"),
        ));
    }
    chain.push(name.to_string());
    let mut out = Reactor {
        extends: Vec::new(),
        ..r.clone()
    };
    let mut merged = Reactor::default();
    for (base, _) in &r.extends {
        if !model.classes.contains_key(base) {
            return Err(LfError::file(
                &model.path,
                format!("class `{name}` extends unknown class `{base}`"),
            ));
        }
        let b = flatten(model, base, chain)?;
        merged.params.extend(b.params);
        merged.preambles.extend(b.preambles);
        merged.state.extend(b.state);
        merged.ports.extend(b.ports);
        merged.timers.extend(b.timers);
        merged.actions.extend(b.actions);
        merged.reactions.extend(b.reactions);
        merged.instances.extend(b.instances);
        merged.connections.extend(b.connections);
    }
    chain.pop();
    let own_params: Vec<String> = out.params.iter().map(|p| p.name.clone()).collect();
    merged.params.retain(|p| !own_params.contains(&p.name));
    merged.params.append(&mut out.params);
    out.params = merged.params;
    merged.preambles.append(&mut out.preambles);
    out.preambles = merged.preambles;
    merged.state.append(&mut out.state);
    out.state = merged.state;
    merged.ports.append(&mut out.ports);
    out.ports = merged.ports;
    merged.timers.append(&mut out.timers);
    out.timers = merged.timers;
    merged.actions.append(&mut out.actions);
    out.actions = merged.actions;
    merged.reactions.append(&mut out.reactions);
    out.reactions = merged.reactions;
    merged.instances.append(&mut out.instances);
    out.instances = merged.instances;
    merged.connections.append(&mut out.connections);
    out.connections = merged.connections;
    Ok(out)
}
