//! The one error type of mpblas. Every public fallible function returns `Result<_, Error>`;
//! nothing at a public boundary panics.

/// Why a decimal string could not be read as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The string is empty (after trimming surrounding whitespace).
    Empty,
    /// A character that cannot appear in a number at that position.
    InvalidDigit,
    /// The exponent after `e`/`E` is missing or not an integer.
    InvalidExponent,
    /// The significand has no digit (`"."`, `"+"`, `"e5"`, `"-.e1"`).
    NoDigits,
}

impl std::fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ParseErrorKind::Empty => "empty string",
            ParseErrorKind::InvalidDigit => "invalid character",
            ParseErrorKind::InvalidExponent => "invalid exponent",
            ParseErrorKind::NoDigits => "no digits in the significand",
        })
    }
}

/// A decimal string that is not a number of the requested format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse {format} from {input:?}: {kind}")]
pub struct ParseError {
    /// The format that was asked for (`"dd"`, `"qd"`, …).
    pub format: &'static str,
    /// The input, truncated to 64 characters.
    pub input: String,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

impl ParseError {
    /// A parse error for `input`, kept short enough to print.
    pub fn new(format: &'static str, input: &str, kind: ParseErrorKind) -> Self {
        let input: String = input.chars().take(64).collect();
        ParseError {
            format,
            input,
            kind,
        }
    }
}

/// Everything that can go wrong in mpblas.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A decimal string could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The CUDA backend was not compiled in.
    #[error("CUDA support is not built into this mpblas (build with the `cuda` feature)")]
    CudaNotBuilt,
    /// An RNS basis was requested for a precision outside the supported range.
    #[error("RNS precision {requested} bits is outside the supported range {min}..={max}")]
    PrecisionOutOfRange {
        /// The precision asked for, in bits.
        requested: u32,
        /// Smallest supported precision.
        min: u32,
        /// Largest supported precision.
        max: u32,
    },
    /// Two RNS numbers (or a number and an array) built on different bases were combined.
    #[error(
        "RNS numbers of different bases were mixed ({left_bits}-bit and {right_bits}-bit bases); convert one with MpFloat::round_to, or use the operators, which compute in the wider basis"
    )]
    BasisMismatch {
        /// Precision of the left operand's basis.
        left_bits: u32,
        /// Precision of the right operand's basis.
        right_bits: u32,
    },
    /// An index or length does not fit the array it refers to.
    #[error("{what}: index or length {got} does not fit length {len}")]
    OutOfBounds {
        /// What was being accessed.
        what: &'static str,
        /// The offending index or length.
        got: usize,
        /// The length available.
        len: usize,
    },
    /// No usable CUDA driver: `libcuda` could not be loaded, or `cuInit` failed.
    #[error("no CUDA driver: {detail}")]
    CudaNoDriver {
        /// What was tried and what failed.
        detail: String,
    },
    /// The CUDA driver is older than the CUDA version mpblas's bindings were generated for.
    #[error(
        "CUDA driver too old: it supports CUDA {}.{}, mpblas needs {}.{} or newer",
        found / 1000, (found % 1000) / 10, required / 1000, (required % 1000) / 10
    )]
    CudaDriverTooOld {
        /// The driver's CUDA version, as `cuDriverGetVersion` reports it (13000 for 13.0).
        found: i32,
        /// The oldest version mpblas supports, in the same encoding.
        required: i32,
    },
    /// The driver works but there is no GPU with the requested ordinal.
    #[error("no CUDA device with ordinal {ordinal} ({count} device(s) present)")]
    CudaNoDevice {
        /// The ordinal that was asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// A CUDA library that the operation needs could not be loaded.
    #[error(
        "CUDA library lib{library} not found (install it or add its directory to LD_LIBRARY_PATH)"
    )]
    CudaLibraryMissing {
        /// The library: `"nvrtc"`, `"cublas"`, `"cublasLt"`.
        library: &'static str,
    },
    /// A CUDA library loads but lacks a function the operation needs (it is older than the
    /// feature), e.g. cuBLAS without the FP64 emulation API.
    #[error("CUDA feature not available: {what}")]
    CudaFeatureMissing {
        /// What is missing and what provides it.
        what: String,
    },
    /// NVRTC rejected a kernel module; `log` is the compiler's log.
    #[error("NVRTC failed to compile CUDA module {module} for {arch}: {cause}\n{log}")]
    CudaCompile {
        /// The module (the kernel source's file stem, e.g. `"dd_elementwise"`).
        module: &'static str,
        /// The target architecture, e.g. `"sm_90"`.
        arch: String,
        /// NVRTC's error code.
        cause: String,
        /// NVRTC's compilation log.
        log: String,
    },
    /// A kernel could not be loaded or launched, or failed while running.
    #[error("CUDA kernel {kernel} failed: {cause}")]
    CudaLaunch {
        /// The kernel's entry name, e.g. `"dd_add_vv"`.
        kernel: &'static str,
        /// The driver's error.
        cause: String,
    },
    /// A CUDA driver call other than a launch failed (a copy, a synchronisation, …).
    #[error("CUDA {op} failed: {cause}")]
    CudaDriver {
        /// What was being done (`"download"`, `"synchronize"`, …).
        op: &'static str,
        /// The driver's error.
        cause: String,
    },
    /// The device ran out of memory.
    #[error("CUDA device {ordinal} is out of memory allocating {bytes} bytes")]
    CudaOutOfMemory {
        /// The device.
        ordinal: usize,
        /// The size of the allocation that failed.
        bytes: usize,
    },
    /// Two operands that must have the same length do not.
    #[error("length mismatch: {arg} has length {got}, expected {expected}")]
    LengthMismatch {
        /// The argument with the wrong length (e.g. `"y"`, `"out"`).
        arg: &'static str,
        /// The length it must have (that of the first operand).
        expected: usize,
        /// Its length.
        got: usize,
    },
    /// An operand lives on a different device from the one the operation runs on.
    #[error(
        "device mismatch: {arg} is on CUDA device {got}, the operation runs on device {expected}"
    )]
    DeviceMismatch {
        /// The argument on the wrong device.
        arg: &'static str,
        /// The device the operation runs on.
        expected: usize,
        /// The device the argument is on.
        got: usize,
    },
    /// A leading dimension (`lda`, `ldb`, `ldc`) is smaller than the matrix it describes needs.
    #[error("{arg} = {got} is too small: it must be at least {min}")]
    LeadingDim {
        /// The BLAS argument name (`"lda"`, `"ldb"`, `"ldc"`).
        arg: &'static str,
        /// The value passed.
        got: usize,
        /// The smallest valid value.
        min: usize,
    },
    /// An array argument holds fewer elements than its dimensions and leading dimension need.
    #[error("array {arg} has {got} elements, but the dimensions need at least {min}")]
    ArrayTooShort {
        /// The BLAS argument name (`"a"`, `"b"`, `"c"`).
        arg: &'static str,
        /// The length passed.
        got: usize,
        /// The length needed.
        min: usize,
    },
    /// A matrix or vector view cannot be built as asked: a zero increment, strides that make
    /// two elements of a mutable view share storage, negative strides of a foreign view.
    #[error("invalid view of {arg}: {reason}")]
    InvalidView {
        /// The argument (BLAS name such as `"x"`, or `"data"`).
        arg: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A parameter (a count, a dimension) is outside the range the routine supports.
    #[error("{what} = {got} is outside the supported range {min}..={max}")]
    OutOfRange {
        /// What the parameter is.
        what: &'static str,
        /// The value passed.
        got: usize,
        /// Smallest supported value.
        min: usize,
        /// Largest supported value.
        max: usize,
    },
    /// A solve met an exactly singular matrix: the LU factor's diagonal entry `U(column,
    /// column)` (0-based) is zero.
    #[error(
        "the matrix is singular: U({column}, {column}) of its LU factorisation is exactly zero"
    )]
    Singular {
        /// The first zero diagonal entry of `U`, 0-based.
        column: usize,
    },
    /// A floating-point argument holds a value the routine cannot work with: NaN or an
    /// infinity where only a finite number means something (a matrix norm, the entries of LU
    /// factors whose condition is estimated), or a negative norm.
    #[error("{arg} {reason}")]
    InvalidNumber {
        /// The argument (`"anorm"`, `"lu"`).
        arg: &'static str,
        /// What is wrong with it (`"is NaN"`, `"holds NaN or an infinity"`, ...).
        reason: &'static str,
    },
}

/// `Result` with mpblas's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
