//! The tracker profile: entities of type `tracker` accept only the four tracking modes in `SET_tracking`, and an
//! accepted mode also becomes the entity's `tracking` attribute.

use crate::broker::status::{Code, Status};
use crate::broker::update::{AttrWrite, ElementWrite};

/// The entity type of trackers.
pub const TRACKER_TYPE: &str = "tracker";
/// The command attribute that sets the tracking mode.
pub const MODE_COMMAND: &str = "SET_tracking";
/// The tracking modes.
pub const MODES: [&str; 4] = ["SLEEP", "SLOWTRACK", "FASTTRACK", "MOTIONTRACK"];

/// For a tracker element writing `SET_tracking`: the `tracking` attribute to add, or the refusal.
pub fn review(entity_type: &str, write: &ElementWrite) -> Result<Option<AttrWrite>, Status> {
    if entity_type != TRACKER_TYPE {
        return Ok(None);
    }
    let Some(value) = write.attributes.iter().find(|a| a.name == MODE_COMMAND).and_then(|a| a.value.as_ref()) else {
        return Ok(None);
    };
    let mode = value.as_str().unwrap_or_default();
    if !MODES.contains(&mode) {
        let details = format!("{MODE_COMMAND} accepts only {}; got {value}", MODES.join(", "));
        return Err(Status::error(Code::BadRequest, &details));
    }
    Ok(Some(crate::store::sqlite::text_attr("tracking", "string", mode)))
}
