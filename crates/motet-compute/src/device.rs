//! Devices: listing the platforms' devices, choosing one, and the state kept once per device (its
//! context, its one command queue and its cache of compiled programs).
//!
//! A [`Device`] is made once per OpenCL device per process and shared by every compute actor and
//! every [`Mem`](crate::Mem) on it: all of them enqueue into the device's single in-order queue,
//! so commands of different actors on one device run in the order they were enqueued, and a
//! buffer written by one actor's kernel is complete before a later command reads it.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{
    Device as ClDevice, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU,
    CL_DEVICE_TYPE_GPU,
};
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

use crate::error::ComputeError;
use crate::program::ProgramCache;

/// The kind of an OpenCL device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A graphics processor.
    Gpu,
    /// A CPU (such as PoCL's `pthread` device).
    Cpu,
    /// A dedicated accelerator.
    Accelerator,
    /// Anything else.
    Other,
}

/// One device as listed by [`devices`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Its position in [`devices`]'s list (platforms in the loader's order, then devices).
    pub index: usize,
    /// The platform's name (`Portable Computing Language`, `NVIDIA CUDA`).
    pub platform: String,
    /// The device's name.
    pub name: String,
    /// Its kind.
    pub kind: DeviceKind,
    /// The OpenCL version it reports.
    pub version: String,
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {} ({:?}, {}, {})",
            self.index, self.name, self.kind, self.platform, self.version
        )
    }
}

/// Which device a compute actor runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The first GPU, else the first CPU device, else the first device of any kind.
    #[default]
    Default,
    /// The device at this position in [`devices`].
    Index(usize),
    /// The first device of this kind.
    Kind(DeviceKind),
    /// The first device whose name contains this text.
    NameContains(String),
}

/// Lists every device of every OpenCL platform.
///
/// # Errors
/// [`ComputeError::NoDevice`] when the OpenCL loader cannot be loaded or reports no platform.
pub fn devices() -> Result<Vec<DeviceInfo>, ComputeError> {
    Ok(enumerate()?.into_iter().map(|(_, info)| info).collect())
}

/// The devices of all platforms, listed once per process (under a lock: the ICD loader's
/// first initialisation is not safe to race), and the same list afterwards.
fn enumerate() -> Result<Vec<(cl_device_id, DeviceInfo)>, ComputeError> {
    static LISTED: Mutex<Option<Vec<(usize, DeviceInfo)>>> = Mutex::new(None);
    let mut listed = LISTED.lock().unwrap_or_else(|e| e.into_inner());
    if listed.is_none() {
        let found = list_now()?;
        *listed = Some(found.into_iter().map(|(id, i)| (id as usize, i)).collect());
    }
    let all = listed.as_ref().expect("listed above");
    Ok(all
        .iter()
        .map(|(id, i)| (*id as cl_device_id, i.clone()))
        .collect())
}

fn list_now() -> Result<Vec<(cl_device_id, DeviceInfo)>, ComputeError> {
    let platforms = get_platforms().map_err(|e| {
        ComputeError::NoDevice(format!("the OpenCL loader reports no platform ({e})"))
    })?;
    let mut out = Vec::new();
    for platform in platforms {
        let pname = platform.name().unwrap_or_default();
        // A platform without devices answers CL_DEVICE_NOT_FOUND: it contributes nothing.
        let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
        for id in ids {
            let dev = ClDevice::new(id);
            let ty = dev.dev_type().unwrap_or(0);
            let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
                DeviceKind::Gpu
            } else if ty & CL_DEVICE_TYPE_CPU != 0 {
                DeviceKind::Cpu
            } else if ty & CL_DEVICE_TYPE_ACCELERATOR != 0 {
                DeviceKind::Accelerator
            } else {
                DeviceKind::Other
            };
            let info = DeviceInfo {
                index: out.len(),
                platform: pname.clone(),
                name: dev.name().unwrap_or_default(),
                kind,
                version: dev.version().unwrap_or_default(),
            };
            out.push((id, info));
        }
    }
    Ok(out)
}

fn choose(
    all: Vec<(cl_device_id, DeviceInfo)>,
    selector: &DeviceSelector,
) -> Option<(cl_device_id, DeviceInfo)> {
    let first_of = |kind| all.iter().find(|(_, i)| i.kind == kind).cloned();
    match selector {
        DeviceSelector::Default => first_of(DeviceKind::Gpu)
            .or_else(|| first_of(DeviceKind::Cpu))
            .or_else(|| all.first().cloned()),
        DeviceSelector::Index(n) => all.get(*n).cloned(),
        DeviceSelector::Kind(kind) => first_of(*kind),
        DeviceSelector::NameContains(text) => all
            .iter()
            .find(|(_, i)| i.name.contains(text.as_str()))
            .cloned(),
    }
}

/// An OpenCL device in use: its context, its one in-order command queue and its program cache.
/// Cloning is cheap (a reference count); [`Device::select`] returns the same device for the same
/// OpenCL device every time.
#[derive(Clone)]
pub struct Device {
    inner: Arc<Inner>,
}

struct Inner {
    id: cl_device_id,
    info: DeviceInfo,
    // Field order matters: the queue and programs are released before the context.
    queue: CommandQueue,
    programs: ProgramCache,
    context: Context,
}

// SAFETY: `cl_device_id` is an opaque handle that OpenCL lets any thread use; the context, queue
// and program cache are Send + Sync themselves (OpenCL objects other than kernels are thread-safe).
unsafe impl Send for Inner {}
// SAFETY: as above; nothing in `Inner` is mutated except through the cache's mutex.
unsafe impl Sync for Inner {}

fn registry() -> &'static Mutex<Vec<Device>> {
    static DEVICES: OnceLock<Mutex<Vec<Device>>> = OnceLock::new();
    DEVICES.get_or_init(|| Mutex::new(Vec::new()))
}

impl Device {
    /// The device `selector` names, set up on first use (context and command queue), shared
    /// afterwards.
    ///
    /// # Errors
    /// [`ComputeError::NoDevice`] when no device matches (no loader, no platform, nothing of the
    /// kind or name asked for); [`ComputeError::OpenCl`] when its context or queue cannot be made.
    pub fn select(selector: &DeviceSelector) -> Result<Device, ComputeError> {
        let all = enumerate()?;
        let (id, info) = choose(all, selector)
            .ok_or_else(|| ComputeError::NoDevice(format!("none matches {selector:?}")))?;
        let mut known = registry().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dev) = known.iter().find(|d| d.inner.id == id) {
            return Ok(dev.clone());
        }
        let dev = Device::open(id, info)?;
        known.push(dev.clone());
        Ok(dev)
    }

    /// A second, unshared handle on the device `selector` names: a context and queue of its
    /// own, so that its buffers belong to another context (for tests of cross-device checks).
    #[cfg(test)]
    pub(crate) fn open_unshared(selector: &DeviceSelector) -> Result<Device, ComputeError> {
        let (id, info) = choose(enumerate()?, selector)
            .ok_or_else(|| ComputeError::NoDevice(format!("none matches {selector:?}")))?;
        Device::open(id, info)
    }

    fn open(id: cl_device_id, info: DeviceInfo) -> Result<Device, ComputeError> {
        let context = Context::from_device(&ClDevice::new(id))
            .map_err(ComputeError::cl("clCreateContext"))?;
        let queue = Self::make_queue(&context, id)?;
        Ok(Device {
            inner: Arc::new(Inner {
                id,
                info,
                queue,
                programs: ProgramCache::default(),
                context,
            }),
        })
    }

    fn make_queue(context: &Context, id: cl_device_id) -> Result<CommandQueue, ComputeError> {
        // SAFETY: `id` is the device the context was made for.
        let queue = unsafe { CommandQueue::create_with_properties(context, id, 0, 0) };
        match queue {
            Ok(q) => Ok(q),
            // OpenCL 1.x platforms have only the older entry point.
            #[allow(deprecated)]
            // SAFETY: as above.
            Err(_) => unsafe { CommandQueue::create(context, id, 0) }
                .map_err(ComputeError::cl("clCreateCommandQueue")),
        }
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// How many programs have been compiled for this device (each distinct source and options
    /// once).
    pub fn programs_built(&self) -> usize {
        self.inner.programs.built()
    }

    pub(crate) fn id(&self) -> cl_device_id {
        self.inner.id
    }

    pub(crate) fn context(&self) -> &Context {
        &self.inner.context
    }

    pub(crate) fn queue(&self) -> &CommandQueue {
        &self.inner.queue
    }

    pub(crate) fn programs(&self) -> &ProgramCache {
        &self.inner.programs
    }

    /// Whether two handles are the same device.
    pub fn same_as(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.inner.info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(index: usize, name: &str, kind: DeviceKind) -> (cl_device_id, DeviceInfo) {
        let info = DeviceInfo {
            index,
            platform: "p".into(),
            name: name.into(),
            kind,
            version: "OpenCL 3.0".into(),
        };
        (index as cl_device_id, info)
    }

    #[test]
    fn the_default_prefers_a_gpu_then_a_cpu() {
        let list = vec![
            info(0, "acc", DeviceKind::Accelerator),
            info(1, "cpu", DeviceKind::Cpu),
            info(2, "gpu", DeviceKind::Gpu),
        ];
        let pick = |s, l: &Vec<_>| choose(l.clone(), &s).map(|(_, i)| i.name);
        assert_eq!(pick(DeviceSelector::Default, &list).as_deref(), Some("gpu"));
        assert_eq!(
            pick(DeviceSelector::Default, &list[..2].to_vec()).as_deref(),
            Some("cpu")
        );
        assert_eq!(
            pick(DeviceSelector::Default, &list[..1].to_vec()).as_deref(),
            Some("acc")
        );
        assert_eq!(pick(DeviceSelector::Default, &Vec::new()), None);
        assert_eq!(
            pick(DeviceSelector::Index(1), &list).as_deref(),
            Some("cpu")
        );
        assert_eq!(pick(DeviceSelector::Index(3), &list), None);
        assert_eq!(
            pick(DeviceSelector::NameContains("gp".into()), &list).as_deref(),
            Some("gpu")
        );
        assert_eq!(pick(DeviceSelector::Kind(DeviceKind::Other), &list), None);
    }
}
