// The object graph every scenario builds: A(b: B(c: C()), c: C()), reached through protocols as an app
// registers its services.

public protocol CProto: AnyObject, Sendable {}
public protocol BProto: AnyObject, Sendable {}
public protocol AProto: AnyObject, Sendable {}

public final class C: CProto {
    public init() {}
}

public final class B: BProto {
    public let c: any CProto
    public init(c: any CProto) { self.c = c }
}

public final class A: AProto {
    public let b: any BProto
    public let c: any CProto
    public init(b: any BProto, c: any CProto) {
        self.b = b
        self.c = c
    }
}

/// A unit of work kept per scope.
public final class Work: Sendable {
    public let c: any CProto
    public init(c: any CProto) { self.c = c }
}

/// A unit of work that must be closed when its unit ends (a transaction, a connection lease).
public final class ClosingWork: @unchecked Sendable {
    public let c: any CProto
    public private(set) var closed = false
    public init(c: any CProto) { self.c = c }
    public func close() { closed = true }
}

/// A unit of work committed asynchronously when its unit ends (a transaction on a database actor).
public actor CommittingWork {
    public let c: any CProto
    public private(set) var committed = false
    public init(c: any CProto) { self.c = c }
    public func commit() { committed = true }
}

/// Where every result goes, so that nothing is optimized away: a call the optimizer cannot see into.
@inline(never)
public func sink(_ value: AnyObject) {
    sunk &+= unsafeBitCast(value, to: Int.self) & 1
}

nonisolated(unsafe) public var sunk = 0
