/// What a container keeps for its end: the instances to tear down, in creation order, and, for a scope, its
/// slots of `.scoped` registrations. Guarded by the container's lock.
struct LifetimeRecord {
    var owned: [OwnedInstance] = []
    var slots = ScopeSlots()
    var ended = false
}

/// What names an instance to tear down in errors and logs: its registered type, described only when a message
/// needs it (describing a type costs thousands of instructions, and most teardowns succeed), or a text.
struct TeardownName: @unchecked Sendable {
    private let type: Any.Type?
    private let text: String

    init(_ type: Any.Type) {
        self.type = type
        text = ""
    }

    init(_ text: String) {
        type = nil
        self.text = text
    }

    /// The name, as messages show it.
    var description: String {
        guard let type else { return text }
        return String(describing: type)
    }
}
