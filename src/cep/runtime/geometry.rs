//! Planar geometry of the statement language: points and closed polygons, strict `contains` (a point on the
//! boundary is outside, as JTS says), `distance` in coordinate units, and the little WKT `geometry('...')` reads.

use super::value::Val;

/// Whether `shape` strictly contains `point`; `None` when either is null or not a geometry.
pub fn contains(shape: &Val, point: &Val) -> Option<bool> {
    match (shape, point) {
        (Val::Polygon(ring), Val::Point(x, y)) => Some(polygon_contains(ring, (*x, *y))),
        (Val::Point(a, b), Val::Point(x, y)) => Some(a == x && b == y),
        _ => None,
    }
}

fn polygon_contains(ring: &[(f64, f64)], p: (f64, f64)) -> bool {
    let edges = ring.windows(2).map(|w| (w[0], w[1]));
    let mut inside = false;
    for (a, b) in edges {
        if on_segment(a, b, p) {
            return false;
        }
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < (b.0 - a.0) * (p.1 - a.1) / (b.1 - a.1) + a.0 {
            inside = !inside;
        }
    }
    inside
}

fn on_segment(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> bool {
    let cross = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
    let within = |u: f64, v: f64, w: f64| u.min(v) <= w && w <= u.max(v);
    cross == 0.0 && within(a.0, b.0, p.0) && within(a.1, b.1, p.1)
}

/// Planar distance between two points, or from a point to a polygon's boundary (0 inside).
pub fn distance(a: &Val, b: &Val) -> Option<f64> {
    match (a, b) {
        (Val::Point(x1, y1), Val::Point(x2, y2)) => Some((x1 - x2).hypot(y1 - y2)),
        (Val::Polygon(ring), Val::Point(x, y)) | (Val::Point(x, y), Val::Polygon(ring)) => {
            Some(polygon_distance(ring, (*x, *y)))
        }
        _ => None,
    }
}

fn polygon_distance(ring: &[(f64, f64)], p: (f64, f64)) -> f64 {
    if polygon_contains(ring, p) {
        return 0.0;
    }
    ring.windows(2).map(|w| segment_distance(w[0], w[1], p)).fold(f64::INFINITY, f64::min)
}

fn segment_distance(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 { 0.0 } else { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0) };
    (a.0 + t * dx - p.0).hypot(a.1 + t * dy - p.1)
}

/// `POINT (x y)` or `POLYGON ((x y, x y, ...))`.
pub fn parse_wkt(wkt: &str) -> Option<Val> {
    let upper = wkt.trim().to_ascii_uppercase();
    let numbers = |text: &str| -> Option<Vec<(f64, f64)>> {
        text.split(',')
            .map(|pair| {
                let mut it = pair.split_whitespace().map(str::parse::<f64>);
                Some((it.next()?.ok()?, it.next()?.ok()?))
            })
            .collect()
    };
    let inner = |prefix: &str| upper.strip_prefix(prefix).map(|r| r.trim().trim_matches(|c| c == '(' || c == ')'));
    if let Some(body) = inner("POINT") {
        let points = numbers(body)?;
        return points.first().map(|(x, y)| Val::Point(*x, *y));
    }
    inner("POLYGON").and_then(numbers).map(|ring| Val::Polygon(ring.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Val {
        Val::Polygon([(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0), (0.0, 0.0)].into())
    }

    #[test]
    fn contains_is_strict() {
        assert_eq!(contains(&square(), &Val::Point(5.0, 5.0)), Some(true));
        assert_eq!(contains(&square(), &Val::Point(10.0, 5.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Point(0.0, 0.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Point(11.0, 5.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Null), None);
    }

    #[test]
    fn reads_wkt_and_measures() {
        assert_eq!(parse_wkt("POINT (1 2)"), Some(Val::Point(1.0, 2.0)));
        assert_eq!(distance(&Val::Point(0.0, 0.0), &Val::Point(3.0, 4.0)), Some(5.0));
        assert_eq!(distance(&square(), &Val::Point(13.0, 5.0)), Some(3.0));
    }
}
