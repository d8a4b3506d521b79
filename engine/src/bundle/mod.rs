//! The workflow bundle as written: the serde model of its YAML files (with
//! source spans) and the loader that reads a bundle directory safely.

mod load;
pub mod model;

pub use load::{LoadedBundle, MANIFEST, MAX_FILE_BYTES, load};
