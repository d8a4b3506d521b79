//! The workflow bundle as written: the serde model of its YAML files (with
//! source spans) and the loader that reads a bundle directory safely.
//! [`Control`] (who calls the device tools) and [`Side`] (who made a call)
//! are what a session's caller names too.

mod identity;
mod load;
pub mod model;

pub use identity::{BundleIdentity, is_legacy_id};
pub(crate) use load::cited_file;
pub use load::{LoadedBundle, MANIFEST, MAX_FILE_BYTES, load};
pub use model::{Control, Side};
