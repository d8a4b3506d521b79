//! The `turnstile._native` extension module: the engine's session, store,
//! judges and audit bound for Python. Each Python call parses its input,
//! releases the GIL while the engine works, and returns JSON text the pure
//! Python layer (`python/turnstile`) turns into typed objects. Every
//! failure is a Python exception (module `errors`) or a blocking verdict:
//! nothing unwinds into Python.

mod audit;
mod bundle;
mod errors;
mod judge;
mod session;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<audit::NativeAudit>()?;
    m.add_class::<bundle::NativeBundle>()?;
    m.add_class::<session::NativeSession>()?;
    m.add_function(wrap_pyfunction!(audit::summarize, m)?)?;
    errors::register(m)?;
    Ok(())
}
