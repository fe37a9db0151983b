//! The query parameters of `GET /sth/type/{type}/id/{id}/attributes/{attr}`, validated into a raw or aggregated
//! request with STH-Comet's (joi's) error texts.
//!
//! Each parameter is checked on its own first (as joi does), then the combination decides the mode: raw with `lastN`,
//! or `hLimit` and `hOffset`, or `filetype=csv`; aggregated with `aggrMethod` and `aggrPeriod`; otherwise the 400 that
//! names the accepted combinations. Better than STH: `hOffset=0` counts as given, and `dateFrom` after `dateTo` is
//! refused instead of answering nothing. Pure: no I/O.

use std::collections::HashMap;

use super::error::{HistoryError, Source};
use super::model::AggrMethod;
use super::store::RawPaging;
use super::time::{Millis, Resolution, parse_query_date};

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryQuery {
    Raw(RawRequest),
    Aggregated(AggrRequest),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RawRequest {
    pub paging: RawPaging,
    pub from: Millis,
    pub to: Millis,
    pub count: bool,
    pub csv: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AggrRequest {
    pub methods: Vec<AggrMethod>,
    pub resolution: Resolution,
    pub from: Millis,
    pub to: Millis,
}

const COMBINATION: &str = "A combination of the following query params is required: lastN, hLimit and hOffset, \
                           filetype, or aggrMethod and aggrPeriod";
const COMBINATION_KEYS: [&str; 7] = ["lastN", "hLimit", "hOffset", "filetype", "aggrMethod", "aggrPeriod", "count"];
const PAGE_RULE: &str = "hLimit <= lastN <= config.maxPageSize";
const METHOD_PATTERN: &str = "/^(min|max|sum|sum2|occur|all)(,(min|max|sum|sum2|occur|all))*$/";

/// The parameters, each checked on its own.
#[derive(Debug, Default)]
struct Params {
    last_n: Option<u32>,
    h_limit: Option<u32>,
    h_offset: Option<u32>,
    methods: Option<Vec<AggrMethod>>,
    period: Option<Resolution>,
    from: Option<Millis>,
    to: Option<Millis>,
    count: bool,
    csv: bool,
}

/// Validates the query string; `max_page` bounds `lastN` and `hLimit`.
pub fn parse(raw: &HashMap<String, String>, max_page: u32) -> Result<HistoryQuery, HistoryError> {
    let p = Params::read(raw)?;
    let from = p.from.unwrap_or(Millis::MIN);
    let to = p.to.unwrap_or(Millis::MAX);
    if from > to {
        return Err(field("dateTo", "\"dateTo\" must be larger than or equal to \"dateFrom\""));
    }
    if p.last_n.or(p.h_limit).is_some_and(|n| n > max_page) {
        return Err(HistoryError::invalid(Source::Query, PAGE_RULE, &["lastN", "hLimit"]));
    }
    let paging = match (p.last_n, p.h_limit, p.h_offset) {
        // `lastN=0` meant "no limit" in STH; here it is bounded by the page size.
        (Some(0), _, _) => Some(RawPaging::LastN(max_page)),
        (Some(n), _, _) => Some(RawPaging::LastN(n)),
        (None, Some(limit), Some(offset)) => Some(RawPaging::Page { limit, offset }),
        (None, _, _) if p.csv => Some(RawPaging::All),
        _ => None,
    };
    if let Some(paging) = paging {
        return Ok(HistoryQuery::Raw(RawRequest { paging, from, to, count: p.count, csv: p.csv }));
    }
    match (p.methods, p.period) {
        (Some(methods), Some(resolution)) => {
            Ok(HistoryQuery::Aggregated(AggrRequest { methods, resolution, from, to }))
        }
        _ => Err(HistoryError::invalid(Source::Query, COMBINATION, &COMBINATION_KEYS)),
    }
}

impl Params {
    fn read(raw: &HashMap<String, String>) -> Result<Self, HistoryError> {
        let get = |key: &str| raw.get(key).map(String::as_str);
        Ok(Params {
            last_n: get("lastN").map(|v| count_param("lastN", v)).transpose()?,
            h_limit: get("hLimit").map(|v| count_param("hLimit", v)).transpose()?,
            h_offset: get("hOffset").map(|v| count_param("hOffset", v)).transpose()?,
            methods: get("aggrMethod").map(methods).transpose()?,
            period: get("aggrPeriod").map(period).transpose()?,
            from: get("dateFrom").map(|v| date("dateFrom", v)).transpose()?,
            to: get("dateTo").map(|v| date("dateTo", v)).transpose()?,
            count: get("count").map(boolean).transpose()?.unwrap_or(false),
            csv: get("filetype").is_some_and(|f| f.eq_ignore_ascii_case("csv")),
        })
    }
}

fn field(key: &str, reason: &str) -> HistoryError {
    HistoryError::field(Source::Query, key, reason)
}

/// An integer at least 0 (`lastN`, `hLimit`, `hOffset`).
fn count_param(key: &str, text: &str) -> Result<u32, HistoryError> {
    let number: f64 = text.trim().parse().map_err(|_| field(key, &format!("\"{key}\" must be a number")))?;
    if number.fract() != 0.0 || !number.is_finite() {
        return Err(field(key, &format!("\"{key}\" must be an integer")));
    }
    if number < 0.0 {
        return Err(field(key, &format!("\"{key}\" must be larger than or equal to 0")));
    }
    Ok(number.min(f64::from(u32::MAX)) as u32)
}

/// `max,sum2`, or `all`; duplicates dropped, `all` in STH's order.
fn methods(text: &str) -> Result<Vec<AggrMethod>, HistoryError> {
    let mut out = Vec::new();
    for name in text.split(',') {
        let expanded: Vec<AggrMethod> = match name {
            "all" => AggrMethod::ALL.to_vec(),
            other => vec![AggrMethod::parse(other).ok_or_else(|| bad_method(text))?],
        };
        for method in expanded {
            if !out.contains(&method) {
                out.push(method);
            }
        }
    }
    Ok(out)
}

fn bad_method(text: &str) -> HistoryError {
    let reason = format!("\"aggrMethod\" with value \"{text}\" fails to match the required pattern: {METHOD_PATTERN}");
    field("aggrMethod", &reason)
}

fn period(text: &str) -> Result<Resolution, HistoryError> {
    Resolution::parse(text)
        .ok_or_else(|| field("aggrPeriod", "\"aggrPeriod\" must be one of [month, day, hour, minute, second]"))
}

fn date(key: &str, text: &str) -> Result<Millis, HistoryError> {
    parse_query_date(text)
        .ok_or_else(|| field(key, &format!("\"{key}\" must be a number of milliseconds or valid date string")))
}

fn boolean(text: &str) -> Result<bool, HistoryError> {
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(field("count", "\"count\" must be a boolean")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Result<HistoryQuery, HistoryError> {
        let raw = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        parse(&raw, 1000)
    }

    fn message(pairs: &[(&str, &str)]) -> String {
        query(pairs).unwrap_err().to_string()
    }

    #[test]
    fn the_mode_follows_the_parameters() {
        let Ok(HistoryQuery::Raw(raw)) = query(&[("hLimit", "10"), ("hOffset", "0"), ("count", "true")]) else {
            panic!("raw expected")
        };
        assert_eq!(raw.paging, RawPaging::Page { limit: 10, offset: 0 });
        assert!(raw.count);
        let Ok(HistoryQuery::Aggregated(aggr)) = query(&[("aggrMethod", "max,sum2,max"), ("aggrPeriod", "hour")])
        else {
            panic!("aggregated expected")
        };
        assert_eq!(aggr.methods, vec![AggrMethod::Max, AggrMethod::Sum2]);
        assert_eq!(aggr.resolution, Resolution::Hour);
        assert_eq!(query(&[("filetype", "csv")]).map(|q| matches!(q, HistoryQuery::Raw(_))), Ok(true));
    }

    #[test]
    fn refusals_use_sth_texts() {
        assert_eq!(message(&[]), COMBINATION);
        assert_eq!(message(&[("hLimit", "3")]), COMBINATION);
        assert_eq!(message(&[("lastN", "x")]), "child \"lastN\" fails because [\"lastN\" must be a number]");
        assert_eq!(
            message(&[("hOffset", "-1"), ("hLimit", "1")]),
            "child \"hOffset\" fails because [\"hOffset\" must be larger than or equal to 0]"
        );
        assert_eq!(message(&[("lastN", "1001")]), PAGE_RULE);
        assert!(message(&[("aggrMethod", "avg"), ("aggrPeriod", "hour")]).contains("fails to match the required"));
        assert_eq!(
            message(&[("aggrMethod", "sum"), ("aggrPeriod", "week")]),
            "child \"aggrPeriod\" fails because [\"aggrPeriod\" must be one of [month, day, hour, minute, second]]"
        );
        assert!(message(&[("lastN", "1"), ("dateFrom", "soon")]).contains("valid date string"));
        let reversed = [("lastN", "1"), ("dateFrom", "2020-01-02"), ("dateTo", "2020-01-01")];
        assert!(message(&reversed).contains("\"dateTo\" must be larger than or equal to \"dateFrom\""));
    }
}
