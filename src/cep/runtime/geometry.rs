//! Planar geometry of the statement language on the `geo` crate: points and polygons (a ring, with holes when read
//! from WKT), strict `contains` (a point on the boundary is outside, as JTS says and `geo::Contains` does),
//! `distance` in coordinate units (zero from a point inside or on a polygon, `geo::Euclidean`), and the
//! `geometry('...')` WKT the `wkt` crate reads. A ring must be closed, as JTS requires: `polygon(...)` or a WKT polygon
//! with a ring that does not end where it starts is null, where `geo` would close it silently.

use std::sync::Arc;

use geo::{Contains, Distance, Euclidean, LineString, Point, Polygon};
use wkt::Wkt;

use super::value::Val;

/// Whether `shape` strictly contains `point`; `None` when either is null or not a geometry.
pub fn contains(shape: &Val, point: &Val) -> Option<bool> {
    match (shape, point) {
        (Val::Polygon(polygon), Val::Point(x, y)) => Some(polygon.contains(&Point::new(*x, *y))),
        (Val::Point(a, b), Val::Point(x, y)) => Some(a == x && b == y),
        _ => None,
    }
}

/// Planar distance between two points, or from a point to a polygon (0 inside and on its boundary).
pub fn distance(a: &Val, b: &Val) -> Option<f64> {
    match (a, b) {
        (Val::Point(x1, y1), Val::Point(x2, y2)) => {
            Some(Euclidean.distance(Point::new(*x1, *y1), Point::new(*x2, *y2)))
        }
        (Val::Polygon(polygon), Val::Point(x, y)) | (Val::Point(x, y), Val::Polygon(polygon)) => {
            Some(Euclidean.distance(&Point::new(*x, *y), &**polygon))
        }
        _ => None,
    }
}

/// The polygon of a closed ring of at least 4 points; `None` for any other ring.
pub fn polygon(ring: Vec<(f64, f64)>) -> Option<Val> {
    let closed = closed(ring.len(), ring.first().copied(), ring.last().copied());
    closed.then(|| Val::Polygon(Arc::new(Polygon::new(LineString::from(ring), Vec::new()))))
}

/// A WKT point or polygon; `None` for other geometries, for a polygon with a ring that is not closed, and for text
/// that is not WKT.
pub fn parse_wkt(text: &str) -> Option<Val> {
    let wkt: Wkt<f64> = text.parse().ok()?;
    if let Wkt::Polygon(polygon) = &wkt
        && !polygon.rings().iter().map(|ring| ring.coords()).all(|ring| {
            let at = |c: Option<&wkt::types::Coord<f64>>| c.map(|c| (c.x, c.y));
            closed(ring.len(), at(ring.first()), at(ring.last()))
        })
    {
        return None;
    }
    match geo::Geometry::try_from(wkt).ok()? {
        geo::Geometry::Point(p) => Some(Val::Point(p.x(), p.y())),
        geo::Geometry::Polygon(p) => Some(Val::Polygon(Arc::new(p))),
        _ => None,
    }
}

/// Whether a ring of `len` points from `first` to `last` is closed: at least 4 points, ending where it starts.
fn closed(len: usize, first: Option<(f64, f64)>, last: Option<(f64, f64)>) -> bool {
    len >= 4 && first == last
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Val {
        polygon(vec![(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0), (0.0, 0.0)]).expect("closed")
    }

    #[test]
    fn contains_is_strict() {
        assert_eq!(contains(&square(), &Val::Point(5.0, 5.0)), Some(true));
        assert_eq!(contains(&square(), &Val::Point(10.0, 5.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Point(0.0, 0.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Point(11.0, 5.0)), Some(false));
        assert_eq!(contains(&square(), &Val::Null), None);
        assert_eq!(contains(&Val::Point(1.0, 2.0), &Val::Point(1.0, 2.0)), Some(true));
    }

    #[test]
    fn a_ring_must_be_closed() {
        assert_eq!(polygon(vec![(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)]), None);
        assert_eq!(polygon(vec![(0.0, 0.0), (0.0, 10.0), (0.0, 0.0)]), None, "fewer than 4 points");
    }

    #[test]
    fn reads_wkt_and_measures() {
        assert_eq!(parse_wkt("POINT (1 2)"), Some(Val::Point(1.0, 2.0)));
        assert_eq!(parse_wkt(" point(1 2) "), Some(Val::Point(1.0, 2.0)), "any case, any spacing");
        assert_eq!(parse_wkt("POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0))"), Some(square()));
        assert_eq!(parse_wkt("LINESTRING (0 0, 1 1)"), None, "neither a point nor a polygon");
        assert_eq!(parse_wkt("POLYGON ((0 0, 0 10"), None);
        assert_eq!(parse_wkt("POLYGON ((0 0, 0 10, 10 10, 10 0))"), None, "a ring that is not closed");
        let holed = parse_wkt("POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (4 4, 4 6, 6 6, 6 4, 4 4))").expect("WKT");
        assert_eq!(contains(&holed, &Val::Point(5.0, 5.0)), Some(false), "inside the hole");
        assert_eq!(contains(&holed, &Val::Point(2.0, 5.0)), Some(true));
        assert_eq!(distance(&Val::Point(0.0, 0.0), &Val::Point(3.0, 4.0)), Some(5.0));
        assert_eq!(distance(&square(), &Val::Point(13.0, 5.0)), Some(3.0));
        assert_eq!(distance(&Val::Point(5.0, 5.0), &square()), Some(0.0), "inside");
        assert_eq!(distance(&Val::Point(10.0, 5.0), &square()), Some(0.0), "on the boundary");
    }
}
