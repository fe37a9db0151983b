//! NGSI v1 status codes and the `{code, reasonPhrase, details}` value every v1 response carries somewhere.
//!
//! Orion returns NGSI-level results, errors included, inside HTTP 200 bodies; the code and reason phrase are
//! strings. This module owns the table of codes and reason phrases so that no handler spells one by hand.

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The NGSI codes Fluxgate answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Ok,
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    NotAcceptable,
    Conflict,
    TooLarge,
    UnsupportedMedia,
    InvalidModification,
    SubscriptionNotFound,
    InvalidParameter,
    Internal,
    NotImplemented,
}

impl Code {
    /// The code as the wire writes it.
    pub fn text(self) -> &'static str {
        match self {
            Code::Ok => "200",
            Code::BadRequest => "400",
            Code::Unauthorized => "401",
            Code::Forbidden => "403",
            Code::NotFound => "404",
            Code::NotAcceptable => "406",
            Code::Conflict => "409",
            Code::TooLarge => "413",
            Code::UnsupportedMedia => "415",
            Code::InvalidModification => "422",
            Code::SubscriptionNotFound => "470",
            Code::InvalidParameter => "472",
            Code::Internal => "500",
            Code::NotImplemented => "501",
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::BadRequest => "Bad Request",
            Code::Unauthorized => "Unauthorized",
            Code::Forbidden => "Forbidden",
            Code::NotFound => "No context element found",
            Code::NotAcceptable => "Not Acceptable",
            Code::Conflict => "Conflict",
            Code::TooLarge => "Request Entity Too Large",
            Code::UnsupportedMedia => "Unsupported Media Type",
            Code::InvalidModification => "InvalidModification",
            Code::SubscriptionNotFound => "SubscriptionId not found",
            Code::InvalidParameter => "request parameter is invalid/not allowed",
            Code::Internal => "Receiver internal error",
            Code::NotImplemented => "Not implemented",
        }
    }
}

/// A status as it appears on the wire: `{"code":"404","reasonPhrase":"...","details":"..."}`. The code and its
/// reason phrase are written from the [`Code`], so that a status costs no allocation unless it has details: every
/// element of every update carries one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub details: Option<String>,
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Status", 2 + usize::from(self.details.is_some()))?;
        out.serialize_field("code", self.code.text())?;
        out.serialize_field("reasonPhrase", self.code.reason())?;
        if let Some(details) = &self.details {
            out.serialize_field("details", details)?;
        }
        out.end()
    }
}

impl Status {
    pub fn ok() -> Self {
        Self::of(Code::Ok, None)
    }

    pub fn error(code: Code, details: &str) -> Self {
        Self::of(code, Some(details.to_owned()))
    }

    pub fn of(code: Code, details: Option<String>) -> Self {
        Status { code, details }
    }

    pub fn is_ok(&self) -> bool {
        self.code == Code::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_written_as_orion_writes_it() {
        let ok = serde_json::to_value(Status::ok()).unwrap();
        assert_eq!(ok, serde_json::json!({"code": "200", "reasonPhrase": "OK"}));
        let missing = serde_json::to_string(&Status::error(Code::NotFound, "Room1")).unwrap();
        assert_eq!(missing, r#"{"code":"404","reasonPhrase":"No context element found","details":"Room1"}"#);
        let invalid = serde_json::to_value(Status::of(Code::InvalidParameter, None)).unwrap();
        assert_eq!(
            invalid,
            serde_json::json!({"code": "472", "reasonPhrase": "request parameter is invalid/not allowed"})
        );
    }
}
