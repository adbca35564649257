/// What kind of type a service type is, read from its runtime metadata once per registration.
///
/// The standard library has no public question for "can a value of this type be a class instance?":
/// `_canBeClass` answers about the static type's representation, so it says "no" for every protocol type,
/// even one only classes adopt. Every type's metadata starts with a kind word, which the Swift runtime's
/// `MetadataKind` numbers as part of its stable ABI; that word answers the question.
enum TypeKind {
    private static let structKind: UInt = 0x200
    private static let enumKind: UInt = 0x201
    private static let tupleKind: UInt = 0x301
    /// The kind word of a Swift class's metadata where there is no Objective-C interoperability.
    private static let classKind: UInt = 0
    /// The largest kind number; a larger word is the `isa` pointer that starts a class's metadata on Apple platforms.
    private static let lastEnumeratedKind: UInt = 0x7FF

    /// Whether every value of `type` is a plain value (a struct, an enum other than `Optional`, a tuple), never
    /// a class instance: not a class, and not an existential or `Any`, which may hold one. An optional is left
    /// out too: an optional class instance still has an identity to share.
    static func isPlainValue(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
        return kind == structKind || kind == enumKind || kind == tupleKind
    }

    /// Whether every value of `type` is one class reference, laid out as `AnyObject` is: a Swift or Objective-C
    /// class, not an existential (whose value carries a witness table, or is boxed for `Any`).
    @inline(__always)
    static func isClass(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
        return kind == classKind || kind > lastEnumeratedKind
    }

    /// Whether every value of `type` starts with one strong class reference and holds nothing else to release: a
    /// class, or an existential that only classes adopt (`any P` with `P: AnyObject`, or `AnyObject`), whose
    /// value is the reference followed by witness tables. Releasing that reference destroys such a value.
    ///
    /// An existential's metadata follows its kind word with flags whose top bit is clear when the existential is
    /// class-bound (the runtime's `ExistentialTypeFlags`, part of the same stable ABI).
    static func holdsOneReference(_ type: Any.Type) -> Bool {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        if kind == classKind || kind > lastEnumeratedKind { return true }
        guard kind == existentialKind else { return false }
        return metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self) & classConstraintAny == 0
    }

    private static let existentialKind: UInt = 0x303
    /// `ExistentialTypeFlags`' class-constraint bit: set when any type may adopt the existential's protocols.
    private static let classConstraintAny: UInt32 = 0x8000_0000
}
