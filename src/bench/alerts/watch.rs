//! The observing side of `fluxgate bench alerts`: a loopback HTTP receiver (the bench's bare hyper server) that is
//! the reference of an ONCHANGE subscription to the `Alert` entities, and notes, for each alert a notification
//! carries, when the notification arrived (its body read whole), which tracker it is about and which side it confirms.
//!
//! It only records; matching arrivals to crossings is `outcome`'s job. It answers every notification 200, so it never
//! slows delivery down.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::StatusCode;
use serde_json::Value;

use crate::bench::BenchError;
use crate::bench::loopback::{self, Handler, Loopback};

/// One alert seen in a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub at: Instant,
    pub tracker: u32,
    pub inside: bool,
}

/// A running receiver and what it saw.
#[derive(Debug)]
pub struct Watch {
    server: Loopback,
    arrivals: Arc<Mutex<Vec<Arrival>>>,
}

impl Watch {
    /// Starts the receiver on the current runtime.
    pub async fn start() -> Result<Self, BenchError> {
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let seen = arrivals.clone();
        let handler: Handler = Arc::new(move |body: &[u8]| {
            let at = Instant::now();
            let alerts = alerts(body).map(|(tracker, inside)| Arrival { at, tracker, inside });
            seen.lock().expect("arrivals lock").extend(alerts);
            (StatusCode::OK, Bytes::from_static(b"{}"))
        });
        Ok(Watch { server: loopback::start(handler).await?, arrivals })
    }

    /// The URL to give as the subscription's `reference`.
    pub fn reference(&self) -> String {
        format!("http://{}/notify", self.server.addr)
    }

    pub fn count(&self) -> usize {
        self.arrivals.lock().expect("arrivals lock").len()
    }

    /// The arrivals after the first `mark`.
    pub fn since(&self, mark: usize) -> Vec<Arrival> {
        self.arrivals.lock().expect("arrivals lock").get(mark..).map(<[Arrival]>::to_vec).unwrap_or_default()
    }

    /// Waits until `count` alerts arrived or `limit` passed; answers how many arrived.
    pub async fn wait_for(&self, count: usize, limit: Duration) -> usize {
        let give_up = Instant::now() + limit;
        while self.count() < count && Instant::now() < give_up {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        self.count()
    }
}

/// The (tracker, inside) of every `Alert` element of a notification body; anything else is skipped.
fn alerts(body: &[u8]) -> impl Iterator<Item = (u32, bool)> {
    let body: Value = serde_json::from_slice(body).unwrap_or_default();
    let responses = body["contextResponses"].as_array().cloned().unwrap_or_default();
    responses.into_iter().filter_map(|r| alert(&r["contextElement"]))
}

fn alert(element: &Value) -> Option<(u32, bool)> {
    if element["type"] != "Alert" {
        return None;
    }
    let tracker = element["id"].as_str()?.strip_prefix("Tracker")?.parse().ok()?;
    let attributes = element["attributes"].as_array()?;
    let inside = attributes.iter().find(|a| a["name"] == "inside")?;
    Some((tracker, inside["value"] == "true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tracker_and_side_of_each_alert() {
        let body = br#"{"subscriptionId":"s","originator":"localhost","contextResponses":[
            {"contextElement":{"id":"Tracker12","type":"Alert","isPattern":"false","attributes":[
                {"name":"inside","type":"boolean","value":"true"},{"name":"position","type":"geo:point","value":"1, 2"}]},
             "statusCode":{"code":"200","reasonPhrase":"OK"}},
            {"contextElement":{"id":"Tracker3","type":"Alert","isPattern":"false","attributes":[
                {"name":"inside","type":"boolean","value":"false"}]},"statusCode":{"code":"200","reasonPhrase":"OK"}},
            {"contextElement":{"id":"Room1","type":"Room","isPattern":"false","attributes":[]}}]}"#;
        assert_eq!(alerts(body).collect::<Vec<_>>(), vec![(12, true), (3, false)]);
        assert_eq!(alerts(b"not json").count(), 0);
    }
}
