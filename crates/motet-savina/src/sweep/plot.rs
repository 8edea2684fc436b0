//! The plot of a sweep (`sweep --plot FILE.svg`): the median time of every (model, threads) over
//! the swept parameter, both axes logarithmic, as the Effpi thesis draws its figures.
//!
//! One line with a marker per point for each series, in the model colours of the run chart
//! ([`chart`](crate::chart)), lighter for more workers; points that did not validate are left out.
//! Drawn with plotters' SVG backend and no font feature, like the run chart.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{number, Sweep};
use crate::bench::Model;
use crate::chart::shade;
use crate::record::Record;
use crate::report::Setting;

const WIDTH: u32 = 860;
const HEIGHT: u32 = 560;
/// Space above the plot for the title and the legend.
const TOP: u32 = 100;

/// One curve: a series and its validated (point, median ms) pairs, in point order.
struct Curve {
    model: Model,
    threads: usize,
    points: Vec<(f64, f64)>,
}

fn curves(sweep: &Sweep, records: &[Record]) -> Vec<Curve> {
    sweep
        .series(records)
        .into_iter()
        .map(|(model, threads)| {
            let mut points: Vec<(f64, f64)> = records
                .iter()
                .filter(|r| r.model == model && r.threads == threads)
                .filter(|r| r.validated && r.median_ms.is_finite() && r.median_ms > 0.0)
                .map(|r| (sweep.point_of(r), r.median_ms))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Curve {
                model,
                threads,
                points,
            }
        })
        .filter(|c| !c.points.is_empty())
        .collect()
}

/// Whole decades around `values` (at least one decade wide).
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

/// The plot of `records` (the cells of `sweep`) as an SVG document.
pub fn svg(sweep: &Sweep, records: &[Record], setting: &Setting) -> String {
    let curves = curves(sweep, records);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        // Drawing into a string cannot fail; an error here would be a bug in the layout.
        if let Err(e) = draw(&root, sweep, &curves, setting) {
            let _ = root.draw(&Text::new(
                format!("cannot draw the plot: {e}"),
                (70, TOP as i32),
                ("sans-serif", 14),
            ));
        }
        let _ = root.present();
    }
    text
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn draw(
    root: &Area<'_>,
    sweep: &Sweep,
    curves: &[Curve],
    setting: &Setting,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let fixed = sweep.fixed();
    let title = format!(
        "motet-savina sweep: {} over {}{} (median ms, log-log)",
        sweep.benchmark.name,
        sweep.param,
        if fixed.is_empty() {
            String::new()
        } else {
            format!(", {fixed}")
        }
    );
    root.draw(&Text::new(
        title,
        (70, 12),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))?;
    let m = &setting.machine;
    root.draw(&Text::new(
        format!("{} · {} · {}", m.summary(), m.rustc, m.date),
        (70, 38),
        ("sans-serif", 12).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    if curves.is_empty() {
        root.draw(&Text::new(
            "Nothing to draw: no point validated.",
            (70, (TOP + 40) as i32),
            ("sans-serif", 14),
        ))?;
        return Ok(());
    }
    legend(root, curves)?;
    let (x_lo, x_hi) = decades(sweep.points.iter().map(|(v, _)| *v));
    let (y_lo, y_hi) = decades(curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(root)
        .margin_top(TOP)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(sweep.param)
        .y_desc("median ms")
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| format!("{v}"))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .label_style(("sans-serif", 12))
        .draw()?;
    for curve in curves {
        let colour = curve_colour(curves, curve);
        chart.draw_series(std::iter::once(PathElement::new(
            curve.points.clone(),
            colour.stroke_width(2),
        )))?;
        chart.draw_series(
            curve
                .points
                .iter()
                .map(|&p| Circle::new(p, 3, colour.filled())),
        )?;
    }
    Ok(())
}

/// A curve's colour: its model's, lighter for each higher thread count of the same model.
fn curve_colour(curves: &[Curve], curve: &Curve) -> RGBColor {
    let same: Vec<usize> = curves
        .iter()
        .filter(|c| c.model == curve.model)
        .map(|c| c.threads)
        .collect();
    let rank = same.iter().filter(|&&t| t < curve.threads).count();
    shade(curve.model, rank, same.len())
}

/// The legend under the title: a line swatch and `model (threads)` per curve.
fn legend(root: &Area<'_>, curves: &[Curve]) -> Result<(), Box<dyn std::error::Error>> {
    let y = 66;
    let mut x = 70;
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    for curve in curves {
        let colour = curve_colour(curves, curve);
        root.draw(&PathElement::new(
            [(x, y + 6), (x + 20, y + 6)],
            colour.stroke_width(2),
        ))?;
        root.draw(&Circle::new((x + 10, y + 6), 3, colour.filled()))?;
        let label = if curve.model.is_sequential() {
            curve.model.name().to_string()
        } else {
            format!("{} ({})", curve.model.name(), curve.threads)
        };
        root.draw(&Text::new(label.clone(), (x + 26, y), font.clone()))?;
        x += 26 + 7 * label.chars().count() as i32 + 16;
    }
    Ok(())
}
