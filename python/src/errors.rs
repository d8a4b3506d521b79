//! The exceptions the module raises, and the conversion of every engine,
//! store and judge error into one of them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    turnstile,
    TurnstileError,
    PyException,
    "Base of every error Turnstile raises."
);
create_exception!(
    turnstile,
    BundleError,
    TurnstileError,
    "The bundle cannot be loaded; `.problems` lists each diagnostic with file, line and column."
);
create_exception!(
    turnstile,
    EventError,
    TurnstileError,
    "The event is not one the gate reads (not a JSON object, a missing key, a wrong type)."
);
create_exception!(
    turnstile,
    SessionError,
    TurnstileError,
    "The session cannot take the event, be saved or be restored."
);
create_exception!(
    turnstile,
    StoreError,
    TurnstileError,
    "The durable store refused or failed."
);
create_exception!(
    turnstile,
    JudgeError,
    TurnstileError,
    "The judge asked for cannot be built."
);

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TurnstileError", py.get_type::<TurnstileError>())?;
    m.add("BundleError", py.get_type::<BundleError>())?;
    m.add("EventError", py.get_type::<EventError>())?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("JudgeError", py.get_type::<JudgeError>())?;
    Ok(())
}

/// A session or store failure as the exception that names its cause.
pub fn durable(error: &turnstile_store::DurableError) -> PyErr {
    use turnstile_store::DurableError as E;
    match error {
        E::Session(_) => SessionError::new_err(error.to_string()),
        E::Store(_) | E::Reload(_) | E::Commit(_) | E::Json(_) => {
            StoreError::new_err(error.to_string())
        }
    }
}
