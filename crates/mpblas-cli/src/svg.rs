//! The small SVG toolkit the reproductions' plots share: log-scale panels with a frame, a grid
//! of decade ticks and axis titles, and XML escaping. Each plot (`reproduce ozaki`'s panels of
//! time against error, `reproduce sum`'s error against condition number) draws its own points
//! and legend on top.

use std::fmt::Write as _;

/// `text` with the XML special characters escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The whole decades `(lo, hi)` spanning `log10` values (at least one decade wide), or `(0, 1)`
/// when there are none. The values must be finite (callers filter).
pub fn decade_range(log10_values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in log10_values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo.is_finite() {
        (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
    } else {
        (0.0, 1.0)
    }
}

/// A tick step of 1, 2, 3, 5, 10, 20, 50 or 100 decades giving at most about `ticks` ticks over
/// `(lo, hi)`, and the range widened to whole steps.
pub fn decade_ticks((lo, hi): (f64, f64), ticks: f64) -> (f64, (f64, f64)) {
    let want = (hi - lo) / ticks.max(1.0);
    let step = [1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .find(|&s| s >= want)
        .unwrap_or(100.0);
    let lo = (lo / step).floor() * step;
    let hi = ((hi / step).ceil() * step).max(lo + step);
    (step, (lo, hi))
}

/// One log-log plot area: its top-left corner and size in pixels, and the `log10` ranges its
/// axes span.
#[derive(Clone, Copy, Debug)]
pub struct Panel {
    /// Left edge.
    pub ox: f64,
    /// Top edge.
    pub oy: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// `log10` range of the x axis.
    pub x: (f64, f64),
    /// `log10` range of the y axis.
    pub y: (f64, f64),
}

impl Panel {
    /// The pixel column of `log10` value `lx`.
    pub fn px(&self, lx: f64) -> f64 {
        self.ox + (lx - self.x.0) / (self.x.1 - self.x.0) * self.w
    }

    /// The pixel row of `log10` value `ly`.
    pub fn py(&self, ly: f64) -> f64 {
        self.oy + self.h - (ly - self.y.0) / (self.y.1 - self.y.0) * self.h
    }

    /// The frame, grid lines and `1e{k}` tick labels every `xstep`/`ystep` decades, and the
    /// axis titles.
    pub fn axes(&self, s: &mut String, xstep: f64, ystep: f64, x_title: &str, y_title: &str) {
        let (ox, oy, pw, ph) = (self.ox, self.oy, self.w, self.h);
        let _ = writeln!(
            s,
            r#"<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
        );
        let mut x = self.x.0;
        while x <= self.x.1 + 1e-9 {
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">1e{4}</text>"##,
                self.px(x),
                oy,
                oy + ph,
                oy + ph + 14.0,
                x as i64
            );
            x += xstep;
        }
        let mut y = self.y.0;
        while y <= self.y.1 + 1e-9 {
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">1e{5}</text>"##,
                ox,
                self.py(y),
                ox + pw,
                ox - 5.0,
                self.py(y) + 4.0,
                y as i64
            );
            y += ystep;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            ox + pw / 2.0,
            oy + ph + 30.0,
            escape(x_title)
        );
        let _ = writeln!(
            s,
            r#"<text x="{0}" y="{1}" text-anchor="middle" transform="rotate(-90 {0} {1})">{2}</text>"#,
            ox - 45.0,
            oy + ph / 2.0,
            escape(y_title)
        );
    }
}

/// The opening `<svg>` element of a `w`×`h` drawing on a white background, with `title` at the
/// top left (`x` from the left edge).
pub fn open(s: &mut String, w: f64, h: f64, x: f64, title: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{x}" y="24" font-size="15">{}</text>"#,
        escape(title)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_escapes() {
        assert_eq!(decade_range([]), (0.0, 1.0));
        assert_eq!(decade_range([-3.5, 2.2]), (-4.0, 3.0));
        assert_eq!(decade_range([5.0]), (5.0, 6.0));
        assert_eq!(decade_ticks((11.0, 62.0), 8.0), (10.0, (10.0, 70.0)));
        assert_eq!(decade_ticks((-27.0, 0.0), 10.0), (3.0, (-27.0, 0.0)));
        assert_eq!(decade_ticks((0.0, 1.0), 10.0), (1.0, (0.0, 1.0)));
        assert_eq!(escape("a<b & c>d"), "a&lt;b &amp; c&gt;d");
        let p = Panel {
            ox: 10.0,
            oy: 20.0,
            w: 100.0,
            h: 50.0,
            x: (0.0, 2.0),
            y: (-1.0, 1.0),
        };
        assert_eq!((p.px(0.0), p.px(2.0)), (10.0, 110.0));
        assert_eq!((p.py(-1.0), p.py(1.0)), (70.0, 20.0));
        let mut s = String::new();
        p.axes(&mut s, 1.0, 1.0, "x & y", "err");
        assert_eq!(s.matches("<line").count(), 3 + 3);
        assert!(s.contains("x &amp; y") && s.contains(">1e-1</text>"));
    }
}
