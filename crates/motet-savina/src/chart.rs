//! The chart of a run (`--plot FILE.svg`): every model's median time over the sequential floor's,
//! one group of bars per benchmark, on a log scale.
//!
//! A bar per (model, thread count), coloured by model (motet's models in blues and greens, the
//! peers in warm colours), darker for fewer workers; a line marks the floor (1×), so a bar's
//! height says how many times the floor's time a model took, lower is faster, and bars in one
//! group compare the models on that benchmark. Benchmarks without a validated floor run are left
//! out, and failed runs draw no bar.
//!
//! It is drawn with plotters' SVG backend and no font feature: plotters then estimates text sizes
//! itself instead of loading fonts, so the binary needs no font files or fontconfig, and the SVG
//! names a generic `sans-serif` family that any viewer has.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::bench::Model;
use crate::record::Record;
use crate::report::{lookup, row_keys, Setting};

/// Pixels per bar, and the least width of a group.
const BAR_W: u32 = 10;
/// Height of the plotting area.
const PLOT_H: u32 = 380;
/// Space above the plot for the title and the legend.
const TOP: u32 = 96;
/// Width of the y axis labels.
const LEFT: u32 = 70;

/// What the chart shows: the benchmarks, the bar series and each bar's ratio.
struct Data {
    /// The benchmarks with a validated floor, in run order.
    benchmarks: Vec<&'static str>,
    /// The bar series: (model, worker threads), in report order.
    series: Vec<(Model, usize)>,
    /// `ratios[b][s]`: series `s`'s median over the floor's on benchmark `b`.
    ratios: Vec<Vec<Option<f64>>>,
}

impl Data {
    fn new(records: &[Record]) -> Data {
        let valid = |b: &str, m: Model, t: usize| {
            lookup(records, b, m, t)
                .filter(|r| r.validated && r.median_ms.is_finite() && r.median_ms > 0.0)
                .map(|r| r.median_ms)
        };
        let mut benchmarks: Vec<&'static str> = Vec::new();
        for (b, _) in row_keys(records) {
            if !benchmarks.contains(&b) && valid(b, Model::Floor, 1).is_some() {
                benchmarks.push(b);
            }
        }
        let mut threads: Vec<usize> = records.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        let mut series = Vec::new();
        // Headline models only: tuned programs are shown apart, in the tables.
        for m in Model::ALL
            .into_iter()
            .filter(|m| !m.is_sequential() && !m.is_tuned())
        {
            for &t in &threads {
                if benchmarks.iter().any(|b| valid(b, m, t).is_some()) {
                    series.push((m, t));
                }
            }
        }
        let ratios = benchmarks
            .iter()
            .map(|b| {
                let floor = valid(b, Model::Floor, 1).expect("benchmarks have a floor");
                series
                    .iter()
                    .map(|&(m, t)| valid(b, m, t).map(|v| v / floor))
                    .collect()
            })
            .collect();
        Data {
            benchmarks,
            series,
            ratios,
        }
    }

    /// The y range: whole decades around every ratio and the floor's 1.
    fn y_range(&self) -> (f64, f64) {
        let all = self.ratios.iter().flatten().flatten().copied();
        let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (
            10f64.powf((lo / 1.2).log10().floor()),
            10f64.powf((hi * 1.2).log10().ceil()),
        )
    }
}

/// The chart of `records` as an SVG document.
pub fn svg(records: &[Record], setting: &Setting) -> String {
    let data = Data::new(records);
    let groups = data.benchmarks.len().max(1) as u32;
    let group_w = (BAR_W * data.series.len() as u32 + 16).max(44);
    let longest = data.benchmarks.iter().map(|b| b.len()).max().unwrap_or(8) as u32;
    let bottom = 7 * longest + 24;
    let width = (LEFT + groups * group_w + 30).max(720);
    let height = TOP + PLOT_H + bottom;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
        // Drawing into a string cannot fail; an error here would be a bug in the layout.
        if let Err(e) = draw(&root, &data, setting, bottom) {
            let _ = root.draw(&Text::new(
                format!("cannot draw the chart: {e}"),
                (LEFT as i32, TOP as i32),
                ("sans-serif", 14),
            ));
        }
        let _ = root.present();
    }
    text
}

/// The fill colour of `model`.
fn colour(model: Model) -> RGBColor {
    match model {
        Model::Actor => RGBColor(31, 97, 170),
        Model::Boc => RGBColor(35, 140, 85),
        Model::Reactor => RGBColor(110, 80, 170),
        Model::ReactorLevel => RGBColor(150, 120, 200),
        Model::Process => RGBColor(20, 150, 160),
        Model::Floor | Model::FloorTuned | Model::FloorLoop => RGBColor(0, 0, 0),
        Model::ActorTuned => RGBColor(100, 150, 210),
        Model::BocTuned => RGBColor(100, 190, 140),
        Model::ProcessTuned => RGBColor(90, 190, 200),
        Model::Actix => RGBColor(205, 60, 50),
        Model::ActixOne => RGBColor(225, 110, 100),
        Model::Ractor => RGBColor(235, 140, 30),
        Model::Kameo => RGBColor(190, 90, 150),
    }
}

/// `model`'s colour for the `rank`-th of `of` thread counts: the first full, later ones lighter.
pub(crate) fn shade(model: Model, rank: usize, of: usize) -> RGBColor {
    let RGBColor(r, g, b) = colour(model);
    let f = if of <= 1 {
        0.0
    } else {
        0.55 * rank as f64 / (of - 1) as f64
    };
    let mix = |c: u8| (c as f64 + (255.0 - c as f64) * f).round() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

/// A ratio label on the y axis: `0.1×`, `1×`, `100×`.
fn ratio_label(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}×")
    } else {
        let s = format!("{v:.4}");
        format!("{}×", s.trim_end_matches('0').trim_end_matches('.'))
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws the whole chart on `root`.
fn draw(
    root: &Area<'_>,
    data: &Data,
    setting: &Setting,
    bottom: u32,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let m = &setting.machine;
    root.draw(&Text::new(
        "motet-savina: median time over the sequential floor's (log scale, lower is faster)",
        (LEFT as i32, 12),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))?;
    root.draw(&Text::new(
        format!("{} · {} · {}", m.summary(), m.rustc, m.date),
        (LEFT as i32, 38),
        ("sans-serif", 12).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    legend(root, data)?;
    if data.series.is_empty() {
        root.draw(&Text::new(
            "Nothing to draw: no benchmark has both a validated floor run and another model's.",
            (LEFT as i32, (TOP + 40) as i32),
            ("sans-serif", 14),
        ))?;
        return Ok(());
    }
    let (lo, hi) = data.y_range();
    let n = data.benchmarks.len();
    let mut chart = ChartBuilder::on(root)
        .margin_top(TOP)
        .margin_right(30)
        .x_label_area_size(bottom)
        .y_label_area_size(LEFT - 10)
        .build_cartesian_2d(0f64..n as f64, (lo * 0.999..hi * 1.001).log_scale())?;
    // Every other group on a light band, so that the eye finds each benchmark's bars.
    chart.draw_series((0..n).filter(|i| i % 2 == 1).map(|i| {
        Rectangle::new(
            [(i as f64, lo), (i as f64 + 1.0, hi)],
            RGBColor(246, 246, 246).filled(),
        )
    }))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_formatter(&|v| ratio_label(*v))
        .y_desc("time / floor's time")
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .label_style(("sans-serif", 12))
        .draw()?;
    let bars = data.series.len() as f64;
    let bar_w = (0.76 / bars).min(0.16);
    let pad = (1.0 - bar_w * bars) / 2.0;
    let threads_of = |m: Model| data.series.iter().filter(|s| s.0 == m).count();
    for (s, &(model, threads)) in data.series.iter().enumerate() {
        let rank = data
            .series
            .iter()
            .filter(|x| x.0 == model && x.1 < threads)
            .count();
        let fill = shade(model, rank, threads_of(model));
        chart.draw_series(data.ratios.iter().enumerate().filter_map(|(b, row)| {
            let v = row[s]?;
            let x0 = b as f64 + pad + s as f64 * bar_w;
            Some(Rectangle::new(
                [(x0, lo), (x0 + bar_w * 0.9, v)],
                fill.filled(),
            ))
        }))?;
    }
    chart.draw_series(std::iter::once(PathElement::new(
        [(0.0, 1.0), (n as f64, 1.0)],
        BLACK.stroke_width(2),
    )))?;
    let label = ("sans-serif", 13)
        .into_font()
        .transform(FontTransform::Rotate90)
        .color(&BLACK);
    for (i, name) in data.benchmarks.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, lo));
        root.draw(&Text::new(*name, (x + 5, y + 8), label.clone()))?;
    }
    Ok(())
}

/// The legend under the title: a swatch per (model, thread count), grouped by model, and the
/// floor's line.
fn legend(root: &Area<'_>, data: &Data) -> Result<(), Box<dyn std::error::Error>> {
    let y = 62;
    let mut x = LEFT as i32;
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    let mut models: Vec<Model> = data.series.iter().map(|s| s.0).collect();
    models.dedup();
    for model in models {
        let counts: Vec<usize> = data
            .series
            .iter()
            .filter(|s| s.0 == model)
            .map(|s| s.1)
            .collect();
        for (rank, _) in counts.iter().enumerate() {
            let fill = shade(model, rank, counts.len());
            root.draw(&Rectangle::new([(x, y), (x + 10, y + 12)], fill.filled()))?;
            x += 12;
        }
        let workers: Vec<String> = counts.iter().map(|t| t.to_string()).collect();
        let text = format!("{} ({})", model.name(), workers.join(", "));
        root.draw(&Text::new(text.clone(), (x + 4, y), font.clone()))?;
        x += 4 + 6 * text.chars().count() as i32 + 14;
    }
    root.draw(&PathElement::new(
        [(x, y + 6), (x + 22, y + 6)],
        BLACK.stroke_width(2),
    ))?;
    root.draw(&Text::new(
        "floor (1×)",
        (x + 28, y),
        font.clone().pos(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    root.draw(&Text::new(
        "(N, M): the worker threads of each model's bars, darkest first",
        (LEFT as i32, y + 18),
        ("sans-serif", 11)
            .into_font()
            .color(&RGBColor(110, 110, 110)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{ratio_label, shade, svg, Data};
    use crate::bench::Model;
    use crate::report::{test_record as rec, test_setting, Setting};

    fn setting() -> Setting {
        test_setting(None, "")
    }

    #[test]
    fn ratios_are_over_the_floor_and_failed_runs_have_no_bar() {
        let mut failed = rec("big", Model::Kameo, 1, 9.0);
        failed.validated = false;
        let records = [
            rec("count", Model::Floor, 1, 2.0),
            rec("count", Model::Actor, 1, 4.0),
            rec("count", Model::Actor, 2, 8.0),
            rec("count", Model::Kameo, 1, 40.0),
            rec("big", Model::Floor, 1, 1.0),
            rec("big", Model::Actor, 1, 0.5),
            failed,
            // No floor: left out.
            rec("pingpong", Model::Actor, 1, 1.0),
        ];
        let data = Data::new(&records);
        assert_eq!(data.benchmarks, ["count", "big"]);
        assert_eq!(
            data.series,
            [(Model::Actor, 1), (Model::Actor, 2), (Model::Kameo, 1)]
        );
        assert_eq!(data.ratios[0], [Some(2.0), Some(4.0), Some(20.0)]);
        assert_eq!(data.ratios[1], [Some(0.5), None, None]);
        assert_eq!(data.y_range(), (0.1, 100.0));
    }

    #[test]
    fn the_svg_has_the_title_the_legend_and_the_benchmark_names() {
        let records = [
            rec("count", Model::Floor, 1, 2.0),
            rec("count", Model::Actor, 1, 4.0),
            rec("count", Model::Kameo, 2, 40.0),
        ];
        let text = svg(&records, &setting());
        assert!(text.starts_with("<svg"), "{}", &text[..100.min(text.len())]);
        assert!(text.trim_end().ends_with("</svg>"));
        for needle in [
            "median time over the sequential floor",
            "Test CPU",
            "\ncount\n",
            "actor (1)",
            "kameo (2)",
            "floor (1×)",
            "rect",
        ] {
            assert!(text.contains(needle), "{needle} missing");
        }
    }

    #[test]
    fn an_empty_run_still_makes_a_document() {
        let text = svg(&[], &setting());
        assert!(text.contains("Nothing to draw"));
        assert!(text.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn labels_and_shades() {
        assert_eq!(ratio_label(100.0), "100×");
        assert_eq!(ratio_label(0.1), "0.1×");
        assert_eq!(ratio_label(0.01), "0.01×");
        assert_eq!(shade(Model::Actor, 0, 2), super::colour(Model::Actor));
        assert_ne!(shade(Model::Actor, 1, 2), super::colour(Model::Actor));
    }
}
