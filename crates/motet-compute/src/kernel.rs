//! [`Kernel`]: the builder that turns kernel source, a kernel name, argument specs and work
//! dimensions into a compute actor, checking the Rust types of its inputs and outputs against
//! the specs (and the specs against the compiled kernel's parameters) before it exists.

use std::sync::Arc;

use motet_actor::Addr;
use motet_runtime::Handle;
use opencl3::kernel::{Kernel as ClKernel, CL_KERNEL_ARG_ADDRESS_LOCAL};

use crate::actor::{ComputeActor, Request};
use crate::device::{Device, DeviceSelector};
use crate::error::ComputeError;
use crate::spec::{Arg, Role, Shape, WorkFn, WorkSize};
use crate::values::{Inputs, Outputs, ValueKind};
use crate::ElemType;

/// How to spawn a compute actor (CAF's `spawn_cl`): kernel source, the kernel's name, one
/// [`Arg`] per kernel parameter in order, and the work dimensions.
///
/// ```no_run
/// use std::time::Duration;
/// use motet_compute::{Arg, Kernel, Request, WorkSize};
///
/// const SOURCE: &str = "__kernel void add(__global const float* a, __global const float* b,
///                                          __global float* c) {
///     size_t i = get_global_id(0);
///     c[i] = a[i] + b[i];
/// }";
///
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let add = Kernel::new(SOURCE, "add")
///     .arg(Arg::input::<f32>())
///     .arg(Arg::input::<f32>().expect_len(|s| s.len(0)))
///     .arg(Arg::output::<f32>(|s| s.len(0)))
///     .work(|s| WorkSize::new([s.len(0)]))
///     .spawn::<(Vec<f32>, Vec<f32>), Vec<f32>>(rt.handle())
///     .expect("an OpenCL device");
/// let sum = add
///     .ask(|r| Request::new((vec![1.0, 2.0], vec![10.0, 20.0]), r), Duration::from_secs(10))
///     .wait()
///     .unwrap()
///     .unwrap();
/// assert_eq!(sum, vec![11.0, 22.0]);
/// ```
pub struct Kernel {
    source: String,
    name: String,
    options: String,
    args: Vec<Arg>,
    work: Option<WorkFn>,
    device: Target,
}

enum Target {
    Select(DeviceSelector),
    Device(Device),
}

impl Kernel {
    /// A kernel named `name` in `source` (OpenCL C).
    pub fn new(source: impl Into<String>, name: impl Into<String>) -> Kernel {
        Kernel {
            source: source.into(),
            name: name.into(),
            options: String::new(),
            args: Vec::new(),
            work: None,
            device: Target::Select(DeviceSelector::Default),
        }
    }

    /// Adds the spec of the kernel's next parameter.
    pub fn arg(mut self, arg: Arg) -> Kernel {
        self.args.push(arg);
        self
    }

    /// Adds the specs of the kernel's next parameters.
    pub fn args(mut self, args: impl IntoIterator<Item = Arg>) -> Kernel {
        self.args.extend(args);
        self
    }

    /// The work dimensions, computed from each request.
    pub fn work(mut self, f: impl Fn(&Shape<'_>) -> WorkSize + Send + Sync + 'static) -> Kernel {
        self.work = Some(Arc::new(f));
        self
    }

    /// Fixed work dimensions.
    pub fn work_size(self, size: WorkSize) -> Kernel {
        self.work(move |_| size.clone())
    }

    /// Options for the OpenCL C compiler (`-D N=16`, `-cl-fast-relaxed-math`).
    pub fn build_options(mut self, options: impl Into<String>) -> Kernel {
        self.options = options.into();
        self
    }

    /// Which device to run on (default: [`DeviceSelector::Default`], the first GPU, else the
    /// first CPU device).
    pub fn device(mut self, selector: DeviceSelector) -> Kernel {
        self.device = Target::Select(selector);
        self
    }

    /// Runs on this device (pinned).
    pub fn on(mut self, device: &Device) -> Kernel {
        self.device = Target::Device(device.clone());
        self
    }

    /// Compiles the kernel (once per device and source) and spawns the actor on `runtime`. `I`
    /// is the type of a request's inputs, `O` of a reply's outputs (see [`Inputs`] and
    /// [`Outputs`]).
    ///
    /// # Errors
    /// - [`ComputeError::Spec`]: `I` or `O` does not match the specs, no work dimensions were
    ///   given, or the specs do not match the kernel's parameters;
    /// - [`ComputeError::NoDevice`]: no OpenCL device matches;
    /// - [`ComputeError::Build`]: the source does not compile (with the build log);
    /// - [`ComputeError::NoSuchKernel`]: the program has no kernel of that name.
    pub fn spawn<I: Inputs, O: Outputs>(
        self,
        runtime: &Handle,
    ) -> Result<Addr<Request<I, O>>, ComputeError> {
        check_types(&self.args, &I::kinds(), &O::kinds())?;
        let work = self
            .work
            .clone()
            .ok_or_else(|| ComputeError::Spec("no work dimensions (`Kernel::work`)".into()))?;
        let device = match &self.device {
            Target::Select(s) => Device::select(s)?,
            Target::Device(d) => d.clone(),
        };
        let kernel = self.compile(&device)?;
        check_params(&kernel, &self.args)?;
        let actor = ComputeActor::<I, O>::new(device, kernel, self.args.into(), work, O::descs());
        Ok(motet_actor::spawn(runtime, actor))
    }

    fn compile(&self, device: &Device) -> Result<ClKernel, ComputeError> {
        // Argument info lets the specs be checked against the kernel's parameters.
        let options = format!("-cl-kernel-arg-info {}", self.options);
        let program = device
            .programs()
            .get_or_build(device, &self.source, &options)?;
        ClKernel::create(&program, &self.name).map_err(|_| ComputeError::NoSuchKernel {
            name: self.name.clone(),
            available: program.kernel_names().to_owned(),
        })
    }
}

/// Compares the kinds of the Rust input and output values with the specs.
fn check_types(args: &[Arg], ins: &[ValueKind], outs: &[ValueKind]) -> Result<(), ComputeError> {
    let want_in: Vec<&Arg> = args.iter().filter(|a| a.takes_input()).collect();
    let want_out: Vec<&Arg> = args.iter().filter(|a| a.gives_output()).collect();
    if want_in.len() != ins.len() {
        return Err(ComputeError::Spec(format!(
            "the specs take {} input values, the input type has {}",
            want_in.len(),
            ins.len()
        )));
    }
    if want_out.len() != outs.len() {
        return Err(ComputeError::Spec(format!(
            "the specs give {} output values, the output type has {}",
            want_out.len(),
            outs.len()
        )));
    }
    for (i, (arg, kind)) in want_in.iter().zip(ins).enumerate() {
        let scalar = matches!(arg.role, Role::Scalar);
        let fits = kind.elem() == arg.elem && scalar == matches!(kind, ValueKind::Scalar(_));
        if !fits {
            return Err(ComputeError::Spec(format!(
                "input value {i} is {kind:?}, its spec is {}",
                arg.describe()
            )));
        }
    }
    for (i, (arg, kind)) in want_out.iter().zip(outs).enumerate() {
        if kind.elem() != arg.elem {
            return Err(ComputeError::Spec(format!(
                "output value {i} is {kind:?}, its spec is {}",
                arg.describe()
            )));
        }
    }
    Ok(())
}

/// Compares the specs with the kernel's parameters: their number always, and where the
/// implementation reports argument info, each parameter's type and address space.
fn check_params(kernel: &ClKernel, args: &[Arg]) -> Result<(), ComputeError> {
    let n = kernel
        .num_args()
        .map_err(ComputeError::cl("clGetKernelInfo"))? as usize;
    if n != args.len() {
        return Err(ComputeError::Spec(format!(
            "the kernel has {n} parameters, the specs describe {}",
            args.len()
        )));
    }
    for (i, arg) in args.iter().enumerate() {
        let Ok(name) = kernel.get_arg_type_name(i as u32) else {
            continue;
        };
        let Some((elem, pointer)) = ElemType::parse_c(&name) else {
            continue;
        };
        let want_pointer = !matches!(arg.role, Role::Scalar);
        let local = kernel
            .get_arg_address_qualifier(i as u32)
            .map(|q| q == CL_KERNEL_ARG_ADDRESS_LOCAL)
            .ok();
        let local_fits = match local {
            Some(l) => l == matches!(arg.role, Role::Local { .. }),
            None => true,
        };
        if elem != arg.elem || pointer != want_pointer || !local_fits {
            return Err(ComputeError::Spec(format!(
                "kernel parameter {i} is `{name}`, its spec is {}",
                arg.describe()
            )));
        }
    }
    Ok(())
}
