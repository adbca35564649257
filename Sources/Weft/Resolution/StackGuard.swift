import WeftAtomics

/// Where the calling thread's stack ends, so that a resolve that goes too deep fails with an error instead of
/// overflowing the stack.
///
/// Each level of a resolve is a few frames of Weft's and the factory's own; a chain of registrations that
/// resolve one another (or a registration that resolves itself under ever new names) recurses once per
/// level. Threads differ widely: 8 MiB for a main thread, 512 KiB for a secondary thread on Apple platforms,
/// whatever a thread pool chose. The guard reads the thread's real bounds once, when the thread first
/// resolves, and every new instance compares the current stack address with them: an integer compare.
struct StackGuard {
    /// The lowest stack address a new instance may start at; 0 when the bounds are unknown (no check).
    let limit: UInt
    /// The highest address of the stack (where it starts), 0 when unknown.
    let top: UInt
    /// The stack's size in bytes, 0 when unknown.
    let size: UInt

    /// Bytes kept free below the limit: room for the last factory to run its own code and for the error to be
    /// made and thrown. At least 64 KiB, a sixteenth of a large stack.
    static func reserve(forStackOfSize size: UInt) -> UInt {
        max(64 << 10, size / 16)
    }

    /// The bounds of the calling thread's stack.
    static func forCurrentThread() -> StackGuard {
        guard let (bottom, size) = currentStack(), size > reserve(forStackOfSize: size) else {
            return StackGuard(limit: 0, top: 0, size: 0)
        }
        return StackGuard(limit: bottom + reserve(forStackOfSize: size), top: bottom + size, size: size)
    }

    /// The lowest address and the size of the calling thread's stack, if the system tells.
    private static func currentStack() -> (bottom: UInt, size: UInt)? {
        var bottom: UInt = 0
        var size: UInt = 0
        guard weft_current_thread_stack(&bottom, &size) == 0 else { return nil }
        return (bottom, size)
    }

    /// An address in the caller's stack frame (inlined, the frame of the function that calls it).
    @inline(__always)
    static func currentAddress() -> UInt {
        UInt(weft_frame_address())
    }

    /// How many bytes of the stack are in use at `address`.
    func used(at address: UInt) -> UInt {
        top > address ? top - address : 0
    }
}
