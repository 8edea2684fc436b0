//! The per-device cache of compiled programs: each distinct (source, build options) is compiled
//! once per device, however many compute actors use it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::program::Program;

use crate::device::Device;
use crate::error::ComputeError;

/// Compiled programs of one device by (source, options). A failed build is not cached: the
/// next spawn with the same source compiles again and reports the same log.
#[derive(Default)]
pub(crate) struct ProgramCache {
    programs: Mutex<HashMap<(String, String), Arc<Program>>>,
}

impl ProgramCache {
    /// How many programs this cache holds.
    pub(crate) fn built(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Arc<Program>>> {
        self.programs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The program for `source` built with `options` on `device`, compiled now if it is not in
    /// the cache. The lock is held while compiling, so that two actors spawned at once with the
    /// same source compile it once.
    pub(crate) fn get_or_build(
        &self,
        device: &Device,
        source: &str,
        options: &str,
    ) -> Result<Arc<Program>, ComputeError> {
        let key = (source.to_owned(), options.to_owned());
        let mut programs = self.lock();
        if let Some(p) = programs.get(&key) {
            return Ok(p.clone());
        }
        let program = build(device, source, options)?;
        let program = Arc::new(program);
        programs.insert(key, program.clone());
        Ok(program)
    }
}

fn build(device: &Device, source: &str, options: &str) -> Result<Program, ComputeError> {
    if options.contains('\0') {
        return Err(ComputeError::Spec(
            "build options contain a NUL byte".into(),
        ));
    }
    let mut program = Program::create_from_source(device.context(), source)
        .map_err(ComputeError::cl("clCreateProgramWithSource"))?;
    match program.build(&[device.id()], options) {
        Ok(()) => Ok(program),
        Err(e) if e.0 == CL_BUILD_PROGRAM_FAILURE => Err(ComputeError::Build {
            device: device.info().name.clone(),
            log: program
                .get_build_log(device.id())
                .unwrap_or_else(|e| format!("(no build log: {e})")),
        }),
        Err(e) => Err(ComputeError::cl("clBuildProgram")(e)),
    }
}
