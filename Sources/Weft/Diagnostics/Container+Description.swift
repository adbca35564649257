extension Container: CustomStringConvertible {
    /// Lists this container's registrations (not its parent's), one per line, sorted:
    ///
    /// ```
    /// [
    ///     { Service: Animal, Factory: Resolver -> Animal, ObjectScope: graph }
    /// ]
    /// ```
    public var description: String {
        let lines = ownRegistrations().map { "\n    { \($0.value.describeWithKey($0.key)) }" }.sorted()
        return "[" + lines.joined(separator: ",") + "\n]"
    }
}

extension Container: CustomReflectable {
    /// This container's registrations by key and its parent, for debuggers and `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["registrations": ownRegistrations(), "parent": parent as Any],
            displayStyle: .class
        )
    }
}

extension Container {
    /// Registrations that might have been meant instead of `key`: the same type under other names or
    /// with other arguments (here or in a parent), or the type wrapped in or out of `Optional`. A place is named
    /// for those of a parent, counted in containers, not in the scopes between them.
    func suggestions(for key: ServiceKey) -> [String] {
        let wanted = String(describing: key.serviceType)
        var result: [String] = []
        var container: Container? = self
        var level = 0
        while let current = container {
            let place = level == 0 ? "" : (level == 1 ? " (in the parent container)" : " (in an ancestor container)")
            for candidate in current.ownRegistrations().keys.sorted(by: {
                $0.requestDescription < $1.requestDescription
            })
            // An element of a collection is resolved through its collection only: no request can name it.
            where candidate != key && !(candidate.hasOption && candidate.option is ContributionOption) {
                let name = String(describing: candidate.serviceType)
                let sameType = candidate.serviceType == key.serviceType
                let optionalTwin = name == "Optional<\(wanted)>" || wanted == "Optional<\(name)>"
                if sameType || optionalTwin {
                    result.append(candidate.requestDescription + place)
                }
            }
            // A scope (and verification's copy is built in one) is part of the container it was made from.
            if !current.isScope { level += 1 }
            container = current.parent
        }
        return result
    }
}
