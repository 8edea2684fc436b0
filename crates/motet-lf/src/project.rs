//! Generated crates on disk: `OUT/NAME/{Cargo.toml, src/main.rs}`, all built into one shared
//! cargo target directory `OUT/target`, so that motet and the runtime are compiled once for every
//! program.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ast::Value;
use crate::error::LfError;
use crate::gen::generate;
use crate::load::{load, Model};

/// The runtime crate generated programs depend on (this workspace's).
fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../motet-lf-runtime")
}

/// A program generated from an `.lf` file.
#[derive(Debug)]
pub struct Generated {
    /// The crate's directory.
    pub dir: PathBuf,
    /// The crate (and binary) name.
    pub name: String,
    /// Built in release mode (`build-type: Release`).
    pub release: bool,
}

impl Generated {
    /// The binary, once built.
    pub fn binary(&self, out: &Path) -> PathBuf {
        let profile = if self.release { "release" } else { "debug" };
        out.join("target").join(profile).join(&self.name)
    }
}

fn crate_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map_or("program".into(), |s| s.to_string_lossy().into_owned());
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    name.insert_str(0, "lf_");
    name
}

fn toml_value(v: &Value) -> String {
    match v {
        Value::Literal(l) => l.clone(),
        Value::Ident(i) => format!("{i:?}"),
        Value::Time(n, u) => format!("\"{n} {u}\""),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        Value::Dict(kv) => format!(
            "{{ {} }}",
            kv.iter()
                .map(|(k, v)| format!("{k:?} = {}", toml_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn cargo_toml(model: &Model, name: &str) -> String {
    let runtime = runtime_dir();
    let mut deps = format!(
        "motet-lf-runtime = {{ path = {:?} }}\n",
        runtime.display().to_string()
    );
    // Bodies of LF's Rust target may log: `log` is a dependency of every program LF generates.
    let mut has_log = false;
    if let Some(Value::Dict(kv)) = model.property("cargo-dependencies") {
        for (k, v) in kv {
            // reactor-rs itself: the runtime of these programs is motet-lf-runtime.
            if k == "reactor_rt" || k == "reactor-rt" {
                continue;
            }
            has_log |= k == "log";
            deps.push_str(&format!("{k} = {}\n", toml_value(v)));
        }
    }
    if !has_log {
        deps.push_str("log = \"0.4\"\n");
    }
    let mut features = String::new();
    if let Some(Value::List(fs)) = model.property("cargo-features") {
        for f in fs {
            if let Value::Literal(s) = f {
                features.push_str(&format!("{s} = []\n"));
            }
        }
    }
    let edition = match model.property("edition") {
        Some(Value::Literal(e)) => e.trim_matches('"').to_string(),
        _ => "2021".into(),
    };
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"{edition}\"\npublish = false\n\n[dependencies]\n{deps}\n[features]\n{features}\n# As the motet workspace builds its own benchmarks.\n[profile.release]\ndebug = 1\ncodegen-units = 1\nlto = \"thin\"\n\n[workspace]\n"
    )
}

/// Loads `lf`, generates its crate under `out`, and returns it (not yet built).
///
/// # Errors
/// Errors of the LF program, or of writing the crate.
pub fn generate_crate(lf: &Path, out: &Path) -> Result<(Model, Generated), LfError> {
    let model = load(lf)?;
    let main_rs = generate(&model)?;
    let name = crate_name(lf);
    let dir = out.join(&name);
    let io = |e: std::io::Error| LfError::file(&dir, format!("cannot write the crate: {e}"));
    std::fs::create_dir_all(dir.join("src")).map_err(io)?;
    write_if_changed(&dir.join("Cargo.toml"), cargo_toml(&model, &name)).map_err(io)?;
    write_if_changed(&dir.join("src/main.rs"), main_rs).map_err(io)?;
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    if lock.exists() && !dir.join("Cargo.lock").exists() {
        std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(io)?;
    }
    for inc in crate::gen::rust_includes(&model) {
        let rel = inc.trim_end_matches('/');
        let from = lf.parent().unwrap_or(Path::new(".")).join(rel);
        let file = Path::new(rel)
            .file_name()
            .map(|f| f.to_os_string())
            .unwrap_or_default();
        if from.is_dir() {
            copy_dir(&from, &dir.join("src").join(&file)).map_err(io)?;
        } else {
            copy_if_changed(&from, &dir.join("src").join(&file)).map_err(io)?;
        }
    }
    let release = match model.property("build-type") {
        Some(Value::Ident(b) | Value::Literal(b)) => {
            matches!(
                b.trim_matches('"'),
                "Release" | "RelWithDebInfo" | "MinSizeRel"
            )
        }
        _ => false,
    };
    Ok((model, Generated { dir, name, release }))
}

/// Writes `contents` to `path` unless the file holds them already, so that generating a crate
/// again leaves its files' modification times, and cargo's build of it, as they were. Returns
/// whether it wrote.
fn write_if_changed(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<bool> {
    let contents = contents.as_ref();
    if std::fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    std::fs::write(path, contents)?;
    Ok(true)
}

fn copy_if_changed(from: &Path, to: &Path) -> std::io::Result<()> {
    write_if_changed(to, std::fs::read(from)?).map(|_| ())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &t)?;
        } else {
            copy_if_changed(&e.path(), &t)?;
        }
    }
    Ok(())
}

/// Builds a generated crate into `out/target`. Returns cargo's diagnostics on failure.
///
/// # Errors
/// The compiler's output when the crate does not build.
pub fn build_crate(g: &Generated, out: &Path, quiet: bool) -> Result<(), String> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(g.dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", out.join("target"));
    if g.release {
        cmd.arg("--release");
    }
    if quiet {
        cmd.arg("--quiet");
    }
    let output = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::write_if_changed;

    #[test]
    fn a_file_is_written_only_when_its_contents_change() {
        let dir = std::env::temp_dir().join(format!("motet-lf-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("main.rs");
        let _ = std::fs::remove_file(&f);
        assert!(write_if_changed(&f, "fn main() {}").unwrap());
        assert!(!write_if_changed(&f, "fn main() {}").unwrap());
        assert!(write_if_changed(&f, "fn main() { }").unwrap());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "fn main() { }");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
