//! `Bundle`: a compiled policy bundle and the runtime sessions share.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use turnstile_engine::session::BundleRuntime;
use turnstile_engine::{Problems, check_bundle};

use crate::errors::BundleError;

/// A bundle loaded and compiled, ready for sessions.
#[pyclass(frozen, module = "turnstile._native")]
pub struct NativeBundle {
    pub runtime: Arc<BundleRuntime>,
    pub path: PathBuf,
}

#[pymethods]
impl NativeBundle {
    /// Loads and compiles the bundle in directory `path`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<NativeBundle> {
        let compiled = py.detach(|| check_bundle(&path));
        let compiled = compiled.map_err(|problems| bundle_error(py, &path, &problems))?;
        let runtime = BundleRuntime::new(Arc::new(compiled))
            .map_err(|e| BundleError::new_err(format!("bundle {}: {e}", path.display())))?;
        Ok(NativeBundle { runtime, path })
    }

    /// The bundle's name (its manifest's).
    #[getter]
    fn name(&self) -> String {
        self.runtime.bundle.name.clone()
    }

    /// The bundle's content id: the same wherever its files lie.
    #[getter]
    fn id(&self) -> String {
        self.runtime.bundle.hash.clone()
    }

    /// The directory it was loaded from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }
}

/// `BundleError` carrying each problem as a dict in `.problems`.
fn bundle_error(py: Python<'_>, path: &std::path::Path, problems: &Problems) -> PyErr {
    let count = problems.iter().count();
    let first = problems
        .iter()
        .next()
        .map(|p| match (&p.file, p.line, p.column) {
            (Some(file), Some(line), Some(column)) => {
                format!(": {file}:{line}:{column}: {}", p.message)
            }
            (Some(file), _, _) => format!(": {file}: {}", p.message),
            _ => format!(": {}", p.message),
        })
        .unwrap_or_default();
    let error = BundleError::new_err(format!(
        "bundle {} has {count} problem{}{first}",
        path.display(),
        if count == 1 { "" } else { "s" }
    ));
    if let Ok(list) = problem_dicts(py, problems) {
        // An exception whose attribute cannot be set still carries the
        // message, which names the first problem.
        let _ = error.value(py).setattr("problems", list);
    }
    error
}

fn problem_dicts<'py>(py: Python<'py>, problems: &Problems) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for problem in problems.iter() {
        let dict = PyDict::new(py);
        dict.set_item("code", problem.kind.code())?;
        dict.set_item("message", &problem.message)?;
        dict.set_item("file", &problem.file)?;
        dict.set_item("line", problem.line)?;
        dict.set_item("column", problem.column)?;
        dict.set_item("help", &problem.help)?;
        list.append(dict)?;
    }
    Ok(list)
}
