//! The caller of a request: tenant, token, correlator, and the scope decisions every API asks for.
//!
//! [`Caller::resolve`] validates the tenant header and authenticates the token (401/403); the methods then turn the
//! service-path header into the scope of a write, a query or a subscription and check it against the token's grant.
//! Every API asks this module who is asking; each renders a [`CallerError`] in its own wire shape (the broker's
//! extractor is here, since `/cb` is the API most handlers serve).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::Response;

use thiserror::Error;

use crate::app::AppState;
use crate::auth::{AuthError, Grant};
use crate::broker::error::{NgsiError, Wrapper};
use crate::http::Correlator;
use crate::store::Origin;
use crate::tenancy::{self, PathScope, ServicePath, TenancyError, Tenant};

/// Why a caller cannot do what it asks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallerError {
    #[error(transparent)]
    Tenancy(#[from] TenancyError),
    #[error(transparent)]
    Auth(#[from] AuthError),
}

impl From<CallerError> for NgsiError {
    fn from(e: CallerError) -> Self {
        match e {
            CallerError::Tenancy(t) => t.into(),
            CallerError::Auth(a) => a.into(),
        }
    }
}

/// Who asks, and with which rights.
#[derive(Debug, Clone)]
pub struct Caller {
    pub tenant: Tenant,
    pub grant: Grant,
    token: Option<String>,
    correlator: String,
    path_header: Option<String>,
}

impl Caller {
    /// The one path a write goes to, if the token may write there.
    pub fn write_path(&self) -> Result<ServicePath, CallerError> {
        let path = tenancy::path_for_write(self.path_header.as_deref())?;
        self.grant.check_write(&path)?;
        Ok(path)
    }

    /// The one concrete path a read names (absent: `/`), if the token reaches it.
    pub fn read_path(&self) -> Result<ServicePath, CallerError> {
        let path = tenancy::path_for_write(self.path_header.as_deref())?;
        self.grant.check_path(&path)?;
        Ok(path)
    }

    /// The paths a query covers, narrowed to the token's subtree when the request names none.
    pub fn read_scope(&self) -> Result<PathScope, CallerError> {
        let requested = match self.path_header.as_deref().filter(|h| !h.trim().is_empty()) {
            None => None,
            Some(header) => Some(PathScope::for_query(Some(header))?),
        };
        Ok(self.grant.read_scope(requested)?)
    }

    /// The scope of a new or changed subscription; subscribing needs write rights over it.
    pub fn subscription_scope(&self) -> Result<PathScope, CallerError> {
        let scope = match self.path_header.as_deref().filter(|h| !h.trim().is_empty()) {
            None => self.grant.read_scope(None)?,
            Some(header) => self.grant.read_scope(Some(PathScope::for_subscription(Some(header))?))?,
        };
        if self.grant.read_only {
            return Err(AuthError::ReadOnly.into());
        }
        Ok(scope)
    }

    /// Checks that the token may write at all (subscription changes, which carry no path).
    pub fn check_writer(&self) -> Result<(), CallerError> {
        if self.grant.read_only {
            return Err(AuthError::ReadOnly.into());
        }
        Ok(())
    }

    /// What notifications caused by this request carry.
    pub fn origin(&self) -> Origin {
        Origin { token: self.token.clone(), correlator: self.correlator.clone() }
    }
}

fn header(parts: &Parts, name: &str) -> Option<String> {
    parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

impl Caller {
    /// Reads the tenant and token headers and authenticates the token.
    pub async fn resolve(parts: &Parts, state: &AppState) -> Result<Self, CallerError> {
        let tenant = Tenant::from_header(header(parts, tenancy::SERVICE_HEADER).as_deref())?;
        let token = header(parts, "x-auth-token");
        let grant = state.auth.authenticate(&tenant, token.as_deref()).await?;
        let correlator = parts.extensions.get::<Correlator>().map(|c| c.0.clone()).unwrap_or_default();
        Ok(Caller { tenant, grant, token, correlator, path_header: header(parts, tenancy::SERVICE_PATH_HEADER) })
    }
}

/// The broker's extractor: refusals rendered as NGSI v1 errors.
impl FromRequestParts<AppState> for Caller {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Caller::resolve(parts, state).await.map_err(|e| NgsiError::from(e).render(Wrapper::ErrorCode))
    }
}
