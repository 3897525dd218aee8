//! The MPI library (Open MPI and MPICH, whichever the user compiled
//! with): the calls enz-rs differentiates, where their buffers, counts,
//! datatypes, peers and communicators are among their arguments, the
//! calls that carry no derivative, and the handles (datatypes, reduction
//! operations, wildcards) of both ABIs: MPICH's are integer constants,
//! Open MPI's the addresses of its predefined globals.

/// An MPI function enz-rs knows.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MpiFn {
    /// `MPI_Send(buf, n, type, dest, tag, comm)` (also `MPI_Ssend`,
    /// `MPI_Rsend`, `MPI_Bsend`: the same data movement).
    Send,
    /// `MPI_Recv(buf, n, type, src, tag, comm, status)`.
    Recv,
    /// `MPI_Isend(buf, n, type, dest, tag, comm, request)`.
    Isend,
    /// `MPI_Irecv(buf, n, type, src, tag, comm, request)`.
    Irecv,
    /// `MPI_Wait(request, status)`.
    Wait,
    /// `MPI_Waitall(n, requests, statuses)`.
    Waitall,
    /// `MPI_Sendrecv(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, src,
    /// rtag, comm, status)`.
    Sendrecv,
    /// `MPI_Bcast(buf, n, type, root, comm)`.
    Bcast,
    /// `MPI_Reduce(sbuf, rbuf, n, type, op, root, comm)`.
    Reduce,
    /// `MPI_Allreduce(sbuf, rbuf, n, type, op, comm)`.
    Allreduce,
    /// `MPI_Gather(sbuf, sn, stype, rbuf, rn, rtype, root, comm)`.
    Gather,
    /// `MPI_Scatter(sbuf, sn, stype, rbuf, rn, rtype, root, comm)`.
    Scatter,
    /// `MPI_Allgather(sbuf, sn, stype, rbuf, rn, rtype, comm)`.
    Allgather,
    /// `MPI_Barrier(comm)`: mirrored by the reverse sweep.
    Barrier,
    /// Another way to complete or drop requests (`MPI_Testany`,
    /// `MPI_Waitany`, `MPI_Request_free`, ...): refused where
    /// non-blocking transfers carry derivatives.
    Completion,
    /// Set-up, queries and clocks (`MPI_Init`, `MPI_Comm_rank`,
    /// `MPI_Wtime`, ...): no derivative; they may write integers through
    /// their pointer arguments.
    Inactive,
    /// Any other `MPI_*` function: refused when it is passed memory that
    /// holds derivatives.
    Other,
}

/// Where one buffer of an MPI call is among its arguments.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct MpiBuffer {
    /// The buffer.
    pub(crate) buf: u32,
    /// Its element count.
    pub(crate) count: u32,
    /// Its datatype.
    pub(crate) datatype: u32,
    /// Whether the call writes it (a receive buffer).
    pub(crate) written: bool,
}

const fn buffer(buf: u32, count: u32, datatype: u32, written: bool) -> MpiBuffer {
    MpiBuffer {
        buf,
        count,
        datatype,
        written,
    }
}

impl MpiFn {
    /// The MPI function `name` designates, if it is one.
    pub(crate) fn from_callee(name: &str) -> Option<MpiFn> {
        let f = match name {
            "MPI_Send" | "MPI_Ssend" | "MPI_Rsend" | "MPI_Bsend" => MpiFn::Send,
            "MPI_Recv" => MpiFn::Recv,
            "MPI_Isend" => MpiFn::Isend,
            "MPI_Irecv" => MpiFn::Irecv,
            "MPI_Wait" => MpiFn::Wait,
            "MPI_Waitall" => MpiFn::Waitall,
            "MPI_Sendrecv" => MpiFn::Sendrecv,
            "MPI_Bcast" => MpiFn::Bcast,
            "MPI_Reduce" => MpiFn::Reduce,
            "MPI_Allreduce" => MpiFn::Allreduce,
            "MPI_Gather" => MpiFn::Gather,
            "MPI_Scatter" => MpiFn::Scatter,
            "MPI_Allgather" => MpiFn::Allgather,
            "MPI_Barrier" => MpiFn::Barrier,
            // Preprocessing follows each `MPI_Test`/`MPI_Testall` with
            // the `MPI_Waitall` its completion amounts to
            // (`preprocess/mpi.rs`): the test itself is bookkeeping.
            MPI_TEST | MPI_TESTALL => MpiFn::Inactive,
            "MPI_Testany" | "MPI_Testsome" | "MPI_Waitany" | "MPI_Waitsome"
            | "MPI_Request_free" | "MPI_Cancel" => MpiFn::Completion,
            "MPI_Init"
            | "MPI_Init_thread"
            | "MPI_Finalize"
            | "MPI_Initialized"
            | "MPI_Finalized"
            | "MPI_Comm_rank"
            | "MPI_Comm_size"
            | "MPI_Wtime"
            | "MPI_Wtick"
            | "MPI_Abort"
            | "MPI_Get_processor_name"
            | MPI_TYPE_SIZE
            | "MPI_Get_count" => MpiFn::Inactive,
            // Contiguous derived datatypes: preprocessing rewrites the
            // calls that use one to move the predefined type they are
            // made of (`preprocess/mpi.rs`); making, committing and
            // freeing one is bookkeeping.
            MPI_TYPE_CONTIGUOUS | MPI_TYPE_COMMIT | MPI_TYPE_FREE => MpiFn::Inactive,
            _ if name.starts_with("MPI_") || name.starts_with("PMPI_") => MpiFn::Other,
            _ => return None,
        };
        Some(f)
    }

    /// The buffers the call moves data between.
    pub(crate) fn buffers(self) -> &'static [MpiBuffer] {
        const SEND: [MpiBuffer; 1] = [buffer(0, 1, 2, false)];
        const RECV: [MpiBuffer; 1] = [buffer(0, 1, 2, true)];
        const SENDRECV: [MpiBuffer; 2] = [buffer(0, 1, 2, false), buffer(5, 6, 7, true)];
        const BCAST: [MpiBuffer; 1] = [buffer(0, 1, 2, true)];
        const REDUCE: [MpiBuffer; 2] = [buffer(0, 2, 3, false), buffer(1, 2, 3, true)];
        const GATHER: [MpiBuffer; 2] = [buffer(0, 1, 2, false), buffer(3, 4, 5, true)];
        match self {
            MpiFn::Send | MpiFn::Isend => &SEND,
            MpiFn::Recv | MpiFn::Irecv => &RECV,
            MpiFn::Sendrecv => &SENDRECV,
            MpiFn::Bcast => &BCAST,
            MpiFn::Reduce | MpiFn::Allreduce => &REDUCE,
            MpiFn::Gather | MpiFn::Scatter | MpiFn::Allgather => &GATHER,
            _ => &[],
        }
    }

    /// The reduction operation's argument.
    pub(crate) fn op_arg(self) -> Option<u32> {
        match self {
            MpiFn::Reduce | MpiFn::Allreduce => Some(4),
            _ => None,
        }
    }

    /// The arguments that name a peer rank to receive from (checked
    /// against `MPI_ANY_SOURCE`: the reverse sweep sends back to it).
    pub(crate) fn source_arg(self) -> Option<u32> {
        match self {
            MpiFn::Recv | MpiFn::Irecv => Some(3),
            MpiFn::Sendrecv => Some(8),
            _ => None,
        }
    }

    /// The argument holding a blocking receive's status.
    pub(crate) fn status_arg(self) -> Option<u32> {
        match self {
            MpiFn::Recv => Some(6),
            MpiFn::Sendrecv => Some(11),
            _ => None,
        }
    }

    /// The argument holding a receive's tag (checked against
    /// `MPI_ANY_TAG`).
    pub(crate) fn receive_tag_arg(self) -> Option<u32> {
        match self {
            MpiFn::Recv | MpiFn::Irecv => Some(4),
            MpiFn::Sendrecv => Some(9),
            _ => None,
        }
    }

    /// Whether the call moves data (has buffers).
    pub(crate) fn communicates(self) -> bool {
        !self.buffers().is_empty()
    }

    /// The function's name, for messages and for the calls derivatives
    /// make.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MpiFn::Send => MPI_SEND,
            MpiFn::Recv => MPI_RECV,
            MpiFn::Isend => MPI_ISEND,
            MpiFn::Irecv => MPI_IRECV,
            MpiFn::Wait => MPI_WAIT,
            MpiFn::Waitall => "MPI_Waitall",
            MpiFn::Sendrecv => MPI_SENDRECV,
            MpiFn::Bcast => MPI_BCAST,
            MpiFn::Reduce => MPI_REDUCE,
            MpiFn::Allreduce => MPI_ALLREDUCE,
            MpiFn::Gather => MPI_GATHER,
            MpiFn::Scatter => MPI_SCATTER,
            MpiFn::Allgather => "MPI_Allgather",
            MpiFn::Barrier => MPI_BARRIER,
            MpiFn::Inactive | MpiFn::Other | MpiFn::Completion => "MPI",
        }
    }
}

/// `MPI_Send`.
pub(crate) const MPI_SEND: &str = "MPI_Send";
/// `MPI_Recv`.
pub(crate) const MPI_RECV: &str = "MPI_Recv";
/// `MPI_Isend`.
pub(crate) const MPI_ISEND: &str = "MPI_Isend";
/// `MPI_Irecv`.
pub(crate) const MPI_IRECV: &str = "MPI_Irecv";
/// `MPI_Wait`.
pub(crate) const MPI_WAIT: &str = "MPI_Wait";
/// `MPI_Waitall(n, requests, statuses)`.
pub(crate) const MPI_WAITALL: &str = "MPI_Waitall";
/// `MPI_Test(request, flag, status)`.
pub(crate) const MPI_TEST: &str = "MPI_Test";
/// `MPI_Testall(n, requests, flag, statuses)`.
pub(crate) const MPI_TESTALL: &str = "MPI_Testall";
/// `MPI_Sendrecv`.
pub(crate) const MPI_SENDRECV: &str = "MPI_Sendrecv";
/// `MPI_Bcast`.
pub(crate) const MPI_BCAST: &str = "MPI_Bcast";
/// `MPI_Reduce`.
pub(crate) const MPI_REDUCE: &str = "MPI_Reduce";
/// `MPI_Allreduce`.
pub(crate) const MPI_ALLREDUCE: &str = "MPI_Allreduce";
/// `MPI_Gather`.
pub(crate) const MPI_GATHER: &str = "MPI_Gather";
/// `MPI_Scatter`.
pub(crate) const MPI_SCATTER: &str = "MPI_Scatter";
/// `MPI_Barrier`.
pub(crate) const MPI_BARRIER: &str = "MPI_Barrier";
/// `MPI_Type_contiguous(count, oldtype, &newtype)`.
pub(crate) const MPI_TYPE_CONTIGUOUS: &str = "MPI_Type_contiguous";
/// `MPI_Type_commit(&type)`.
pub(crate) const MPI_TYPE_COMMIT: &str = "MPI_Type_commit";
/// `MPI_Type_free(&type)`.
pub(crate) const MPI_TYPE_FREE: &str = "MPI_Type_free";
/// `MPI_Type_size(type, &bytes)`.
pub(crate) const MPI_TYPE_SIZE: &str = "MPI_Type_size";
/// `MPI_Comm_rank`.
pub(crate) const MPI_COMM_RANK: &str = "MPI_Comm_rank";
/// `MPI_Comm_size`.
pub(crate) const MPI_COMM_SIZE: &str = "MPI_Comm_size";

/// What a datatype handle describes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MpiType {
    /// `MPI_DOUBLE`.
    Double,
    /// `MPI_FLOAT`.
    Float,
    /// An integer, character or byte type: data without derivatives.
    Integer,
}

impl MpiType {
    /// Bytes per element of a float type.
    pub(crate) fn size(self) -> u32 {
        match self {
            MpiType::Double => 8,
            MpiType::Float => 4,
            MpiType::Integer => 0,
        }
    }
}

/// MPICH's datatype handle of `MPI_DOUBLE`.
pub(crate) const MPICH_DOUBLE: i64 = 0x4c00_080b;
/// MPICH's datatype handle of `MPI_FLOAT`.
const MPICH_FLOAT: i64 = 0x4c00_040a;
/// MPICH's builtin datatypes are `0x4c00_ssnn` (`ss` the size in bytes).
const MPICH_BUILTIN_MASK: i64 = 0x7fff_0000;
const MPICH_BUILTIN: i64 = 0x4c00_0000;
/// MPICH's builtin floating types other than float and double (long
/// double, complex): `nn` of each.
const MPICH_OTHER_FLOATS: &[i64] = &[0x0c, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23];

/// The datatype an MPICH handle (an integer constant) names, if enz-rs
/// can read it.
pub(crate) fn mpich_type(handle: i64) -> Option<MpiType> {
    match handle {
        MPICH_DOUBLE => Some(MpiType::Double),
        MPICH_FLOAT => Some(MpiType::Float),
        h if h & MPICH_BUILTIN_MASK == MPICH_BUILTIN
            && !MPICH_OTHER_FLOATS.contains(&(h & 0xff)) =>
        {
            Some(MpiType::Integer)
        }
        _ => None,
    }
}

/// The datatype an Open MPI handle (the address of global `name`) names,
/// if enz-rs can read it.
pub(crate) fn open_mpi_type(name: &str) -> Option<MpiType> {
    const INTEGERS: &[&str] = &[
        "ompi_mpi_char",
        "ompi_mpi_signed_char",
        "ompi_mpi_unsigned_char",
        "ompi_mpi_byte",
        "ompi_mpi_short",
        "ompi_mpi_unsigned_short",
        "ompi_mpi_int",
        "ompi_mpi_unsigned",
        "ompi_mpi_long",
        "ompi_mpi_unsigned_long",
        "ompi_mpi_long_long_int",
        "ompi_mpi_unsigned_long_long",
        "ompi_mpi_int8_t",
        "ompi_mpi_uint8_t",
        "ompi_mpi_int16_t",
        "ompi_mpi_uint16_t",
        "ompi_mpi_int32_t",
        "ompi_mpi_uint32_t",
        "ompi_mpi_int64_t",
        "ompi_mpi_uint64_t",
        "ompi_mpi_c_bool",
    ];
    match name {
        "ompi_mpi_double" => Some(MpiType::Double),
        "ompi_mpi_float" => Some(MpiType::Float),
        n if INTEGERS.contains(&n) => Some(MpiType::Integer),
        _ => None,
    }
}

/// A reduction operation enz-rs can read.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MpiOp {
    /// `MPI_SUM`.
    Sum,
    /// `MPI_MAX`.
    Max,
    /// `MPI_MIN`.
    Min,
    /// Another predefined operation (`MPI_MAX`, `MPI_PROD`, ...).
    Other(&'static str),
}

/// The operation an MPICH handle names.
pub(crate) fn mpich_op(handle: i64) -> Option<MpiOp> {
    match handle {
        0x5800_0003 => Some(MpiOp::Sum),
        0x5800_0001 => Some(MpiOp::Max),
        0x5800_0002 => Some(MpiOp::Min),
        0x5800_0004 => Some(MpiOp::Other("MPI_PROD")),
        _ => None,
    }
}

/// The operation an Open MPI handle (the address of global `name`) names.
pub(crate) fn open_mpi_op(name: &str) -> Option<MpiOp> {
    match name {
        "ompi_mpi_op_sum" => Some(MpiOp::Sum),
        "ompi_mpi_op_max" => Some(MpiOp::Max),
        "ompi_mpi_op_min" => Some(MpiOp::Min),
        "ompi_mpi_op_prod" => Some(MpiOp::Other("MPI_PROD")),
        _ => None,
    }
}

/// MPICH's handle of `MPI_SUM`.
pub(crate) const MPICH_SUM: i64 = 0x5800_0003;
/// Open MPI's global whose address is `MPI_DOUBLE`.
pub(crate) const OPEN_MPI_DOUBLE: &str = "ompi_mpi_double";
/// Open MPI's global whose address is `MPI_SUM`.
pub(crate) const OPEN_MPI_SUM: &str = "ompi_mpi_op_sum";
/// `MPI_ANY_SOURCE` of MPICH.
pub(crate) const MPICH_ANY_SOURCE: i64 = -2;
/// `MPI_ANY_SOURCE` of Open MPI.
pub(crate) const OPEN_MPI_ANY_SOURCE: i64 = -1;
/// `MPI_PROC_NULL` of MPICH.
pub(crate) const MPICH_PROC_NULL: i64 = -1;
/// `MPI_PROC_NULL` of Open MPI.
pub(crate) const OPEN_MPI_PROC_NULL: i64 = -2;
/// Byte offsets of `MPI_SOURCE` and `MPI_TAG` in MPICH's `MPI_Status`.
pub(crate) const MPICH_STATUS_SOURCE_TAG: (u64, u64) = (8, 12);
/// Byte offsets of `MPI_SOURCE` and `MPI_TAG` in Open MPI's `MPI_Status`.
pub(crate) const OPEN_MPI_STATUS_SOURCE_TAG: (u64, u64) = (0, 4);
/// `MPI_ANY_TAG` (both).
pub(crate) const ANY_TAG: i64 = -1;

/// The table of pending non-blocking transfers (`synth/mpi.rs`).
pub(crate) const MPI_TABLE: &str = "__enz_mpi_requests";
/// The stack of waits' claims on that table (`synth/mpi/requests.rs`).
pub(crate) const MPI_CLAIMS: &str = "__enz_mpi_claims";
/// The prefix of the helper functions MPI derivatives call.
pub(crate) const MPI_HELPER_PREFIX: &str = "__enz_mpi_";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_of_both_abis() {
        assert_eq!(mpich_type(0x4c00_080b), Some(MpiType::Double));
        assert_eq!(mpich_type(0x4c00_040a), Some(MpiType::Float));
        assert_eq!(mpich_type(0x4c00_0405), Some(MpiType::Integer)); // MPI_INT
        assert_eq!(mpich_type(0x4c00_100c), None); // MPI_LONG_DOUBLE
        assert_eq!(mpich_type(0x1234), None);
        assert_eq!(open_mpi_type("ompi_mpi_double"), Some(MpiType::Double));
        assert_eq!(open_mpi_type("ompi_mpi_float"), Some(MpiType::Float));
        assert_eq!(open_mpi_type("ompi_mpi_int"), Some(MpiType::Integer));
        assert_eq!(open_mpi_type("ompi_mpi_long_double"), None);
        assert_eq!(mpich_op(MPICH_SUM), Some(MpiOp::Sum));
        assert_eq!(mpich_op(0x5800_0001), Some(MpiOp::Max));
        assert_eq!(mpich_op(0x5800_0004), Some(MpiOp::Other("MPI_PROD")));
        assert_eq!(open_mpi_op(OPEN_MPI_SUM), Some(MpiOp::Sum));
        assert_eq!(open_mpi_op("ompi_mpi_op_min"), Some(MpiOp::Min));
        assert_eq!(
            open_mpi_op("ompi_mpi_op_prod"),
            Some(MpiOp::Other("MPI_PROD"))
        );
    }

    #[test]
    fn functions_and_their_buffers() {
        assert_eq!(MpiFn::from_callee("MPI_Sendrecv"), Some(MpiFn::Sendrecv));
        assert_eq!(MpiFn::from_callee("MPI_Comm_rank"), Some(MpiFn::Inactive));
        assert_eq!(MpiFn::from_callee("MPI_Alltoall"), Some(MpiFn::Other));
        assert_eq!(MpiFn::from_callee("mpi_send"), None);
        let sr = MpiFn::Sendrecv.buffers();
        assert_eq!((sr[0].buf, sr[0].written), (0, false));
        assert_eq!(
            (sr[1].buf, sr[1].count, sr[1].datatype, sr[1].written),
            (5, 6, 7, true)
        );
        assert_eq!(MpiFn::Allreduce.op_arg(), Some(4));
        assert!(MpiFn::Wait.buffers().is_empty());
    }
}
