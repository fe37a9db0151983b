//! NGSI v1 status codes and the `{code, reasonPhrase, details}` value every v1 response carries somewhere.
//!
//! Orion returns NGSI-level results, errors included, inside HTTP 200 bodies; the code and reason phrase are
//! strings. This module owns the table of codes and reason phrases so that no handler spells one by hand.

use serde::Serialize;

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
    pub fn number(self) -> u16 {
        match self {
            Code::Ok => 200,
            Code::BadRequest => 400,
            Code::Unauthorized => 401,
            Code::Forbidden => 403,
            Code::NotFound => 404,
            Code::NotAcceptable => 406,
            Code::Conflict => 409,
            Code::TooLarge => 413,
            Code::UnsupportedMedia => 415,
            Code::InvalidModification => 422,
            Code::SubscriptionNotFound => 470,
            Code::InvalidParameter => 472,
            Code::Internal => 500,
            Code::NotImplemented => 501,
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

/// A status as it appears on the wire: `{"code":"404","reasonPhrase":"...","details":"..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub code: String,
    #[serde(rename = "reasonPhrase")]
    pub reason_phrase: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl Status {
    pub fn ok() -> Self {
        Self::of(Code::Ok, None)
    }

    pub fn error(code: Code, details: &str) -> Self {
        Self::of(code, Some(details.to_owned()))
    }

    pub fn of(code: Code, details: Option<String>) -> Self {
        Status { code: code.number().to_string(), reason_phrase: code.reason().to_owned(), details }
    }

    pub fn is_ok(&self) -> bool {
        self.code == "200"
    }
}
