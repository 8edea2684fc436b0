//! The text of `motet-savina list`: a matrix of the benchmarks and the models that implement them,
//! and with `--verbose` each benchmark's parameters in full.

use std::fmt::Write as _;

use crate::bench::{Benchmark, Model};
use crate::registry;

/// The mark of a model that implements a benchmark.
const YES: &str = "●";
/// The mark of a model that does not.
const NO: &str = "·";

/// The matrix: one line per benchmark (Savina id, short name, a mark per model, default
/// parameters), one column per model, with a count of implementations per model at the bottom.
pub fn list() -> String {
    let benchmarks = registry::all();
    let name_w = benchmarks
        .iter()
        .map(|b| b.name.len())
        .chain(["benchmark".len()])
        .max()
        .unwrap_or(9);
    let mut out = String::new();
    let mut header = format!("{:>2}  {:<name_w$}", "id", "benchmark");
    for m in Model::ALL {
        let _ = write!(header, "  {}", m.name());
    }
    header.push_str("  parameters (default)");
    out.push_str(header.trim_end());
    out.push('\n');
    for b in benchmarks {
        let id = if b.id == 0 {
            "-".to_string()
        } else {
            b.id.to_string()
        };
        let mut line = format!("{id:>2}  {:<name_w$}", b.name);
        let models: Vec<Model> = (b.variants)().iter().map(|v| v.model).collect();
        for m in Model::ALL {
            let mark = if models.contains(&m) { YES } else { NO };
            let _ = write!(line, "  {}", centred(mark, m.name().len()));
        }
        let _ = write!(line, "  {}", crate::params::Params::defaults(b.params));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let mut totals = format!("{:>2}  {:<name_w$}", "", "implemented");
    for m in Model::ALL {
        let n = benchmarks.iter().filter(|b| b.variant(m).is_some()).count();
        let _ = write!(totals, "  {}", centred(&n.to_string(), m.name().len()));
    }
    out.push_str(totals.trim_end());
    out.push('\n');
    let _ = writeln!(
        out,
        "\n{YES} implemented, {NO} not; id: Savina's number (- for the programs beyond Savina)."
    );
    if !cfg!(feature = "peers") {
        out.push_str(
            "This binary was built without the peers (actix, ractor, kameo): --features peers.\n",
        );
    }
    out.push_str("`motet-savina list --verbose` describes each benchmark and its parameters.\n");
    out
}

/// `text` centred in `width` columns (counted in characters).
fn centred(text: &str, width: usize) -> String {
    let len = text.chars().count();
    let left = (width + 1).saturating_sub(len) / 2;
    let right = width.saturating_sub(len + left);
    format!("{}{text}{}", " ".repeat(left), " ".repeat(right))
}

/// Every benchmark in full: id, name, title, each parameter (default, small, meaning), models.
pub fn list_verbose() -> String {
    let mut out = String::new();
    for b in registry::all() {
        describe(&mut out, b);
    }
    let models: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
    let _ = writeln!(out, "model names: {}", models.join(", "));
    out
}

/// One benchmark's entry in `list --verbose`.
fn describe(out: &mut String, b: &Benchmark) {
    let _ = writeln!(out, "{:>2} {:<12} {}", b.id, b.name, b.title);
    for p in b.params {
        let _ = writeln!(
            out,
            "   {:<4} default {:<9} small {:<9} {}",
            p.name, p.default, p.small, p.help
        );
    }
    let models: Vec<&str> = (b.variants)().iter().map(|v| v.model.name()).collect();
    let _ = writeln!(out, "   models: {}\n", models.join(", "));
}

#[cfg(test)]
mod tests {
    use super::{centred, list, list_verbose};
    use crate::bench::Model;
    use crate::registry;

    #[test]
    fn the_matrix_marks_each_model_of_each_benchmark() {
        let text = list();
        let lines: Vec<&str> = text.lines().collect();
        let header = lines[0];
        assert!(header.starts_with("id  benchmark"), "{header}");
        for m in Model::ALL {
            assert!(header.contains(m.name()), "{header}");
        }
        for (b, line) in registry::all().iter().zip(&lines[1..]) {
            assert!(line.contains(&format!(" {} ", b.name)), "{line}");
            // The marks sit under the middle of the model names.
            let models: Vec<Model> = (b.variants)().iter().map(|v| v.model).collect();
            for m in Model::ALL {
                let start = header.find(&format!("  {}", m.name())).unwrap() + 2;
                let mark = line.chars().nth(start + m.name().len() / 2);
                let expected = if models.contains(&m) { '●' } else { '·' };
                assert_eq!(mark, Some(expected), "{m} in {line}");
            }
            assert_eq!(line.matches('●').count(), models.len(), "{line}");
        }
        let pingpong = lines.iter().find(|l| l.contains(" pingpong ")).unwrap();
        assert!(
            pingpong.trim_start().starts_with("1  pingpong"),
            "{pingpong}"
        );
        assert!(pingpong.ends_with("n=40000 p=1"), "{pingpong}");
        let totals = lines.iter().find(|l| l.contains("implemented")).unwrap();
        assert!(
            totals.contains(&registry::all().len().to_string()),
            "{totals}"
        );
    }

    #[test]
    fn centring_pads_both_sides() {
        assert_eq!(centred("●", 5), "  ●  ");
        assert_eq!(centred("12", 5), "  12 ");
        assert_eq!(centred("●", 6), "   ●  ");
        assert_eq!(centred("toolong", 3), "toolong");
    }

    #[test]
    fn the_verbose_list_names_every_parameter() {
        let text = list_verbose();
        assert!(text.contains(" 1 pingpong"));
        assert!(text.contains(" 7 big"));
        let models: Vec<&str> = text.lines().filter(|l| l.contains("models: ")).collect();
        assert_eq!(models.len(), registry::all().len());
        assert!(models.iter().all(|l| l.contains("floor")), "{text}");
        assert!(
            text.contains("n    default 40000     small 4000      round trips"),
            "{text}"
        );
    }
}
